"""Shared helpers of the session tests: one event of every kind, and small graphs."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from engine import END, START, StateGraph, interrupt
from engine.events import EVENT_CLASSES, ErrorInfo, EventBase, PlannedTask

RUN = "01a1ff00-0000-7000-8000-000000000001"

# payload of each kind (fields beyond the envelope), chosen to exercise nested models too
PAYLOADS: dict[str, dict[str, Any]] = {
    "run.started": {
        "graph": "demo",
        "input": {"messages": [{"type": "human", "content": "hi"}]},
        "config": {"thread_id": "t"},
    },
    "run.finished": {"status": "done", "output": {"n": 1}, "duration_ms": 12.5},
    "superstep.started": {
        "tasks": [PlannedTask(node="model", task_id="k1", triggers=["branch:to:model"])]
    },
    "superstep.finished": {"status": "ok", "duration_ms": 3.0},
    "node.started": {"node": "model", "task_id": "k1", "input_summary": "1 message"},
    "node.finished": {"node": "model", "task_id": "k1", "writes": [{"channel": "n", "value": 1}]},
    "hook.started": {
        "middleware": "TodoListMiddleware",
        "hook": "before_model",
        "node": "TodoListMiddleware.before_model",
    },
    "hook.finished": {
        "middleware": "TodoListMiddleware",
        "hook": "before_model",
        "update": {"todos": []},
        "jump_to": "end",
    },
    "wrapper.started": {"middleware": "ModelRetryMiddleware", "wrapper": "wrap_model_call"},
    "wrapper.finished": {
        "middleware": "ModelRetryMiddleware",
        "wrapper": "wrap_model_call",
        "handler_calls": 2,
    },
    "attempt.started": {
        "middleware": "ModelRetryMiddleware",
        "attempt": 1,
        "max_attempts": 3,
        "model": "scripted",
    },
    "attempt.finished": {
        "middleware": "ModelRetryMiddleware",
        "attempt": 1,
        "max_attempts": 3,
        "outcome": "error",
        "error": ErrorInfo(type="TimeoutError", message="model timed out"),
        "will_retry": True,
        "delay_s": 1.0,
    },
    "middleware.action": {
        "middleware": "HumanInTheLoopMiddleware",
        "action": "hitl_decision",
        "detail": {"type": "approve"},
    },
    "model.request": {
        "model": "scripted",
        "messages_count": 2,
        "tools": ["create_file"],
        "request_hash": "abc",
    },
    "model.token": {"model": "scripted", "text": "Hel"},
    "model.response": {
        "model": "scripted",
        "message": {"type": "ai", "content": "Hello"},
        "usage": {"total_tokens": 3},
    },
    "tool.started": {"tool": "create_file", "tool_call_id": "c1", "args": {"path": "login.tsx"}},
    "tool.finished": {
        "tool": "create_file",
        "tool_call_id": "c1",
        "result": {"type": "tool", "content": "created"},
    },
    "route": {
        "from_node": "model",
        "to": ["tools"],
        "reason": "tool_calls",
        "sends": [{"node": "tools", "arg": "c1"}],
    },
    "state.updated": {
        "changes": [{"channel": "n", "op": "set", "value": 2}],
        "versions": {"n": "2.a"},
    },
    "checkpoint.saved": {
        "parent_id": "cp0",
        "source": "loop",
        "next": ["tools"],
        "writer_nodes": ["model"],
    },
    "interrupt.raised": {"interrupt_id": "i1", "value": {"question": "ok?"}, "node": "ask"},
    "interrupt.resumed": {"interrupt_id": "i1", "value": "yes", "node": "ask"},
    "plan.step": {
        "index": 2,
        "name": "read",
        "status": "skipped",
        "code": "SKIP_UPSTREAM_FAILED",
        "depends_on": [1],
    },
    "custom": {"node": "model", "data": {"progress": 0.5}},
    "loop.detected": {
        "loop": "repeated_call",
        "node": "tools",
        "tool": "create_file",
        "args": {"path": "login.tsx"},
        "count": 3,
        "detail": "create_file(login.tsx) called 3 times with the same arguments",
        "seqs": [3, 7, 11],
    },
    "debug.paused": {
        "reason": "breakpoint",
        "breakpoint": "before node tools",
        "at_seq": 5,
        "at_kind": "node.started",
    },
    "debug.resumed": {"command": "step_over"},
    "store.access": {
        "op": "search",
        "namespace": ["users", "u1"],
        "query": "dark",
        "filter": {"theme": "dark"},
        "hits": [{"namespace": ["users", "u1"], "key": "prefs"}],
        "hit_count": 1,
    },
}


def every_kind(run_id: str = RUN, thread_id: str = "t") -> list[EventBase]:
    """One validated event of every kind, run.started first and run.finished last, seq 1..N."""
    kinds = [
        "run.started",
        *[k for k in EVENT_CLASSES if k not in ("run.started", "run.finished")],
        "run.finished",
    ]
    assert set(kinds) == set(EVENT_CLASSES) and set(PAYLOADS) == set(EVENT_CLASSES)
    out = []
    for seq, kind in enumerate(kinds, 1):
        cls = EVENT_CLASSES[kind]
        span = run_id if kind.startswith("run.") else f"s{seq}"
        out.append(
            cls(
                run_id=run_id,
                thread_id=thread_id,
                seq=seq,
                ts=1_700_000_000.0 + seq,
                mono_ns=seq * 1000,
                step=seq // 4,
                span_id=span,
                parent_span_id=None if kind.startswith("run.") else run_id,
                checkpoint_id=f"cp{seq}",
                **PAYLOADS[kind],
            )
        )
    return out


class Log(TypedDict):
    log: Annotated[list, operator.add]


def log_graph(checkpointer: Any = None, name: str = "logs"):
    """START -> a -> ask (interrupts) -> END."""

    def a(state: Log) -> dict:
        return {"log": ["a"]}

    def ask(state: Log) -> dict:
        answer = interrupt({"question": "go on?"})
        return {"log": [f"ask:{answer}"]}

    b = StateGraph(Log)
    b.add_node("a", a)
    b.add_node("ask", ask)
    b.add_edge(START, "a")
    b.add_edge("a", "ask")
    b.add_edge("ask", END)
    return b.compile(checkpointer=checkpointer, name=name)


def cfg(thread: str) -> dict:
    return {"configurable": {"thread_id": thread}}
