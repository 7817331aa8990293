"""Our inputs (messages, ``Command``) as the real LangGraph expects them."""

from __future__ import annotations

from typing import Any

from engine.messages import BaseMessage

__all__ = ["to_real_input"]


def to_real_input(value: Any) -> Any:
    """Our messages and ``Command`` as LangGraph expects them (anything else unchanged)."""
    from engine.interop import to_langchain

    if type(value).__name__ == "Command" and type(value).__module__.startswith("engine"):
        from langgraph.types import Command

        fields = {
            k: getattr(value, k)
            for k in ("resume", "update", "goto", "graph")
            if getattr(value, k, None) is not None
        }
        return Command(**{k: to_real_input(v) for k, v in fields.items()})
    if isinstance(value, dict):
        return {k: to_real_input(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_real_input(v) for v in value]
    if isinstance(value, BaseMessage):
        return to_langchain(value)
    return value
