"""Seed 000 end to end (spec scenario 28) through create_agent, on the default demo scenario."""

from __future__ import annotations

from typing import Any

import pytest

from engine.checkpoint import InMemorySaver
from engine.events import EventBase
from engine.messages import AIMessage, HumanMessage, ToolMessage
from engine.middleware import retry_policy
from resources.scenarios import retry_todos
from resources.scenarios.retry_todos import INPUT, TODOS, Workspace, build_agent

FAST = 0.001


def cfg(thread: str = "seed-000") -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def kinds(messages: list) -> list[str]:
    out = []
    for m in messages:
        if isinstance(m, AIMessage):
            out.append(
                "AI(" + ",".join(c["name"] for c in m.tool_calls) + ")" if m.tool_calls else "AI"
            )
        else:
            out.append(type(m).__name__.removesuffix("Message"))
    return out


EXPECTED = [
    "Human",
    "AI(write_todos)",
    "Tool",
    "AI(create_file)",
    "Tool",
    "AI(create_file)",
    "Tool",
    "AI",
]


def check_final(agent: Any, out: dict[str, Any], workspace: Workspace) -> None:
    msgs = out["messages"]
    assert kinds(msgs) == EXPECTED
    assert msgs[0].content == INPUT
    assert msgs[2].content == f"Updated todo list to {TODOS}"
    assert msgs[3].tool_calls[0]["args"]["path"] == "login.tsx"
    assert (msgs[4].content, msgs[4].status) == ("created login.tsx", "success")
    assert msgs[5].tool_calls[0]["args"]["path"] == "register.tsx"
    assert msgs[6].content == "created register.tsx"
    assert msgs[7].content == retry_todos.ANSWER and not msgs[7].tool_calls
    assert out["todos"] == retry_todos.FINAL_TODOS
    assert workspace.attempts == ["login.tsx", "login.tsx", "register.tsx"]
    assert set(workspace.files) == {"login.tsx", "register.tsx"}
    history = list(agent.get_state_history(cfg()))
    assert len(history) == 13
    # seed 000's state_4: login.tsx's todo is completed with its file, register.tsx's still pending
    after_login = [s for s in history if len(s.values.get("messages", [])) == 5]
    assert after_login[-1].values["todos"] == [
        {"content": "创建 login.tsx", "status": "completed"},
        {"content": "创建 register.tsx", "status": "pending"},
    ]
    assert [(s.metadata["source"], s.metadata["step"]) for s in history][-2:] == [
        ("loop", 0),
        ("input", -1),
    ]


def retry_events(events: list[EventBase], middleware: str) -> list[tuple]:
    return [
        (e.kind, e.attempt, getattr(e, "outcome", None), getattr(e, "will_retry", None))
        for e in events
        if e.kind.startswith("attempt.") and e.middleware == middleware  # type: ignore[attr-defined]
    ]


def test_seed_000_sync_retries_both_and_keeps_state_while_retrying() -> None:
    workspace = Workspace()
    agent = build_agent(initial_delay=FAST, workspace=workspace)
    seen: list[int] = []

    class Spy(list):
        """Each create_file attempt reads the live state: a failed attempt must not change it."""

        def append(self, path: str) -> None:
            seen.append(len(agent.get_state(cfg()).values["messages"]))
            super().append(path)

    workspace.attempts = Spy()
    events: list[EventBase] = []
    with agent.subscribe(events.append):
        out = agent.invoke({"messages": [HumanMessage(content=INPUT)]}, cfg())
    check_final(agent, out, workspace)
    assert seen == [4, 4, 6]  # both login.tsx attempts saw state_3
    model = retry_events(events, "ModelRetryMiddleware")
    assert model[:4] == [
        ("attempt.started", 1, None, None),
        ("attempt.finished", 1, "error", True),
        ("attempt.started", 2, None, None),
        ("attempt.finished", 2, "ok", False),
    ]
    assert len(model) == 2 + 2 * 4  # then one attempt for each of the four later model calls
    tool = retry_events(events, "ToolRetryMiddleware")
    assert tool[2:6] == [
        ("attempt.started", 1, None, None),
        ("attempt.finished", 1, "error", True),
        ("attempt.started", 2, None, None),
        ("attempt.finished", 2, "ok", False),
    ]
    failed = [e for e in events if e.kind == "attempt.finished" and e.outcome == "error"]  # type: ignore[attr-defined]
    assert [(e.error.type, e.error.message) for e in failed] == [  # type: ignore[attr-defined]
        ("TimeoutError", "model call timed out"),
        ("OSError", "Disk full"),
    ]
    # nothing is written to the state between a failed attempt and the retry
    for f in failed:
        after = events[events.index(f) + 1 :]
        retry = next(
            e for e in after if e.kind == "attempt.started" and e.middleware == f.middleware
        )  # type: ignore[attr-defined]
        between = events[events.index(f) : events.index(retry)]
        assert not [e for e in between if e.kind in ("state.updated", "checkpoint.saved")]


