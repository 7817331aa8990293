"""Spec section 10 on agents: scenarios 11 (agent part), 24, 26 (return_direct) and 28."""

from __future__ import annotations

from typing import Any

from engine import Command, create_agent
from engine.checkpoint import InMemorySaver
from engine.events import EventBase
from engine.messages import HumanMessage, ToolMessage
from engine.middleware.hitl import HumanInTheLoopMiddleware
from engine.middleware.model_retry import ModelRetryMiddleware
from engine.middleware.todo import PARALLEL_WRITE_TODOS_ERROR, TodoListMiddleware
from engine.middleware.tool_retry import ToolRetryMiddleware
from engine.models import ScriptedChatModel
from engine.tools import tool

from .helpers import ai, ask, call, cfg, echo, kinds


def test_11_update_state_as_model_recomputes_next_through_model_to_tools():
    model = ScriptedChatModel(["first", "after tools"])
    agent = create_agent(model, [echo], checkpointer=InMemorySaver())
    agent.invoke(ask(), cfg())
    assert agent.get_state(cfg()).next == ()
    agent.update_state(
        cfg(), {"messages": [ai(call("echo", "u1", text="injected"))]}, as_node="model"
    )
    snap = agent.get_state(cfg())
    assert snap.next == ("tools",)
    assert snap.metadata["source"] == "update"
    out = agent.invoke(None, cfg())
    assert kinds(out["messages"]) == [
        "Human",
        "AI(first)",
        "AI[echo]",
        "Tool(echo:injected)",
        "AI(after tools)",
    ]


def test_interrupt_before_tools_then_continue():
    model = ScriptedChatModel([ai(call("echo", "c1", text="x")), "done"])
    agent = create_agent(model, [echo], checkpointer=InMemorySaver(), interrupt_before=["tools"])
    agent.invoke(ask(), cfg())
    assert agent.get_state(cfg()).next == ("tools",)
    out = agent.invoke(None, cfg())
    assert kinds(out["messages"]) == ["Human", "AI[echo]", "Tool(echo:x)", "AI(done)"]


def test_21_hitl_batch_through_the_agent():
    ran: list[str] = []

    def make(name: str) -> Any:
        @tool(name)
        def act(target: str) -> str:
            """Do something to a target."""
            ran.append(f"{name}:{target}")
            return f"{name} {target}"

        return act

    tools = [make("send"), make("safe"), make("delete")]
    model = ScriptedChatModel(
        [
            ai(
                call("send", "s1", target="mail"),
                call("safe", "x1", target="log"),
                call("delete", "d1", target="db"),
            ),
            "done",
        ]
    )
    hitl = HumanInTheLoopMiddleware(
        {"send": True, "safe": False, "delete": {"allowed_decisions": ["approve", "reject"]}}
    )
    agent = create_agent(model, tools, middleware=[hitl], checkpointer=InMemorySaver())
    first = agent.invoke(ask(), cfg())
    (pending,) = first["__interrupt__"]
    assert [r["name"] for r in pending.value["action_requests"]] == ["send", "delete"]
    decisions = [
        {"type": "edit", "edited_action": {"name": "send", "args": {"target": "draft"}}},
        {"type": "reject", "message": "never"},
    ]
    out = agent.invoke(Command(resume={"decisions": decisions}), cfg())
    assert ran == ["send:draft", "safe:log"]
    msgs = out["messages"]
    assert kinds(msgs[:3]) == [
        "Human",
        "AI[send,safe,delete]",
        "Tool(User rejected the tool call for `delete` with reason: never)",
    ]
    assert kinds(msgs[4:]) == ["Tool(safe log)", "AI(done)"]
    # the edited call ran with the reviewer's args; its result says so, the AIMessage does not
    assert msgs[3].content.endswith(
        'with arguments {"target": "draft"}.\n\nTool response:\nsend draft'
    )
    assert msgs[1].tool_calls[0]["args"] == {"target": "mail"}


