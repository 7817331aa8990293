"""Run one docs-style program three times: on the real LangGraph / LangChain, ported to the
engine by its import lines only (the README's table), and on the real libraries with every
graph it compiles attached (attach mode in code), and give what each printed.

A program prints what it wants compared; an exception escaping it is printed as its type and
message.  ``compare`` asserts the outputs are the same, line for line.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import re
import textwrap
from typing import Any

import pytest

__all__ = ["compare", "port", "run_attached", "run_program"]

_PORTS: list[tuple[str, str]] = [
    (r"\blangchain\.agents\.middleware(\.\w+)*\b", "engine.middleware"),
    (r"\blangchain\.agents\.structured_output\b", "engine.agents.structured_output"),
    (r"\blangchain\.agents\b", "engine.agents"),
    (r"\blangchain\.tools\b", "engine.tools"),
    (r"\blangchain\.messages\b", "engine.messages"),
    (r"\blangchain\.chat_models\b", "engine.models"),
    (r"\blanggraph\.", "engine."),
]


_CORE_MESSAGES = (r"\blangchain_core\.messages\b", "engine.messages")
"""Where a port takes ``langchain_core.messages`` (and its submodules) too (``core_messages``)."""


def port(source: str, *, core_messages: bool = False) -> str:
    """``source`` with its ``langgraph`` / ``langchain`` import lines pointing at the engine
    (with ``core_messages``, its ``langchain_core.messages`` ones too)."""
    ports = [*_PORTS, _CORE_MESSAGES] if core_messages else _PORTS
    roots = (
        "langgraph|langchain|langchain_core\\.messages" if core_messages else "langgraph|langchain"
    )
    lines = []
    for line in source.splitlines():
        if re.match(rf"\s*(from|import)\s+({roots})\b(?!_)", line):
            for pattern, repl in ports:
                line = re.sub(pattern, repl, line)
        lines.append(line)
    return "\n".join(lines) + "\n"


def run_program(source: str) -> str:
    """What ``source`` prints (its escaping exception last, as ``RAISED type: message``)."""
    out = io.StringIO()
    scope: dict[str, Any] = {"__name__": "__docs_program__"}
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(source, "<docs program>", "exec", dont_inherit=True), scope)
        except Exception as exc:
            print(f"RAISED {type(exc).__name__}: {exc}")
    return out.getvalue()


def run_attached(source: str) -> str:
    """What ``source`` prints on the real libraries with every graph it compiles attached
    (``engine.attach.attach``): the attached graph stands in for the app's own wherever the
    program uses it; one added as another graph's node is the app's own, as attach mode runs
    a whole app (its nested graphs are the app's)."""
    from langgraph.func import entrypoint
    from langgraph.graph.state import StateGraph

    from engine.attach import attach
    from engine.attach.graph import AttachedGraph

    compile_, add_node, make = StateGraph.compile, StateGraph.add_node, entrypoint.__call__

    def compile_attached(self: Any, *a: Any, **kw: Any) -> Any:
        return attach(compile_(self, *a, **kw))

    def entrypoint_attached(self: Any, func: Any) -> Any:
        return attach(make(self, func))

    def add_plain_node(self: Any, node: Any, action: Any = None, **kw: Any) -> Any:
        node = node.real if isinstance(node, AttachedGraph) else node
        action = action.real if isinstance(action, AttachedGraph) else action
        return add_node(self, node, action, **kw)

    StateGraph.compile = compile_attached  # type: ignore[method-assign]
    StateGraph.add_node = add_plain_node  # type: ignore[method-assign]
    entrypoint.__call__ = entrypoint_attached  # type: ignore[method-assign]
    try:
        return run_program(source)
    finally:
        StateGraph.compile = compile_  # type: ignore[method-assign]
        StateGraph.add_node = add_node  # type: ignore[method-assign]
        entrypoint.__call__ = make  # type: ignore[method-assign]


def _same_lines(real: str, other: str, label: str) -> None:
    if other != real:
        diff = difflib.unified_diff(
            real.splitlines(), other.splitlines(), "real", label, lineterm=""
        )
        pytest.fail(f"the {label} program printed otherwise:\n" + "\n".join(diff), pytrace=False)


def compare(source: str, *, attached: bool = True, core_messages: bool = False) -> str:
    """Run ``source`` on the real libraries, ported, and (``attached``) with its graphs
    attached; assert all print the same (``core_messages``: ported with its
    ``langchain_core.messages`` imports too)."""
    pytest.importorskip("langgraph")
    pytest.importorskip("langchain.agents")
    source = textwrap.dedent(source)
    real = run_program(source)
    _same_lines(real, run_program(port(source, core_messages=core_messages)), "ported")
    if attached:
        _same_lines(real, run_attached(source), "attached")
    return real
