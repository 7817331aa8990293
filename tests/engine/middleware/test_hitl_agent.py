"""HITL through create_agent: scenario 21, every decision, SQLite resume in a new process,
and the composition [HITL, ToolRetry, TodoList]."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from engine.agents import create_agent
from engine.checkpoint import InMemorySaver, SqliteSaver
from engine.events import EventBase
from engine.messages import AIMessage, HumanMessage, ToolMessage
from engine.middleware.builtins import (
    HumanInTheLoopMiddleware,
    TodoListMiddleware,
    ToolRetryMiddleware,
)
from engine.middleware.hitl_edits import DEFAULT_EDIT_NOTICE
from engine.models import ScriptedChatModel
from engine.tools import tool
from engine.types import Command
from tests.engine.middleware import hitl_agent
from tests.engine.middleware.helpers import actions

REPO = Path(__file__).resolve().parents[3]


def cfg(thread: str = "t") -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def shape(messages: list) -> list[tuple[str, str | None, str | None]]:
    """(type, tool_call_id, status) of each message."""
    return [
        (m.type, getattr(m, "tool_call_id", None), getattr(m, "status", None)) for m in messages
    ]


def test_scenario_21_edit_and_reject() -> None:
    agent = hitl_agent.build(InMemorySaver())
    out = agent.invoke({"messages": [HumanMessage(content=hitl_agent.REQUEST)]}, cfg())
    (intr,) = out["__interrupt__"]
    assert [a["name"] for a in intr.value["action_requests"]] == ["send_email", "delete_file"]
    assert [r["allowed_decisions"] for r in intr.value["review_configs"]] == [
        ["approve", "edit", "reject", "respond"],
        ["approve", "reject"],
    ]
    snap = agent.get_state(cfg())
    assert snap.interrupts[0].id == intr.id and snap.interrupts[0].value == intr.value
    ai_id = snap.values["messages"][1].id
    events: list[EventBase] = []
    decisions = [
        {
            "type": "edit",
            "edited_action": {
                "name": "send_email",
                "args": {"to": "alice@example.com", "body": "hello"},
            },
        },
        {"type": "reject", "message": "keep it"},
    ]
    with agent.subscribe(events.append):
        final = agent.invoke(Command(resume={"decisions": decisions}), cfg())
    msgs = final["messages"]
    # the transcript keeps the model's call; the reviewer's call is what ran
    assert msgs[1].id == ai_id and msgs[1].tool_calls[0]["args"] == {
        "to": "bob@example.com",
        "body": "hi",
    }
    # the reject message comes first, then the executed results (in call order)
    assert shape(msgs)[2:] == [
        ("tool", "c-delete", "error"),
        ("tool", "c-send", "success"),
        ("tool", "c-safe", "success"),
        ("ai", None, None),
    ]
    assert msgs[2].content == "User rejected the tool call for `delete_file` with reason: keep it"
    assert msgs[3].content.endswith("\n\nTool response:\nsent to alice@example.com: hello")
    assert msgs[3].content.startswith(DEFAULT_EDIT_NOTICE)
    assert (
        'Executed instead: send_email with arguments {"to": "alice@example.com", "body": "hello"}.'
        in msgs[3].content
    )
    assert [a.detail["decision"] for a in actions(events, "hitl_decision")] == ["edit", "reject"]
    assert agent.get_state(cfg()).next == ()


@pytest.mark.parametrize(
    ("decisions", "expected"),
    [
        (
            [{"type": "approve"}, {"type": "approve"}],
            [
                ("c-send", "success", "sent to bob@example.com: hi"),
                ("c-safe", "success", "a.txt b.txt"),
                ("c-delete", "success", "deleted /tmp/x"),
            ],
        ),
        (
            [{"type": "respond", "message": "bob is away"}, {"type": "reject"}],
            [
                ("c-send", "success", "bob is away"),
                (
                    "c-delete",
                    "error",
                    "User rejected the tool call for `delete_file` with id c-delete. The tool was not executed. Do not retry this tool call unless the user explicitly requests it.",
                ),
                ("c-safe", "success", "a.txt b.txt"),
            ],
        ),
    ],
)
async def test_every_decision_async(decisions: list[dict], expected: list[tuple]) -> None:
    agent = hitl_agent.build(InMemorySaver())
    out = await agent.ainvoke({"messages": [HumanMessage(content=hitl_agent.REQUEST)]}, cfg())
    assert "__interrupt__" in out
    final = await agent.ainvoke(Command(resume={"decisions": decisions}), cfg())
    tools = [
        (m.tool_call_id, m.status, m.content)
        for m in final["messages"]
        if isinstance(m, ToolMessage)
    ]
    assert tools == expected


def test_mismatched_resume_raises_and_is_kept_as_langchain_keeps_it() -> None:
    # LangChain 1.x on LangGraph: the decisions the middleware took are saved with its task, so
    # a later resume (or invoke(None)) reruns it with them and fails the same way
    agent = hitl_agent.build(InMemorySaver())
    agent.invoke({"messages": [HumanMessage(content=hitl_agent.REQUEST)]}, cfg())
    mismatch = "Number of human decisions (1) does not match number of hanging tool calls (2)."
    with pytest.raises(ValueError) as info:
        agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}), cfg())
    assert str(info.value) == mismatch
    retry = {"decisions": [{"type": "approve"}, {"type": "approve"}]}
    for again in (Command(resume=retry), None):
        with pytest.raises(ValueError) as info:
            agent.invoke(again, cfg())
        assert str(info.value) == mismatch
    assert agent.get_state(cfg()).next == ("HumanInTheLoopMiddleware.after_model",)


RESUME_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from engine.checkpoint import SqliteSaver
    from engine.types import Command
    from tests.engine.middleware import hitl_agent

    path, plan = sys.argv[1], json.loads(sys.argv[2])
    agent = hitl_agent.build(SqliteSaver(path))
    report = {}
    for thread, decisions in plan.items():
        config = {"configurable": {"thread_id": thread}}
        pending = [{"id": i.id, "names": [a["name"] for a in i.value["action_requests"]]}
                   for i in agent.get_state(config).interrupts]
        final = agent.invoke(Command(resume={"decisions": decisions}), config)
        report[thread] = {
            "pending": pending,
            "next": list(agent.get_state(config).next),
            "messages": [{"type": m.type, "id": m.id, "content": m.content,
                          "tool_call_id": getattr(m, "tool_call_id", None), "status": getattr(m, "status", None),
                          "tool_calls": getattr(m, "tool_calls", None)} for m in final["messages"]],
        }
    print(json.dumps(report))
    """
)

