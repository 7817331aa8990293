"""``ToolNode``: run the tool calls the model asked for (spec section 7).

Input: a state dict (runs every call of the last AIMessage), a list of messages (same, returns
a list), a list of tool calls, or one tool call (what ``create_agent`` sends with
``Send("tools", call)`` - one task per call, so calls run in parallel and their results land in
call order).  Several calls in one input run concurrently (sync tools on worker threads) and
their outputs keep the call order.

Each call goes through the ``wrap_tool_call`` onion (first middleware outermost) down to
``execute_tool_call``.  A call whose arguments were not valid JSON never reaches a tool: it is
answered with an error ToolMessage so the conversation stays valid and the model can retry.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from engine.agents.chain import TOOL_CALL, Chain
from engine.agents.tool_events import tool_events
from engine.agents.tool_exec import (
    ErrorHandler,
    default_handle_tool_errors,
    execute_tool_call,
    invalid_call_message,
)
from engine.events import ToolFinished, ToolStarted
from engine.graph.runtime import Runtime, current_run, current_task
from engine.messages import AIMessage, BaseMessage, InvalidToolCall, ToolCall, ToolMessage
from engine.middleware.types import AgentMiddleware, ToolCallRequest
from engine.observe.bus import current_emitter, span
from engine.serde import to_jsonable
from engine.tools import BaseTool, ToolRuntime, as_tool
from engine.types import Command

__all__ = ["ToolNode"]


def _is_call(obj: Any) -> bool:
    return isinstance(obj, Mapping) and (
        obj.get("type") in ("tool_call", "invalid_tool_call")
        or ({"name", "args", "id"} <= set(obj) and "messages" not in obj)
    )


def _calls_of(messages: Sequence[Any]) -> list[Any]:
    for m in reversed(list(messages)):
        if isinstance(m, AIMessage):
            return [*m.tool_calls, *m.invalid_tool_calls]
    raise ValueError("No AIMessage found in input")


class ToolNode:
    """A graph node that executes tool calls.

    ``ToolNode(tools, handle_tool_errors=...)``: ``handle_tool_errors`` is the default
    (argument-validation errors become error ToolMessages, other errors propagate), ``True``
    (every error becomes a message), a string, an exception type or tuple, a callable
    ``(exc) -> str`` (handling the exception types its parameter is annotated with), or
    ``False`` (everything propagates).  Unknown tool names always get an error message;
    interrupts always propagate.
    """

    def __init__(
        self,
        tools: Sequence[BaseTool | Any],
        *,
        name: str = "tools",
        handle_tool_errors: ErrorHandler = default_handle_tool_errors,
        messages_key: str = "messages",
        wrappers: Sequence[AgentMiddleware] = (),
    ) -> None:
        self.name = name
        self.tools_by_name: dict[str, BaseTool] = {}
        for t in tools:
            bt = as_tool(t)
            self.tools_by_name[bt.name] = bt
        self.handle_tool_errors = handle_tool_errors
        self.messages_key = messages_key
        self.chain = Chain(TOOL_CALL, wrappers)

    def __repr__(self) -> str:
        return f"ToolNode(tools={list(self.tools_by_name)})"

    # -- input and output -------------------------------------------------------------------

    def _parse(self, input: Any) -> tuple[list[Any], str, Any]:
        """(calls, input kind, state) where kind is call | calls | messages | state."""
        if _is_call(input):
            task = current_task()
            state = task.read_state() if task is not None and task.read_state is not None else {}
            return [input], "call", state
        if isinstance(input, list | tuple):
            if all(_is_call(x) for x in input):
                task = current_task()
                state = (
                    task.read_state() if task is not None and task.read_state is not None else {}
                )
                return list(input), "calls", state
            if all(isinstance(x, BaseMessage) for x in input):
                return _calls_of(input), "messages", {self.messages_key: list(input)}
        if isinstance(input, Mapping):
            messages = input.get(self.messages_key)
        else:
            messages = getattr(input, self.messages_key, None)
        if messages is None:
            raise ValueError(
                f"ToolNode input has no '{self.messages_key}' and is not a tool call: {input!r}"
            )
        return _calls_of(messages), "state", input

    def _combine(self, outputs: list[ToolMessage | Command], kind: str) -> Any:
        if kind in ("messages", "calls"):
            return outputs
        if kind == "call":
            out = outputs[0]
            return out if isinstance(out, Command) else {self.messages_key: [out]}
        if not any(isinstance(o, Command) for o in outputs):
            return {self.messages_key: outputs}
        return [
            o if isinstance(o, Command) else Command(update={self.messages_key: [o]})
            for o in outputs
        ]

    # -- running ---------------------------------------------------------------------------

    async def __call__(
        self, input: Any, config: dict[str, Any], runtime: Runtime[Any] | None
    ) -> Any:
        calls, kind, state = self._parse(input)
        run = current_run()
        sync = bool(run and run.sync_call)
        store = runtime.store if runtime is not None else None
        if store is None:
            store = (config or {}).get("configurable", {}).get("__store__")
        jobs = [self._run_one(c, state, config or {}, runtime, store, sync, kind) for c in calls]
        if len(jobs) <= 1:
            return self._combine([await jobs[0]] if jobs else [], kind)
        # as LangGraph's: every call finishes before a failure (the first in call order) is
        # raised, so what the others did (a store write) is done
        results = await asyncio.gather(*jobs, return_exceptions=True)
        outputs: list[ToolMessage | Command[Any]] = []
        for result in results:
            if isinstance(result, BaseException):
                raise result
            outputs.append(result)
        return self._combine(outputs, kind)

    async def ainvoke(self, input: Any, config: dict[str, Any] | None = None) -> Any:
        """Run outside a graph (no store, no stream writer)."""
        return await self(input, config or {}, None)

    def invoke(self, input: Any, config: dict[str, Any] | None = None) -> Any:
        from engine.core.aio import run_sync

        return run_sync(self.ainvoke(input, config))

    async def _run_one(
        self,
        call: Any,
        state: Any,
        config: dict[str, Any],
        runtime: Runtime[Any] | None,
        store: Any,
        sync: bool,
        kind: str = "calls",
    ) -> ToolMessage | Command:
        if call.get("type") == "invalid_tool_call":
            return await self._answer_invalid(call)
        args = call.get("args")
        tool_call = ToolCall(
            name=call.get("name") or "",
            args=dict(args) if isinstance(args, Mapping) else args,  # type: ignore[typeddict-item]
            id=call.get("id"),
            type="tool_call",
        )
        tool_runtime = ToolRuntime(
            state=state,
            context=runtime.context if runtime is not None else None,
            config=config,
            stream_writer=runtime.stream_writer if runtime is not None else (lambda _chunk: None),
            tool_call_id=call.get("id"),
            store=store,
            tools=list(self.tools_by_name.values()),
            execution_info=runtime.execution_info if runtime is not None else None,
            server_info=runtime.server_info if runtime is not None else None,
        )
        events = tool_events(call.get("id"), str(call.get("name")))
        if events is not None:
            tool_runtime.output_sink = events.delta
        request = ToolCallRequest(
            tool_call, self.tools_by_name.get(str(tool_call.get("name"))), state, tool_runtime
        )
        execute = self._execute if kind in ("calls", "call") else partial(self._execute, kind=kind)
        return await self.chain.run(request, execute, sync=sync)

    async def _execute(
        self, request: ToolCallRequest, kind: str = "calls"
    ) -> ToolMessage | Command:
        return await execute_tool_call(
            request, self.handle_tool_errors, list(self.tools_by_name), input_kind=kind
        )

    async def _answer_invalid(self, call: InvalidToolCall) -> ToolMessage:
        message = invalid_call_message(call)
        em = current_emitter()
        if em is not None and em.active:
            s = span()
            ids = {
                "span_id": s.id,
                "parent_span_id": s.parent,
                "tool": message.name or "",
                "tool_call_id": call.get("id"),
            }
            await em.emit(ToolStarted, **ids, args=call.get("args"))
            await em.emit(ToolFinished, **ids, status="error", result=to_jsonable(message))
        return message
