"""HumanInTheLoopMiddleware(interrupt_mode="per_call"): one review per gated call, as it runs."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from engine.agents import create_agent
from engine.checkpoint import InMemorySaver
from engine.events import EventBase
from engine.messages import AIMessage, HumanMessage, ToolCall, ToolMessage
from engine.middleware.hitl import HumanInTheLoopMiddleware
from engine.middleware.hitl_per_call import decision_schema
from engine.models import ScriptedChatModel
from engine.tools import tool
from engine.types import Command
from tests.engine.middleware.helpers import actions

ran: list[str] = []


@tool
def post(channel: str) -> str:
    """Post to a channel."""
    ran.append(f"post:{channel}")
    return f"posted to {channel}"


@tool
def wipe(path: str) -> str:
    """Wipe a path."""
    ran.append(f"wipe:{path}")
    return f"wiped {path}"


@tool
def look(path: str) -> str:
    """Look at a path."""
    ran.append(f"look:{path}")
    return f"saw {path}"


def agent() -> Any:
    calls = [
        ToolCall(name="post", args={"channel": "ops"}, id="p1"),
        ToolCall(name="wipe", args={"path": "/tmp"}, id="w1"),
        ToolCall(name="look", args={"path": "/etc"}, id="l1"),
    ]
    model = ScriptedChatModel([AIMessage(content="", tool_calls=calls), "all done"])
    hitl = HumanInTheLoopMiddleware(
        {"post": True, "wipe": {"allowed_decisions": ["approve", "reject"]}},
        interrupt_mode="per_call",
    )
    return create_agent(model, [post, wipe, look], middleware=[hitl], checkpointer=InMemorySaver())


def test_each_gated_call_pauses_on_its_own_and_is_answered_by_id() -> None:
    ran.clear()
    graph, cfg = agent(), {"configurable": {"thread_id": "pc"}}
    first = graph.invoke({"messages": [HumanMessage(content="go")]}, cfg)
    paused = {i.value["name"]: i for i in first["__interrupt__"]}
    assert set(paused) == {"post", "wipe"}
    assert paused["post"].value == {
        "type": "tool_approval",
        "tool_call_id": "p1",
        "name": "post",
        "args": {"channel": "ops"},
        "description": "Tool execution requires approval\n\nTool: post\nArgs: {'channel': 'ops'}",
    }
    assert ran == ["look:/etc"]  # the ungated call did not wait
    edit = {"type": "edit", "edited_action": {"name": "post", "args": {"channel": "dev"}}}
    events: list[EventBase] = []
    with graph.subscribe(events.append):
        graph.invoke(Command(resume={paused["post"].id: edit}), cfg)
        final = graph.invoke(
            Command(resume={paused["wipe"].id: {"type": "reject", "message": "no"}}), cfg
        )
    assert ran == ["look:/etc", "post:dev"]  # nothing ran twice; the rejected call never ran
    results = {m.tool_call_id: m for m in final["messages"] if isinstance(m, ToolMessage)}
    assert results["p1"].content.endswith('{"channel": "dev"}.\n\nTool response:\nposted to dev')
    assert results["w1"].status == "error" and "reason: no" in results["w1"].content
    decisions = [a.detail["decision"] for a in actions(events, "hitl_decision")]
    assert sorted(decisions) == ["edit", "reject"]


def test_the_answer_schema_allows_only_the_tools_decisions() -> None:
    schema = TypeAdapter(decision_schema(["approve", "reject"], "wipe", wipe))
    assert schema.validate_python({"type": "reject"}) == {"type": "reject"}
    with pytest.raises(ValidationError, match="expected tags: 'approve', 'reject'"):
        schema.validate_python({"type": "respond", "message": "x"})
    edit = TypeAdapter(decision_schema(["edit"], "post", post))
    ok = {"type": "edit", "edited_action": {"name": "post", "args": {"channel": "x", "extra": 1}}}
    assert edit.validate_python(ok) == ok  # passed on as sent: the tool validates its args
    with pytest.raises(ValidationError):  # an edit cannot switch tools
        edit.validate_python({"type": "edit", "edited_action": {"name": "wipe", "args": {}}})
    with pytest.raises(ValidationError, match="edited_action"):
        edit.validate_python({"type": "edit"})
    json_schema = edit.json_schema()
    assert json_schema["$defs"]["post"]["properties"]["channel"]["type"] == "string"