def test_24_write_todos_sets_todos_and_parallel_calls_are_rejected():
    todos = [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "pending"}]
    model = ScriptedChatModel(
        [
            ai(call("write_todos", "t1", todos=todos)),
            ai(call("write_todos", "t2", todos=todos), call("write_todos", "t3", todos=[])),
            "done",
        ]
    )
    out = create_agent(model, middleware=[TodoListMiddleware()]).invoke(ask())
    assert out["todos"] == todos
    msgs = out["messages"]
    assert msgs[2].text == f"Updated todo list to {todos}"
    errors = [
        (m.tool_call_id, m.status, m.text)
        for m in msgs
        if isinstance(m, ToolMessage) and m.status == "error"
    ]
    assert errors == [
        ("t2", "error", PARALLEL_WRITE_TODOS_ERROR),
        ("t3", "error", PARALLEL_WRITE_TODOS_ERROR),
    ]
    assert msgs[-1].text == "done"


def test_26_return_direct_batch_ends_after_tools():
    @tool(return_direct=True)
    def lookup(key: str) -> str:
        """Look up a value and hand it straight to the user."""
        return f"value:{key}"

    model = ScriptedChatModel([ai(call("lookup", "r1", key="a"), call("lookup", "r2", key="b"))])
    agent = create_agent(model, [lookup], checkpointer=InMemorySaver())
    out = agent.invoke(ask(), cfg())
    assert kinds(out["messages"]) == [
        "Human",
        "AI[lookup,lookup]",
        "Tool(value:a)",
        "Tool(value:b)",
    ]
    assert len(model.calls) == 1
    assert len(list(agent.get_state_history(cfg()))) == 4  # input, start, model, tools


def test_28_seed_000_end_to_end():
    plan = [
        {"content": "create login.tsx", "status": "in_progress"},
        {"content": "create register.tsx", "status": "pending"},
    ]
    calls = {"create_file": 0}

    @tool
    def create_file(path: str) -> str:
        """Create a file."""
        calls["create_file"] += 1
        if calls["create_file"] == 1:
            raise OSError("Disk full")
        return f"created {path}"

    model = ScriptedChatModel(
        [
            TimeoutError("model timed out"),
            ai(call("write_todos", "w1", todos=plan)),
            ai(call("create_file", "f1", path="login.tsx")),
            ai(call("create_file", "f2", path="register.tsx")),
            "I have created login.tsx and register.tsx",
        ]
    )
    agent = create_agent(
        model,
        [create_file],
        middleware=[
            ModelRetryMiddleware(
                max_retries=2,
                retry_on=(TimeoutError,),
                on_failure="continue",
                initial_delay=0,
                jitter=False,
            ),
            ToolRetryMiddleware(
                max_retries=1,
                retry_on=(OSError,),
                on_failure="continue",
                initial_delay=0,
                jitter=False,
            ),
            TodoListMiddleware(),
        ],
        checkpointer=InMemorySaver(),
    )
    events: list[EventBase] = []
    agent.subscribe(events.append)
    out = agent.invoke(
        {"messages": [HumanMessage(content="帮我创建 login.tsx 和 register.tsx 两个文件")]}, cfg()
    )
    assert kinds(out["messages"]) == [
        "Human",
        "AI[write_todos]",
        f"Tool(Updated todo list to {plan})",
        "AI[create_file]",
        "Tool(created login.tsx)",
        "AI[create_file]",
        "Tool(created register.tsx)",
        "AI(I have created login.tsx and register.tsx)",
    ]
    assert out["todos"] == plan
    assert (len(model.calls), calls["create_file"]) == (5, 3)
    history = list(agent.get_state_history(cfg()))
    assert len(history) == 13
    # each checkpoint adds at most one message; retries never show up in the state
    lengths = [len(s.values.get("messages", [])) for s in reversed(history)]
    assert lengths == [0, 1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 8, 8]
    # the failed attempts happened inside a single model / tools task each
    failed = [
        e for e in events if e.kind in ("model.response", "tool.finished") and e.error is not None
    ]
    assert [(e.kind, e.error.type) for e in failed] == [
        ("model.response", "TimeoutError"),
        ("tool.finished", "OSError"),
    ]  # type: ignore[attr-defined]
