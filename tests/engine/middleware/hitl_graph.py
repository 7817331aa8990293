"""A one-node graph running HumanInTheLoopMiddleware.after_model (also used in a subprocess).

START -> review -> END, where ``review`` is the middleware's ``after_model`` hook: enough to
exercise the real interrupt / checkpoint / resume path without ``create_agent``.
"""

from __future__ import annotations

from typing import Any

from engine.graph import END, START, StateGraph
from engine.messages import AIMessage, HumanMessage
from engine.middleware.hitl import HumanInTheLoopMiddleware, HumanInTheLoopState

INTERRUPT_ON: dict[str, Any] = {
    "send_email": True,
    "delete_file": {"allowed_decisions": ["approve", "reject"]},
}

AI_ID = "ai-turn-1"


def first_turn() -> dict[str, Any]:
    """The scenario 21 batch: send (gated), safe (not gated), delete (approve/reject)."""
    ai = AIMessage(
        content="",
        id=AI_ID,
        tool_calls=[
            {"name": "send_email", "args": {"to": "bob@example.com", "body": "hi"}, "id": "c-send"},
            {"name": "list_files", "args": {}, "id": "c-safe"},
            {"name": "delete_file", "args": {"path": "/tmp/x"}, "id": "c-delete"},
        ],
    )
    return {"messages": [HumanMessage(content="tidy up and mail bob", id="h1"), ai]}


def build(checkpointer: Any, interrupt_on: dict[str, Any] | None = None) -> Any:
    mw = HumanInTheLoopMiddleware(interrupt_on or INTERRUPT_ON)
    g = StateGraph(HumanInTheLoopState)
    g.add_node("review", lambda state: mw.after_model(state, None))  # type: ignore[arg-type]
    g.add_edge(START, "review")
    g.add_edge("review", END)
    return g.compile(checkpointer=checkpointer)
