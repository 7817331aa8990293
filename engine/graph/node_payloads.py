"""What a node's events say about its input and its writes (``node.started``'s
``input_summary``, ``node.finished``'s ``writes``)."""

from __future__ import annotations

from typing import Any

from engine.graph.algo import TASKS
from engine.serde import to_jsonable
from engine.types import Send

__all__ = ["summarize", "writes_payload"]


def summarize(value: Any, limit: int = 120) -> str:
    """A one-line description of a node input, for events and logs."""
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            if isinstance(v, list | tuple) or (
                hasattr(v, "__len__") and not isinstance(v, str | bytes | dict)
            ):
                parts.append(f"{k}[{len(v)}]")
            else:
                r = repr(v)
                parts.append(f"{k}={r[:30]}{'…' if len(r) > 30 else ''}")
        text = ", ".join(parts)
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def writes_payload(writes: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """A node's writes as ``node.finished`` lists them: a route by its target, a ``Send`` by
    its node and argument, a value as JSON (long texts cut)."""
    out: list[dict[str, Any]] = []
    for c, v in writes:
        if c.startswith("branch:to:"):
            out.append({"channel": c, "value": c[len("branch:to:") :]})
        elif c == TASKS and isinstance(v, Send):
            out.append(
                {"channel": c, "value": {"send": v.node, "arg": to_jsonable(v.arg, max_str=2000)}}
            )
        else:
            out.append({"channel": c, "value": to_jsonable(v, max_str=4000)})
    return out