async def test_seed_000_async() -> None:
    workspace = Workspace()
    agent = build_agent(initial_delay=FAST, workspace=workspace)
    out = await agent.ainvoke({"messages": [HumanMessage(content=INPUT)]}, cfg())
    check_final(agent, out, workspace)


def test_demo_module_defines_the_agent_with_visible_delays() -> None:
    assert (retry_todos.__doc__ or "").splitlines()[0].endswith("hits a full disk once.")
    graph = retry_todos.agent
    assert {"model", "tools", "TodoListMiddleware.after_model"} <= set(graph.builder.nodes)


def test_demo_defaults_sleep_about_half_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(retry_policy, "sleep_sync", slept.append)  # record instead of sleeping
    events: list[EventBase] = []
    agent = build_agent()
    with agent.subscribe(events.append):
        agent.invoke({"messages": [HumanMessage(content=INPUT)]}, cfg())
    assert len(slept) == 2 and all(0.375 <= s <= 0.625 for s in slept)
    delays = [e.delay_s for e in events if e.kind == "attempt.finished" and e.will_retry]  # type: ignore[attr-defined]
    assert delays == slept


def test_model_failure_continue_adds_the_failure_message() -> None:
    agent = build_agent(initial_delay=FAST, model_timeouts=3)
    out = agent.invoke({"messages": [HumanMessage(content=INPUT)]}, cfg())
    assert kinds(out["messages"]) == ["Human", "AI"]
    assert (
        out["messages"][1].content
        == "Model call failed after 3 attempts with TimeoutError: model call timed out"
    )
    assert "todos" not in out


def test_tool_failure_continue_adds_the_failure_tool_message() -> None:
    workspace = Workspace(disk_full=2)
    agent = build_agent(initial_delay=FAST, workspace=workspace)
    out = agent.invoke({"messages": [HumanMessage(content=INPUT)]}, cfg())
    msgs = out["messages"]
    assert kinds(msgs) == ["Human", "AI(write_todos)", "Tool", "AI(create_file)", "Tool", "AI"]
    failure = msgs[4]
    assert isinstance(failure, ToolMessage) and failure.status == "error"
    assert (
        failure.content
        == "Tool 'create_file' failed after 2 attempts with OSError: Disk full. Please try again."
    )
    assert workspace.attempts == ["login.tsx", "login.tsx"]
    assert msgs[5].content.startswith("创建文件失败")


def test_tool_failure_error_stops_with_state_at_the_last_successful_step() -> None:
    agent = build_agent(initial_delay=FAST, disk_full=2, tool_on_failure="error")
    with pytest.raises(OSError, match="Disk full"):
        agent.invoke({"messages": [HumanMessage(content=INPUT)]}, cfg())
    snap = agent.get_state(cfg())
    assert kinds(snap.values["messages"]) == ["Human", "AI(write_todos)", "Tool", "AI(create_file)"]
    assert snap.values["todos"] == TODOS
    assert snap.next == ("tools",)


def test_model_failure_error_stops_before_any_answer() -> None:
    saver = InMemorySaver()
    agent = build_agent(
        initial_delay=FAST, model_timeouts=3, model_on_failure="error", checkpointer=saver
    )
    with pytest.raises(TimeoutError):
        agent.invoke({"messages": [HumanMessage(content=INPUT)]}, cfg())
    snap = agent.get_state(cfg())
    assert kinds(snap.values["messages"]) == ["Human"]
    assert snap.next == ("model",)
