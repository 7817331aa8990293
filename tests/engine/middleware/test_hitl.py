"""HumanInTheLoopMiddleware: payload, decisions, exact errors, real interrupts (scenario 21)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from engine.checkpoint import InMemorySaver, SqliteSaver
from engine.messages import AIMessage, HumanMessage, ToolMessage
from engine.middleware import hitl
from engine.middleware.hitl import HumanInTheLoopMiddleware
from engine.types import Command
from tests.engine.middleware import hitl_graph
from tests.engine.middleware.helpers import actions, captured_events

REPO = Path(__file__).resolve().parents[3]


def cfg(thread: str = "t") -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def decide(monkeypatch: pytest.MonkeyPatch, resume: Any) -> list[Any]:
    """Make ``interrupt()`` answer ``resume``; returns the payloads it was asked with."""
    asked: list[Any] = []

    def fake_interrupt(value: Any) -> Any:
        asked.append(value)
        return resume

    monkeypatch.setattr(hitl, "interrupt", fake_interrupt)
    return asked


def test_config_normalisation_and_validation() -> None:
    mw = HumanInTheLoopMiddleware({"a": True, "b": False, "c": {"allowed_decisions": ["approve"]}})
    assert set(mw.interrupt_on) == {"a", "c"}
    assert mw.interrupt_on["a"]["allowed_decisions"] == ["approve", "edit", "reject", "respond"]
    assert mw.interrupt_mode == "batched"
    with pytest.raises(ValueError, match="unknown decision type"):
        HumanInTheLoopMiddleware({"a": {"allowed_decisions": ["maybe"]}})
    # a config without decisions would silently switch the gate off: refused, naming the tool
    for bad in ({}, {"allowed_decisions": []}, {"allowed_decison": ["approve"]}, "yes"):
        with pytest.raises(ValueError, match="config for tool 'a'"):
            HumanInTheLoopMiddleware({"a": bad})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="must be 'batched' or 'per_call', got 'often'"):
        HumanInTheLoopMiddleware({"a": True}, interrupt_mode="often")  # type: ignore[arg-type]


def test_scenario_21_payload_lists_gated_calls_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = decide(monkeypatch, {"decisions": [{"type": "approve"}, {"type": "approve"}]})
    mw = HumanInTheLoopMiddleware(hitl_graph.INTERRUPT_ON)
    state = hitl_graph.first_turn()
    update = mw.after_model(state, None)  # type: ignore[arg-type]
    # approvals keep the AIMessage as it is and clear any earlier turn's edits
    assert update == {"messages": [state["messages"][1]], "hitl_edited_tool_calls": {}}
    assert asked == [
        {
            "action_requests": [
                {
                    "name": "send_email",
                    "args": {"to": "bob@example.com", "body": "hi"},
                    "description": "Tool execution requires approval\n\nTool: send_email\n"
                    "Args: {'to': 'bob@example.com', 'body': 'hi'}",
                },
                {
                    "name": "delete_file",
                    "args": {"path": "/tmp/x"},
                    "description": "Tool execution requires approval\n\nTool: delete_file\nArgs: {'path': '/tmp/x'}",
                },
            ],
            "review_configs": [
                {
                    "action_name": "send_email",
                    "allowed_decisions": ["approve", "edit", "reject", "respond"],
                },
                {"action_name": "delete_file", "allowed_decisions": ["approve", "reject"]},
            ],
        }
    ]


def test_custom_descriptions(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = decide(monkeypatch, {"decisions": [{"type": "approve"}, {"type": "approve"}]})
    mw = HumanInTheLoopMiddleware(
        {
            "send_email": {
                "allowed_decisions": ["approve"],
                "description": "Mail goes out",
                "args_schema": {"type": "object"},
            },
            "delete_file": {
                "allowed_decisions": ["approve"],
                "description": lambda call, state, rt: f"rm {call['args']['path']}",
            },
        },
        description_prefix="unused",
    )
    mw.after_model(hitl_graph.first_turn(), None)  # type: ignore[arg-type]
    payload = asked[0]
    assert [a["description"] for a in payload["action_requests"]] == ["Mail goes out", "rm /tmp/x"]
    assert payload["review_configs"][0]["args_schema"] == {"type": "object"}
    prefixed = HumanInTheLoopMiddleware({"send_email": True}, description_prefix="Check this")
    req = prefixed.build_request([{"name": "send_email", "args": {}, "id": "x"}], {}, None)
    assert req["action_requests"][0]["description"] == "Check this\n\nTool: send_email\nArgs: {}"


def test_edit_and_reject(monkeypatch: pytest.MonkeyPatch) -> None:
    decide(
        monkeypatch,
        {
            "decisions": [
                {
                    "type": "edit",
                    "edited_action": {
                        "name": "send_email",
                        "args": {"to": "alice@example.com", "body": "hi"},
                    },
                },
                {"type": "reject", "message": "never delete"},
            ]
        },
    )
    mw = HumanInTheLoopMiddleware(hitl_graph.INTERRUPT_ON)
    state = hitl_graph.first_turn()
    with captured_events() as events:
        update = mw.after_model(state, None)  # type: ignore[arg-type]
    assert update is not None
    ai, rejected = update["messages"]
    assert isinstance(ai, AIMessage) and ai.id == hitl_graph.AI_ID
    # the model's own call stays in the transcript; the edit waits in state for the tools node
    assert ai.tool_calls[0]["args"] == {"to": "bob@example.com", "body": "hi"}
    assert update["hitl_edited_tool_calls"] == {
        "c-send": {"name": "send_email", "args": {"to": "alice@example.com", "body": "hi"}}
    }
    assert isinstance(rejected, ToolMessage)
    assert (rejected.tool_call_id, rejected.status, rejected.name) == (
        "c-delete",
        "error",
        "delete_file",
    )
    assert (
        rejected.content
        == "User rejected the tool call for `delete_file` with reason: never delete"
    )
    details = [a.detail for a in actions(events, "hitl_decision")]
    assert [(d["tool"], d["tool_call_id"], d["decision"]) for d in details] == [
        ("send_email", "c-send", "edit"),
        ("delete_file", "c-delete", "reject"),
    ]
    assert details[0]["edited_args"] == {"to": "alice@example.com", "body": "hi"}
    assert details[1]["message"] == "never delete"


def test_reject_without_message_and_respond(monkeypatch: pytest.MonkeyPatch) -> None:
    decide(
        monkeypatch,
        {"decisions": [{"type": "respond", "message": "Bob is on holiday"}, {"type": "reject"}]},
    )
    update = HumanInTheLoopMiddleware(hitl_graph.INTERRUPT_ON).after_model(
        hitl_graph.first_turn(), None
    )  # type: ignore[arg-type]
    assert update is not None
    ai, responded, rejected = update["messages"]  # no edit: the AIMessage is left alone
    assert ai is hitl_graph.first_turn()["messages"][1] or ai.id == hitl_graph.AI_ID
    assert (responded.tool_call_id, responded.status, responded.content) == (
        "c-send",
        "success",
        "Bob is on holiday",
    )
    assert rejected.content == (
        "User rejected the tool call for `delete_file` with id c-delete. The tool was not executed. "
        "Do not retry this tool call unless the user explicitly requests it."
    )


def test_count_mismatch_exact_text(monkeypatch: pytest.MonkeyPatch) -> None:
    decide(monkeypatch, {"decisions": [{"type": "approve"}]})
    with pytest.raises(ValueError) as info:
        HumanInTheLoopMiddleware(hitl_graph.INTERRUPT_ON).after_model(hitl_graph.first_turn(), None)  # type: ignore[arg-type]
    assert (
        str(info.value)
        == "Number of human decisions (1) does not match number of hanging tool calls (2)."
    )


def test_disallowed_decision_names_tool_and_allowed_types(monkeypatch: pytest.MonkeyPatch) -> None:
    decide(
        monkeypatch,
        {
            "decisions": [
                {"type": "approve"},
                {"type": "edit", "edited_action": {"name": "delete_file", "args": {}}},
            ]
        },
    )
    with captured_events() as events, pytest.raises(ValueError) as info:
        HumanInTheLoopMiddleware(hitl_graph.INTERRUPT_ON).after_model(hitl_graph.first_turn(), None)  # type: ignore[arg-type]
    text = str(info.value)
    assert "Decision type 'edit' is not allowed for tool 'delete_file'" in text
    assert "Expected one of ['approve', 'reject']" in text
    assert not actions(events)  # nothing is reported for a batch that was refused


@pytest.mark.parametrize(
    ("resume", "match"),
    [
        ("yes", "Resume a human-in-the-loop interrupt"),
        (
            {"decisions": [{"type": "respond"}, {"type": "approve"}]},
            "respond decision needs a 'message'",
        ),
        ({"decisions": [{"type": "edit"}, {"type": "approve"}]}, "needs 'edited_action'"),
    ],
)
def test_malformed_decisions(monkeypatch: pytest.MonkeyPatch, resume: Any, match: str) -> None:
    decide(monkeypatch, resume)
    with pytest.raises(ValueError, match=match):
        HumanInTheLoopMiddleware(hitl_graph.INTERRUPT_ON).after_model(hitl_graph.first_turn(), None)  # type: ignore[arg-type]


def test_a_bare_decision_list_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    decide(monkeypatch, [{"type": "approve"}, {"type": "approve"}])
    update = HumanInTheLoopMiddleware(hitl_graph.INTERRUPT_ON).after_model(
        hitl_graph.first_turn(),
        None,  # type: ignore[arg-type]
    )
    assert update is not None and update["hitl_edited_tool_calls"] == {}


def test_nothing_to_review(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = decide(monkeypatch, {"decisions": []})
    mw = HumanInTheLoopMiddleware(hitl_graph.INTERRUPT_ON)
    assert mw.after_model({"messages": [HumanMessage(content="hi")]}, None) is None  # type: ignore[arg-type]
    safe = AIMessage(content="", tool_calls=[{"name": "list_files", "args": {}, "id": "s"}])
    assert mw.after_model({"messages": [safe]}, None) is None  # type: ignore[arg-type]
    answered = hitl_graph.first_turn()["messages"] + [
        ToolMessage(content="x", tool_call_id="c-send"),
        ToolMessage(content="y", tool_call_id="c-delete"),
    ]
    assert mw.after_model({"messages": answered}, None) is None  # type: ignore[arg-type]
    assert asked == []


def test_interrupt_outside_a_graph_raises() -> None:
    with pytest.raises(RuntimeError, match="inside a node"):
        HumanInTheLoopMiddleware({"send_email": True}).after_model(hitl_graph.first_turn(), None)  # type: ignore[arg-type]


# -- real interrupts through the graph runtime --------------------------------------------------


def test_interrupt_inspect_and_resume_in_one_process() -> None:
    graph = hitl_graph.build(InMemorySaver())
    out = graph.invoke(hitl_graph.first_turn(), cfg())
    (intr,) = out["__interrupt__"]
    snapshot = graph.get_state(cfg())
    assert snapshot.next == ("review",)
    (pending,) = snapshot.interrupts
    assert pending.id == intr.id
    assert [a["name"] for a in pending.value["action_requests"]] == ["send_email", "delete_file"]
    decisions = {
        "decisions": [
            {
                "type": "edit",
                "edited_action": {"name": "send_email", "args": {"to": "carol@example.com"}},
            },
            {"type": "reject"},
        ]
    }
    final = graph.invoke(Command(resume=decisions), cfg())
    msgs = final["messages"]
    assert [m.id for m in msgs[:2]] == ["h1", hitl_graph.AI_ID]
    assert msgs[1].tool_calls[0]["args"] == {"to": "bob@example.com", "body": "hi"}  # the model's
    assert isinstance(msgs[2], ToolMessage) and msgs[2].tool_call_id == "c-delete"
    after = graph.get_state(cfg())
    assert after.next == ()
    assert after.values["hitl_edited_tool_calls"] == {
        "c-send": {"name": "send_email", "args": {"to": "carol@example.com"}}
    }


async def test_async_interrupt_and_resume() -> None:
    mw = HumanInTheLoopMiddleware(hitl_graph.INTERRUPT_ON)
    from engine.graph import END, START, StateGraph
    from engine.middleware.types import AgentState

    g = StateGraph(AgentState)

    async def review(state: Any) -> Any:
        return await mw.aafter_model(state, None)  # type: ignore[arg-type]

    g.add_node("review", review)
    g.add_edge(START, "review")
    g.add_edge("review", END)
    graph = g.compile(checkpointer=InMemorySaver())
    out = await graph.ainvoke(hitl_graph.first_turn(), cfg("a"))
    assert "__interrupt__" in out
    final = await graph.ainvoke(
        Command(
            resume={
                "decisions": [{"type": "respond", "message": "done by hand"}, {"type": "approve"}]
            }
        ),
        cfg("a"),
    )
    assert final["messages"][-1].content == "done by hand"


def test_wrong_resume_surfaces_the_exact_error() -> None:
    graph = hitl_graph.build(InMemorySaver())
    graph.invoke(hitl_graph.first_turn(), cfg())
    with pytest.raises(
        ValueError,
        match=r"Number of human decisions \(3\) does not match number of hanging tool calls \(2\)\.",
    ):
        graph.invoke(Command(resume={"decisions": [{"type": "approve"}] * 3}), cfg())


SUBPROCESS_RESUME = textwrap.dedent(
    """
    import json, sys
    from engine.checkpoint import SqliteSaver
    from engine.types import Command
    from tests.engine.middleware import hitl_graph

    path, decisions = sys.argv[1], json.loads(sys.argv[2])
    graph = hitl_graph.build(SqliteSaver(path))
    config = {"configurable": {"thread_id": "persisted"}}
    snap = graph.get_state(config)
    pending = [{"id": i.id, "value": i.value} for i in snap.interrupts]
    final = graph.invoke(Command(resume={"decisions": decisions}), config)
    print(json.dumps({
        "pending": pending,
        "messages": [
            {"type": m.type, "id": m.id, "content": m.content, "tool_calls": getattr(m, "tool_calls", None),
             "tool_call_id": getattr(m, "tool_call_id", None), "status": getattr(m, "status", None)}
            for m in final["messages"]
        ],
        "next": list(graph.get_state(config).next),
        "edits": graph.get_state(config).values.get("hitl_edited_tool_calls"),
    }))
    """
)


@pytest.mark.parametrize(
    ("decisions", "expected_tail"),
    [
        ([{"type": "approve"}, {"type": "approve"}], []),
        ([{"type": "reject", "message": "no"}, {"type": "approve"}], [("c-send", "error")]),
        (
            [{"type": "respond", "message": "sent manually"}, {"type": "reject"}],
            [("c-send", "success"), ("c-delete", "error")],
        ),
        (
            [
                {"type": "edit", "edited_action": {"name": "send_email", "args": {"to": "z@x.io"}}},
                {"type": "approve"},
            ],
            [],
        ),
    ],
)
def test_resume_from_sqlite_in_a_new_process(
    tmp_path: Path, decisions: list[dict], expected_tail: list[tuple]
) -> None:
    path = tmp_path / "hitl.sqlite"
    saver = SqliteSaver(path)
    graph = hitl_graph.build(saver)
    out = graph.invoke(hitl_graph.first_turn(), {"configurable": {"thread_id": "persisted"}})
    interrupt_id = out["__interrupt__"][0].id
    saver.close()
    proc = subprocess.run(
        [sys.executable, "-c", SUBPROCESS_RESUME, str(path), json.dumps(decisions)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    (pending,) = result["pending"]
    assert pending["id"] == interrupt_id
    assert [a["name"] for a in pending["value"]["action_requests"]] == ["send_email", "delete_file"]
    assert result["next"] == []
    msgs = result["messages"]
    assert [m["id"] for m in msgs[:2]] == ["h1", hitl_graph.AI_ID]
    assert [(m["tool_call_id"], m["status"]) for m in msgs[2:]] == expected_tail
    assert msgs[1]["tool_calls"][0]["args"] == {"to": "bob@example.com", "body": "hi"}
    if decisions[0]["type"] == "edit":  # the reviewer's call is kept for the tools node
        assert result["edits"] == {"c-send": {"name": "send_email", "args": {"to": "z@x.io"}}}
    else:
        assert result["edits"] == {}
