"""Event streams shaped like the engine's, for event-log and transcript tests and the benchmark.

``AgentScript`` writes what ``create_agent`` + middleware emit (run > superstep > node >
wrapper > attempt > model/tool call, routes, state updates with the ``messages`` channel,
checkpoints) with the envelope filled in (``seq``, ``mono_ns``, span ids), built with
``model_construct`` like the engine does.  ``seed000_events`` is the default scenario's story
(a model timeout retried, a disk-full tool error retried); ``synthetic_stream`` repeats
realistic turns up to any number of events.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from engine.events import (
    AttemptFinished,
    AttemptStarted,
    CheckpointSaved,
    ErrorInfo,
    EventBase,
    MiddlewareAction,
    ModelRequest,
    ModelResponse,
    ModelToken,
    NodeFinished,
    NodeStarted,
    PlannedTask,
    Route,
    RunFinished,
    RunStarted,
    StateUpdated,
    SuperstepFinished,
    SuperstepStarted,
    ToolFinished,
    ToolStarted,
    WrapperFinished,
    WrapperStarted,
)

__all__ = ["AgentScript", "make_event", "seed000_events", "synthetic_stream"]


def human(text: str, mid: str) -> dict[str, Any]:
    return {"type": "human", "content": text, "id": mid}


def ai(text: str, mid: str, calls: list[tuple[str, dict[str, Any], str]] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    return {
        "type": "ai",
        "content": text,
        "id": mid,
        "tool_calls": [{"name": n, "args": a, "id": i, "type": "tool_call"} for n, a, i in calls],
    }


def tool_msg(
    content: str, call_id: str, name: str, mid: str, status: str = "success"
) -> dict[str, Any]:
    return {
        "type": "tool",
        "content": content,
        "tool_call_id": call_id,
        "name": name,
        "id": mid,
        "status": status,
    }


_DEFAULTS: dict[type[EventBase], list[tuple[str, Any, Any]]] = {}


def make_event(cls: type[EventBase], **values: Any) -> EventBase:
    """``cls.model_construct(**values)`` without its per-call ``inspect`` of default factories
    (pydantic's ``model_construct`` costs ~100 µs per event with list defaults)."""
    spec = _DEFAULTS.get(cls)
    if spec is None:
        spec = _DEFAULTS[cls] = [
            (name, f.default, f.default_factory) for name, f in cls.model_fields.items()
        ]
    data: dict[str, Any] = {}
    for name, default, factory in spec:
        if name in values:
            data[name] = values[name]
        else:
            data[name] = factory() if factory is not None else default  # type: ignore[call-arg]
    ev = cls.__new__(cls)
    object.__setattr__(ev, "__dict__", data)
    object.__setattr__(ev, "__pydantic_fields_set__", set(values))
    object.__setattr__(ev, "__pydantic_extra__", None)
    object.__setattr__(ev, "__pydantic_private__", None)
    return ev


class AgentScript:
    """Writes one run's events; ``events`` holds them in ``seq`` order."""

    def __init__(self, run_id: str = "run-1", thread_id: str = "t1", step_ms: float = 1.0) -> None:
        self.run_id = run_id
        self.thread_id = thread_id
        self.events: list[EventBase] = []
        self._ids = itertools.count(1)
        self._stack: list[str] = []
        self._ns = 1_000_000_000
        self._step_ns = int(step_ms * 1e6)
        self.step: int | None = None
        self.checkpoint: str | None = None
        self.messages = 0
        self._seq = 0

    def _emit(self, cls: type[EventBase], **fields: Any) -> EventBase:
        self._ns += self._step_ns
        self._seq += 1
        fields.setdefault("parent_span_id", self._stack[-1] if self._stack else None)
        ev = make_event(
            cls,
            run_id=self.run_id,
            thread_id=self.thread_id,
            seq=self._seq,
            ts=self._ns / 1e9,
            mono_ns=self._ns,
            step=self.step,
            checkpoint_id=self.checkpoint,
            ns="",
            **fields,
        )
        self.events.append(ev)
        return ev

    def open(self, cls: type[EventBase], **fields: Any) -> str:
        sid = f"s{next(self._ids)}"
        self._emit(cls, span_id=sid, **fields)
        self._stack.append(sid)
        return sid

    def close(self, cls: type[EventBase], **fields: Any) -> None:
        sid = self._stack.pop()
        self._emit(
            cls, span_id=sid, parent_span_id=self._stack[-1] if self._stack else None, **fields
        )

    def point(self, cls: type[EventBase], **fields: Any) -> None:
        self._emit(cls, **fields)

    # -- building blocks ------------------------------------------------------------------------

    def saved(self, nxt: list[str], source: str = "loop") -> None:
        parent = self.checkpoint
        self.checkpoint = f"cp-{self._seq + 1}"
        self.point(CheckpointSaved, parent_id=parent, source=source, next=nxt, writer_nodes=[])

    def start(self, message: dict[str, Any]) -> None:
        self.open(RunStarted, graph="agent", input={"messages": [message]})
        self.step = -1
        self.saved(["__start__"], source="input")
        self.append_messages([message])

    def finish(self, status: str = "done") -> None:
        self.close(RunFinished, status=status, duration_ms=12.0)

    def append_messages(self, messages: list[dict[str, Any]]) -> None:
        self.messages += len(messages)
        change = {
            "channel": "messages",
            "op": "append",
            "appended": messages,
            "length": self.messages,
        }
        self.point(StateUpdated, changes=[change])

    def superstep(self, node: str) -> None:
        self.step = (self.step or 0) + 1
        self.open(SuperstepStarted, tasks=[PlannedTask(node=node, task_id=f"task-{self.step}")])
        self.open(NodeStarted, node=node, task_id=f"task-{self.step}")

    def end_superstep(
        self, node: str, nxt: list[str], messages: list[dict[str, Any]], status: str = "ok"
    ) -> None:
        """Close the node, then the barrier: the state update and the checkpoint."""
        self.close(
            NodeFinished, node=node, task_id=f"task-{self.step}", status=status, duration_ms=3.0
        )
        self.append_messages(messages)
        self.saved(nxt)
        self.close(SuperstepFinished, status=status, duration_ms=4.0)

    def model_turn(
        self,
        reply: dict[str, Any],
        *,
        failures: list[str] = (),  # type: ignore[assignment]
        tokens: int = 0,
        route_to: str = "tools",
    ) -> None:
        """``model`` node: TodoList wrapper > ModelRetry wrapper > attempts (``failures`` first)."""
        self.superstep("model")
        self.open(
            WrapperStarted, middleware="TodoListMiddleware", wrapper="wrap_model_call", depth=0
        )
        self.open(
            WrapperStarted, middleware="ModelRetryMiddleware", wrapper="wrap_model_call", depth=1
        )
        total = 3
        for n, message in enumerate([*failures, None], start=1):
            common = {
                "middleware": "ModelRetryMiddleware",
                "attempt": n,
                "max_attempts": total,
                "model": "scripted",
            }
            self.open(AttemptStarted, **common)
            self.open(
                ModelRequest,
                model="scripted",
                messages_count=self.messages,
                tools=["write_todos", "create_file"],
            )
            if message is not None:
                err = ErrorInfo(type="TimeoutError", message=message)
                self.close(ModelResponse, model="scripted", error=err, latency_ms=30000.0)
                self.close(
                    AttemptFinished,
                    **common,
                    outcome="error",
                    error=err,
                    will_retry=True,
                    delay_s=1.0,
                )
                continue
            text = reply.get("content") or ""
            for i in range(tokens):
                self.point(
                    ModelToken, model="scripted", text=text[i % max(1, len(text))] if text else "·"
                )
            self.close(ModelResponse, model="scripted", message=reply, latency_ms=42.0)
            self.close(AttemptFinished, **common, outcome="ok", duration_ms=42.0)
        calls = len(failures) + 1
        self.close(
            WrapperFinished,
            middleware="ModelRetryMiddleware",
            wrapper="wrap_model_call",
            handler_calls=calls,
        )
        self.close(
            WrapperFinished,
            middleware="TodoListMiddleware",
            wrapper="wrap_model_call",
            handler_calls=1,
        )
        pending = len(reply.get("tool_calls") or [])
        if pending:
            self.point(
                Route,
                from_node="model",
                to=[route_to],
                reason="tool_calls",
                detail=f"{pending} pending call" + ("s" if pending > 1 else ""),
            )
        else:
            self.point(Route, from_node="model", to=["__end__"], reason="no_tool_calls")
        self.end_superstep("model", [route_to] if pending else [], [reply])

    def tools_turn(
        self,
        calls: list[tuple[str, dict[str, Any], str]],
        results: list[dict[str, Any]],
        *,
        errors: dict[str, str] | None = None,
    ) -> None:
        """``tools`` node: per call, a ToolRetry wrapper > attempts > tool call."""
        self.superstep("tools")
        errors = errors or {}
        for (name, args, call_id), result in zip(calls, results, strict=True):
            self.open(
                WrapperStarted,
                middleware="ToolRetryMiddleware",
                wrapper="wrap_tool_call",
                tool=name,
                tool_call_id=call_id,
            )
            attempts = [errors[call_id], None] if call_id in errors else [None]
            for n, failure in enumerate(attempts, start=1):
                common = {
                    "middleware": "ToolRetryMiddleware",
                    "attempt": n,
                    "max_attempts": 3,
                    "tool": name,
                    "tool_call_id": call_id,
                }
                self.open(AttemptStarted, **common)
                self.open(ToolStarted, tool=name, tool_call_id=call_id, args=args)
                if failure is not None:
                    err = ErrorInfo(type="OSError", message=failure)
                    self.close(
                        ToolFinished,
                        tool=name,
                        tool_call_id=call_id,
                        status="error",
                        error=err,
                        duration_ms=2.0,
                    )
                    self.close(
                        AttemptFinished,
                        **common,
                        outcome="error",
                        error=err,
                        will_retry=True,
                        delay_s=0.5,
                    )
                    continue
                self.close(
                    ToolFinished,
                    tool=name,
                    tool_call_id=call_id,
                    status=result.get("status", "success"),
                    result=result,
                    duration_ms=12.0,
                )
                self.close(AttemptFinished, **common, outcome="ok", duration_ms=12.0)
            self.close(
                WrapperFinished,
                middleware="ToolRetryMiddleware",
                wrapper="wrap_tool_call",
                tool=name,
                tool_call_id=call_id,
                handler_calls=len(attempts),
            )
        self.point(Route, from_node="tools", to=["model"], reason="static")
        self.end_superstep("tools", ["model"], results)


TODOS = [
    {"content": "Create login.tsx", "status": "in_progress"},
    {"content": "Create register.tsx", "status": "pending"},
]


def seed000_events(tokens: int = 0, run_id: str = "run-1") -> list[EventBase]:
    """The default scenario: 8 messages, a model timeout and a disk-full error, both retried."""
    s = AgentScript(run_id=run_id)
    s.start(human("Create login.tsx and register.tsx for the auth flow.", "m1"))
    todo_call = ("write_todos", {"todos": TODOS}, "call-1")
    s.model_turn(ai("", "m2", [todo_call]), tokens=tokens)
    s.tools_turn([todo_call], [tool_msg("Updated todo list", "call-1", "write_todos", "m3")])
    login = (
        "create_file",
        {"path": "login.tsx", "content": "export function Login() {}"},
        "call-2",
    )
    s.model_turn(ai("", "m4", [login]), failures=["model timed out after 30 s"], tokens=tokens)
    s.tools_turn([login], [tool_msg("Wrote login.tsx (27 bytes)", "call-2", "create_file", "m5")])
    register = (
        "create_file",
        {"path": "register.tsx", "content": "export function Register() {}"},
        "call-3",
    )
    s.model_turn(ai("", "m6", [register]), tokens=tokens)
    s.tools_turn(
        [register],
        [tool_msg("Wrote register.tsx (30 bytes)", "call-3", "create_file", "m7")],
        errors={"call-3": "[Errno 28] No space left on device"},
    )
    s.model_turn(
        ai("Done: login.tsx and register.tsx are created.", "m8"), tokens=tokens, route_to="__end__"
    )
    s.finish()
    return s.events


def synthetic_stream(n: int, *, tokens: int = 24, run_id: str = "bench") -> Iterator[EventBase]:
    """At least ``n`` events (stopped at exactly ``n``) of a long agent run: model turns with
    streamed tokens and an occasional retried timeout, tool turns with parallel calls and an
    occasional retried error, middleware actions."""
    s = AgentScript(run_id=run_id)
    s.start(human("Refactor the auth module and keep the tests green.", "m0"))
    sent = 0
    turn = 0
    while True:
        turn += 1
        calls = [
            ("read_file", {"path": f"src/auth/file_{turn}_{k}.ts"}, f"c{turn}-{k}")
            for k in range(1 + turn % 3)
        ]
        failures = ["model timed out after 30 s"] if turn % 7 == 0 else []
        s.model_turn(
            ai(f"Reading {len(calls)} files for step {turn}.", f"a{turn}", calls),
            failures=failures,
            tokens=tokens,
        )
        results = [
            tool_msg(f"contents of {c[1]['path']}", c[2], c[0], f"t{turn}-{k}")
            for k, c in enumerate(calls)
        ]
        errors = {calls[0][2]: "[Errno 28] No space left on device"} if turn % 11 == 0 else None
        s.tools_turn(calls, results, errors=errors)
        if turn % 5 == 0:
            s.point(
                MiddlewareAction,
                middleware="ContextEditingMiddleware",
                action="context_edit",
                detail={"cleared": 2},
            )
        for ev in s.events:
            yield ev
            sent += 1
            if sent >= n:
                return
        del s.events[:]  # keep memory flat: the caller holds what it needs