PLAN = {
    "approve": [{"type": "approve"}, {"type": "approve"}],
    "edit": [
        {
            "type": "edit",
            "edited_action": {"name": "send_email", "args": {"to": "z@x.io", "body": "yo"}},
        },
        {"type": "approve"},
    ],
    "reject": [{"type": "reject", "message": "no mail"}, {"type": "reject"}],
    "respond": [{"type": "respond", "message": "already sent"}, {"type": "approve"}],
}


def test_resume_every_decision_from_sqlite_in_a_new_process(tmp_path: Path) -> None:
    path = tmp_path / "agent.stepwise"
    saver = SqliteSaver(path)
    agent = hitl_agent.build(saver)
    ids = {}
    for thread in PLAN:
        out = agent.invoke({"messages": [HumanMessage(content=hitl_agent.REQUEST)]}, cfg(thread))
        ids[thread] = out["__interrupt__"][0].id
    saver.close()
    proc = subprocess.run(
        [sys.executable, "-c", RESUME_SCRIPT, str(path), json.dumps(PLAN)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    for thread, result in report.items():
        assert result["pending"] == [{"id": ids[thread], "names": ["send_email", "delete_file"]}]
        assert result["next"] == []
        assert result["messages"][-1]["type"] == "ai"
    tools = {
        t: {
            m["tool_call_id"]: (m["status"], m["content"])
            for m in r["messages"]
            if m["type"] == "tool"
        }
        for t, r in report.items()
    }
    assert tools["approve"]["c-send"] == ("success", "sent to bob@example.com: hi")
    assert tools["approve"]["c-delete"] == ("success", "deleted /tmp/x")
    status, content = tools["edit"]["c-send"]
    assert status == "success" and content.endswith("Tool response:\nsent to z@x.io: yo")
    edited_ai = report["edit"]["messages"][1]
    assert edited_ai["tool_calls"][0]["args"] == {"to": "bob@example.com", "body": "hi"}
    assert tools["reject"]["c-send"] == (
        "error",
        "User rejected the tool call for `send_email` with reason: no mail",
    )
    assert tools["reject"]["c-delete"][0] == "error"
    assert tools["reject"]["c-safe"] == ("success", "a.txt b.txt")
    assert tools["respond"]["c-send"] == ("success", "already sent")
    # the model saw every outcome
    assert (
        report["reject"]["messages"][-1]["content"]
        == "results: c-send=error, c-delete=error, c-safe=success"
    )


# -- composition: [HITL, ToolRetry, TodoList] ---------------------------------------------------


def composed_agent(flaky: dict[str, int]) -> tuple[Any, ScriptedChatModel]:
    @tool
    def create_file(path: str) -> str:
        """Create a file."""
        if flaky.get(path, 0) > 0:
            flaky[path] -= 1
            raise OSError("Disk full")
        return f"created {path}"

    todos = [{"content": "create a.txt", "status": "in_progress"}]
    model = ScriptedChatModel(
        [
            AIMessage(
                content="",
                tool_calls=[{"name": "write_todos", "args": {"todos": todos}, "id": "w1"}],
            ),
            AIMessage(
                content="",
                tool_calls=[{"name": "create_file", "args": {"path": "a.txt"}, "id": "f1"}],
            ),
            "all done",
        ]
    )
    agent = create_agent(
        model,
        [create_file],
        middleware=[
            HumanInTheLoopMiddleware({"create_file": {"allowed_decisions": ["approve", "reject"]}}),
            ToolRetryMiddleware(max_retries=1, retry_on=(OSError,), initial_delay=0.001),
            TodoListMiddleware(),
        ],
        checkpointer=InMemorySaver(),
    )
    return agent, model


def test_composition_hitl_tool_retry_todo_list() -> None:
    agent, model = composed_agent({"a.txt": 1})
    events: list[EventBase] = []
    with agent.subscribe(events.append):
        out = agent.invoke({"messages": [HumanMessage(content="make a.txt")]}, cfg())
        assert out["todos"] == [
            {"content": "create a.txt", "status": "in_progress"}
        ]  # write_todos was not gated
        (intr,) = out["__interrupt__"]
        assert [a["name"] for a in intr.value["action_requests"]] == ["create_file"]
        final = agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}), cfg())
    assert [m.text for m in final["messages"] if isinstance(m, ToolMessage)][-1] == "created a.txt"
    assert final["messages"][-1].text == "all done"
    tool_attempts = [
        (e.attempt, e.outcome)
        for e in events
        if e.kind == "attempt.finished" and e.tool == "create_file"
    ]  # type: ignore[attr-defined]
    assert tool_attempts == [(1, "error"), (2, "ok")]
    assert [a.detail["decision"] for a in actions(events, "hitl_decision")] == ["approve"]
    assert len(model.calls) == 3
    assert all("## `write_todos`" in (c.messages[0].text or "") for c in model.calls)


