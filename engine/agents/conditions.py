"""``tools_condition``: the routing function of the classic hand-written ReAct graph.

    graph.add_conditional_edges("agent", tools_condition)   # -> "tools" or END

Goes to ``"tools"`` when the last AI message asks for tool calls, else to END.  The state may
be a dict with ``messages`` (or another ``messages_key``), an object with that attribute, or
the message list itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from engine.types import END

__all__ = ["tools_condition"]


def tools_condition(state: Any, messages_key: str = "messages") -> Literal["tools", "__end__"]:
    if isinstance(state, Sequence) and not isinstance(state, str):
        messages = state
    elif isinstance(state, Mapping):
        messages = state.get(messages_key) or []
    else:
        messages = getattr(state, messages_key, None) or []
    if not messages:
        raise ValueError(f"No messages found in the input state to tools_condition: {state!r}")
    last = messages[-1]
    return "tools" if getattr(last, "tool_calls", None) else END  # type: ignore[return-value]
