"""Run one docs-style program twice: on the real LangGraph / LangChain, and ported to the
engine by its import lines only (the README's table), and give what each printed.

A program prints what it wants compared; an exception escaping it is printed as its type and
message.  ``compare`` asserts the two outputs are the same, line for line.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import re
import textwrap
from typing import Any

import pytest

__all__ = ["compare", "port", "run_program"]

_PORTS: list[tuple[str, str]] = [
    (r"\blangchain\.agents\.middleware(\.\w+)*\b", "engine.middleware"),
    (r"\blangchain\.agents\.structured_output\b", "engine.agents.structured_output"),
    (r"\blangchain\.agents\b", "engine.agents"),
    (r"\blangchain\.tools\b", "engine.tools"),
    (r"\blangchain\.messages\b", "engine.messages"),
    (r"\blangchain\.chat_models\b", "engine.models"),
    (r"\blanggraph\.", "engine."),
]


def port(source: str) -> str:
    """``source`` with its ``langgraph`` / ``langchain`` import lines pointing at the engine."""
    lines = []
    for line in source.splitlines():
        if re.match(r"\s*(from|import)\s+(langgraph|langchain)\b(?!_)", line):
            for pattern, repl in _PORTS:
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


def compare(source: str) -> str:
    """Run ``source`` on the real libraries and ported; assert both print the same."""
    pytest.importorskip("langgraph")
    pytest.importorskip("langchain.agents")
    source = textwrap.dedent(source)
    real = run_program(source)
    ours = run_program(port(source))
    if ours != real:
        diff = difflib.unified_diff(
            real.splitlines(), ours.splitlines(), "real", "ported", lineterm=""
        )
        pytest.fail("the ported program printed otherwise:\n" + "\n".join(diff), pytrace=False)
    return real