async def test_composition_reject_skips_the_tool_and_its_retries() -> None:
    flaky = {"a.txt": 5}
    agent, _ = composed_agent(flaky)
    await agent.ainvoke({"messages": [HumanMessage(content="make a.txt")]}, cfg())
    final = await agent.ainvoke(
        Command(resume={"decisions": [{"type": "reject", "message": "not now"}]}), cfg()
    )
    last_tool = [m for m in final["messages"] if isinstance(m, ToolMessage)][-1]
    assert (last_tool.status, last_tool.content) == (
        "error",
        "User rejected the tool call for `create_file` with reason: not now",
    )
    assert final["messages"][-1].text == "all done"
    assert flaky == {"a.txt": 5}  # never run, so never retried


def _edit_then_approve(agent: Any, thread: str, edited: dict[str, Any]) -> dict[str, Any]:
    agent.invoke({"messages": [HumanMessage(content=hitl_agent.REQUEST)]}, cfg(thread))
    decisions = [{"type": "edit", "edited_action": edited}, {"type": "approve"}]
    return agent.invoke(Command(resume={"decisions": decisions}), cfg(thread))


def test_an_edit_may_redirect_the_call_to_another_tool() -> None:
    agent = hitl_agent.build(InMemorySaver())
    final = _edit_then_approve(agent, "redirect", {"name": "delete_file", "args": {"path": "/y"}})
    msgs = final["messages"]
    assert msgs[1].tool_calls[0]["name"] == "send_email"  # the model's call, as it asked
    sent = next(m for m in msgs if isinstance(m, ToolMessage) and m.tool_call_id == "c-send")
    assert sent.content.endswith("deleted /y")
    assert "Executed instead: delete_file" in sent.content


