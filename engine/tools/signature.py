"""What a function says of itself as a tool: its description and argument docs from its
docstring (Google style ``Args:`` sections; ``parse_docstring=True`` checks them strictly, as
LangChain does), and its arguments as a pydantic model, the injected ones set apart."""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Callable
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

from engine.tool_injection import Injection, injection_of

__all__ = ["docstring_parts", "schema_for_function", "strict_docstring"]


_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Returns|Return|Raises|Yields|Examples?)\s*:\s*$", re.M
)


def docstring_parts(doc: str | None) -> tuple[str, dict[str, str]]:
    """(description, {param: description}) from a Google-style docstring."""
    if not doc:
        return "", {}
    doc = textwrap.dedent(doc).strip()
    m = _SECTION.search(doc)
    description = doc[: m.start()].strip() if m else doc
    params: dict[str, str] = {}
    args_match = re.search(r"^\s*(Args|Arguments|Parameters)\s*:\s*$", doc, re.M)
    if args_match:
        body = doc[args_match.end() :]
        nxt = _SECTION.search(body)
        if nxt:
            body = body[: nxt.start()]
        current: str | None = None
        for line in body.splitlines():
            pm = re.match(r"^\s+(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$", line)
            if pm:
                name = pm.group(1).lstrip("*")
                params[name] = pm.group(3).strip()
                current = name
            elif current is not None and line.strip():
                params[current] += " " + line.strip()
    return description, params


_NOT_ARGUMENTS = frozenset({"return", "run_manager", "callbacks", "runtime"})


def strict_docstring(fn: Callable[..., Any], param_docs: dict[str, str], strict: bool) -> str:
    """The description ``@tool(parse_docstring=True)`` gives ``fn``: the paragraphs before its
    ``Args:`` / ``Returns:`` / ``Example:`` sections joined by spaces.  ``strict``: a function
    with annotated arguments needs a summary and an ``Args:`` section (else ``ValueError``,
    as LangChain's); an argument the section names must be one of the function's."""
    doc = inspect.getdoc(fn) or ""
    blocks = doc.split("\n\n") if doc else []
    try:
        hints = get_type_hints(fn, include_extras=True)
    except Exception:
        hints = {}
    has_args_section = len(blocks) >= 2 and any(b.startswith("Args:") for b in blocks[1:])
    if strict and not has_args_section and any(a not in _NOT_ARGUMENTS for a in hints):
        raise ValueError("Found invalid Google-Style docstring.")
    for documented in param_docs:
        if documented not in hints:
            raise ValueError(f"Arg {documented} in docstring not found in function signature.")
    summary: list[str] = []
    past_summary = False
    for block in blocks:
        if block.startswith("Args:"):
            break
        past_summary = past_summary or block.startswith(("Returns:", "Example:"))
        if not past_summary:
            summary.append(block)
    return " ".join(summary).strip()


def schema_for_function(
    fn: Callable[..., Any], name: str, param_docs: dict[str, str]
) -> tuple[type[BaseModel], dict[str, Injection]]:
    sig = inspect.signature(fn)
    try:
        hints = get_type_hints(fn, include_extras=True)
    except Exception:
        hints = {}
    fields: dict[str, Any] = {}
    injected: dict[str, Injection] = {}
    for pname, p in sig.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or pname in ("self", "cls"):
            continue
        ann = hints.get(pname, p.annotation if p.annotation is not p.empty else Any)
        inj = Injection("runtime") if pname == "runtime" else injection_of(ann)
        if inj is not None:
            injected[pname] = inj
            continue
        default = p.default if p.default is not p.empty else ...
        fields[pname] = (ann, Field(default, description=param_docs.get(pname)))
    # named as the tool is, as LangChain names it: a failed validation says "for <tool name>"
    model = create_model(  # type: ignore[call-overload]
        name or "Args", __config__=ConfigDict(arbitrary_types_allowed=True), **fields
    )
    return model, injected
