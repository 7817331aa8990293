"""The approval dialog answers a per-call review (``interrupt_mode="per_call"``): one tool call
as it starts, answered with one decision, the buttons limited to what the tool allows."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from engine.types import Command
from studio.dialogs.approval_model import ApprovalRequest, allowed_in_schema, is_hitl_request

VALUE = {
    "type": "tool_approval",
    "tool_call_id": "call_1",
    "name": "send_email",
    "args": {"to": "lena@example.com"},
    "description": "Tool execution requires approval",
}


class Approve(BaseModel):
    type: Literal["approve"]


class Reject(BaseModel):
    type: Literal["reject"]
    message: str | None = None


def test_a_per_call_value_becomes_one_card_answered_with_one_decision() -> None:
    assert is_hitl_request(VALUE)
    request = ApprovalRequest(VALUE, interrupt_id="i1", response_schema=Approve | Reject)
    assert [a.name for a in request.actions] == ["send_email"]
    assert request.actions[0].allowed == ("approve", "reject")
    request.actions[0].reject("wrong person")
    command = request.submit()
    assert isinstance(command, Command)
    assert command.resume == {"type": "reject", "message": "wrong person"}


def test_allowed_decisions_read_from_a_json_schema_or_all_when_unknown() -> None:
    schema: dict[str, Any] = {
        "oneOf": [
            {"properties": {"type": {"const": "approve"}}},
            {"properties": {"type": {"enum": ["respond"]}}},
        ]
    }
    assert allowed_in_schema(schema) == ("approve", "respond")
    assert allowed_in_schema(None) == ("approve", "edit", "reject", "respond")


def test_the_dialog_resumes_a_real_per_call_review(qapp: Any, qloop: Any) -> None:
    from engine.agents import create_agent
    from engine.checkpoint import InMemorySaver
    from engine.messages import AIMessage, HumanMessage
    from engine.middleware import HumanInTheLoopMiddleware
    from engine.models import ScriptedChatModel
    from engine.tools import tool
    from studio.models.hub import Hub
    from studio.run.interrupts import dialog_opened, handle_interrupt

    sent: list[str] = []

    @tool
    def send_email(to: str) -> str:
        """Send an email."""
        sent.append(to)
        return f"sent to {to}"

    model = ScriptedChatModel(
        [
            AIMessage("", tool_calls=[{"name": "send_email", "args": {"to": "a@b.c"}, "id": "c1"}]),
            "Done.",
        ]
    )
    agent = create_agent(
        model,
        [send_email],
        middleware=[
            HumanInTheLoopMiddleware(
                interrupt_on={"send_email": {"allowed_decisions": ["approve", "reject"]}},
                interrupt_mode="per_call",
            )
        ],
        checkpointer=InMemorySaver(),
    )
    hub = Hub()
    hub.set_graph(agent, agent.get_graph())
    config = hub.config()
    qloop.run_until_complete(agent.ainvoke({"messages": [HumanMessage("mail a@b.c")]}, config))
    snapshot = qloop.run_until_complete(agent.aget_state(config))
    assert snapshot.interrupts and snapshot.interrupts[0].value["type"] == "tool_approval"
    seen: list[list[str]] = []

    def approve(dialog: Any) -> None:
        seen.append(list(dialog.cards[0].buttons))
        dialog.cards[0].buttons["approve"].click()
        dialog.submit_button.click()

    disconnect = dialog_opened.connect(approve)
    try:
        command = qloop.run_until_complete(handle_interrupt(hub, snapshot.interrupts, None))
    finally:
        disconnect()
    assert command.resume == {"type": "approve"}
    out = qloop.run_until_complete(agent.ainvoke(command, config))
    assert sent == ["a@b.c"] and out["messages"][-1].text == "Done."
    assert seen and "approve" in seen[0]