def test_an_edit_to_an_unknown_tool_fails_loudly() -> None:
    agent = hitl_agent.build(InMemorySaver())
    with pytest.raises(ValueError, match="'nope', which is not an available tool"):
        _edit_then_approve(agent, "unknown", {"name": "nope", "args": {}})


def test_edit_notice_can_be_changed_or_switched_off() -> None:
    custom = hitl_agent.build(InMemorySaver(), edit_notice="Changed by ops.")
    final = _edit_then_approve(
        custom, "n1", {"name": "send_email", "args": {"to": "q", "body": "b"}}
    )
    sent = next(m for m in final["messages"] if getattr(m, "tool_call_id", None) == "c-send")
    assert sent.content == (
        'Changed by ops. Executed instead: send_email with arguments {"to": "q", "body": "b"}.'
        "\n\nTool response:\nsent to q: b"
    )
    silent = hitl_agent.build(InMemorySaver(), edit_notice=None)
    final = _edit_then_approve(
        silent, "n2", {"name": "send_email", "args": {"to": "q", "body": "b"}}
    )
    sent = next(m for m in final["messages"] if getattr(m, "tool_call_id", None) == "c-send")
    assert sent.content == "sent to q: b"


def test_rewrite_edited_calls_option_edits_the_transcript_instead() -> None:
    """Stepwise's option: the edited call replaces the model's call in its AIMessage."""
    agent = hitl_agent.build(InMemorySaver(), rewrite_edited_calls=True)
    final = _edit_then_approve(
        agent, "rw", {"name": "send_email", "args": {"to": "q", "body": "b"}}
    )
    msgs = final["messages"]
    assert msgs[1].tool_calls[0]["args"] == {"to": "q", "body": "b"}
    sent = next(m for m in msgs if getattr(m, "tool_call_id", None) == "c-send")
    assert sent.content == "sent to q: b"  # the transcript already shows what ran: no notice


def test_return_direct_follows_the_tool_that_ran_after_an_edit() -> None:
    @tool(return_direct=True)
    def final_answer(text: str) -> str:
        """Answer and stop."""
        return f"final: {text}"

    @tool
    def note(text: str) -> str:
        """Take a note."""
        return f"noted: {text}"

    call = {"name": "note", "args": {"text": "a"}, "id": "n1"}
    model = ScriptedChatModel([AIMessage(content="", tool_calls=[call]), "more"] * 2)
    agent = create_agent(
        model,
        [final_answer, note],
        middleware=[HumanInTheLoopMiddleware({"note": True})],
        checkpointer=InMemorySaver(),
    )
    agent.invoke({"messages": [HumanMessage(content="go")]}, cfg("rd"))
    edit = {"type": "edit", "edited_action": {"name": "final_answer", "args": {"text": "b"}}}
    final = agent.invoke(Command(resume={"decisions": [edit]}), cfg("rd"))
    assert isinstance(final["messages"][-1], ToolMessage)  # ended on the return_direct tool
    assert final["messages"][-1].content.endswith("final: b")
