"""Model and tool calls of a remote run, from the server's ``events`` stream.

``CallTranslation`` is the part of ``StreamTranslator`` (``engine.remote.translate``) that turns
LangChain's ``on_chat_model_*`` / ``on_tool_*`` events into our ``model.*`` / ``tool.*`` events,
nested under the task (or the call) that made them.  ``TaskSpan`` and ``CallSpan`` are the spans
both halves keep.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.core.ids import new_span_id
from engine.events import (
    ErrorInfo,
    EventBase,
    ModelRequest,
    ModelResponse,
    ModelToken,
    ToolFinished,
    ToolStarted,
)
from engine.serde import to_jsonable

__all__ = ["CallSpan", "CallTranslation", "TaskSpan", "task_of", "tool_calls_in"]

_MODEL_START = ("on_chat_model_start", "on_llm_start")
_MODEL_END = ("on_chat_model_end", "on_llm_end")
_MODEL_STREAM = ("on_chat_model_stream", "on_llm_stream")


@dataclass
class TaskSpan:
    span: str
    node: str
    ns: str
    step: int | None
    t0: float
    server_t0: float | None
    tool_calls: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    """The tool calls the task was given (``tool_calls_in`` its input), by id."""


def tool_calls_in(value: Any) -> dict[str, Mapping[str, Any]]:
    """The tool calls a task's input (server JSON) hands it, by id: the calls a ``Send`` gives
    an agent's tool node (as a list of calls, or one with its context), else those of the last
    AI message of the state's messages."""
    if isinstance(value, list):
        return {
            str(c["id"]): c
            for c in value
            if isinstance(c, Mapping) and c.get("type") == "tool_call" and c.get("id")
        }
    if not isinstance(value, Mapping):
        return {}
    if value.get("type") == "tool_call" and value.get("id"):
        return {str(value["id"]): value}
    call = value.get("tool_call")
    if isinstance(call, Mapping) and call.get("id"):
        return {str(call["id"]): call}
    messages = value.get("messages")
    for message in reversed(messages if isinstance(messages, list) else []):
        if isinstance(message, Mapping) and message.get("type") == "ai":
            calls = message.get("tool_calls") or ()
            return {str(c["id"]): c for c in calls if isinstance(c, Mapping) and c.get("id")}
    return {}


@dataclass
class CallSpan:
    span: str
    kind: Literal["model", "tool"]
    name: str
    ns: str
    step: int | None
    parent: str
    t0: float = field(default_factory=time.perf_counter)


def _tool_error(err: Any) -> ErrorInfo:
    """A failed tool call's error: the server sends an exception as ``{"error": type name,
    "message": ...}``; a plain string is the tool's own message."""
    if isinstance(err, Mapping) and "error" in err:
        return ErrorInfo(
            type=str(err.get("error") or "ToolError"), message=str(err.get("message") or "")
        )
    return ErrorInfo(
        type="ToolError" if isinstance(err, str) else type(err).__name__, message=str(err)
    )


def task_of(cp_ns: str) -> tuple[str, str]:
    """(namespace of the graph a task runs in, its task id) from a ``checkpoint_ns``."""
    parts = cp_ns.split("|") if cp_ns else []
    if not parts:
        return "", ""
    last = parts[-1]
    return "|".join(parts[:-1]), last.split(":", 1)[1] if ":" in last else last


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(b.get("text", "")) if isinstance(b, Mapping) else str(b)
            for b in content
            if isinstance(b, str) or (isinstance(b, Mapping) and b.get("type") == "text")
        )
    return ""


class CallTranslation:
    """Model and tool calls (mixed into ``StreamTranslator``, which owns the state below)."""

    root_span: str
    tasks: dict[tuple[str, str], TaskSpan]
    calls: dict[str, CallSpan]
    finished: set[str]
    tools_run: set[str]
    """Ids of the tool calls whose ``tool.started`` was sent."""

    async def _emit(
        self, cls: type[EventBase], ns: str, *, gated: bool = False, **fields: Any
    ) -> None:
        raise NotImplementedError

    def _call_parent(
        self, data: Mapping[str, Any], meta: Mapping[str, Any]
    ) -> tuple[str, str, int | None]:
        """(span, graph namespace, step) a call nests in."""
        ns, task_id = task_of(str(meta.get("langgraph_checkpoint_ns") or ""))
        step = meta.get("langgraph_step") if isinstance(meta.get("langgraph_step"), int) else None
        for rid in reversed(list(data.get("parent_ids") or ())):
            call = self.calls.get(str(rid))
            if call is not None:
                return call.span, call.ns, step
        task = self.tasks.get((ns, task_id))
        return (task.span if task else self.root_span), ns, step

    async def _event(self, data: Mapping[str, Any]) -> None:
        name = str(data.get("event") or "")
        rid = str(data.get("run_id") or "")
        meta = data.get("metadata") if isinstance(data.get("metadata"), Mapping) else {}
        body = data.get("data") if isinstance(data.get("data"), Mapping) else {}
        assert isinstance(meta, Mapping) and isinstance(body, Mapping)
        if name in _MODEL_START:
            await self._model_start(rid, data, meta, body)
        elif name in _MODEL_STREAM:
            call = self.calls.get(rid)
            chunk = body.get("chunk")
            if call is not None and isinstance(chunk, Mapping):
                await self._emit(
                    ModelToken,
                    call.ns,
                    parent_span_id=call.span,
                    step=call.step,
                    model=call.name,
                    text=_text(chunk.get("content")),
                    tool_call_chunks=to_jsonable(chunk.get("tool_call_chunks") or []),
                )
        elif name in _MODEL_END:
            await self._model_end(rid, body)
        elif name == "on_tool_start":
            await self._tool_start(rid, data, meta, body)
        elif name in ("on_tool_end", "on_tool_error"):
            await self._tool_end(rid, body, name == "on_tool_error")

    async def _model_start(
        self, rid: str, data: Mapping[str, Any], meta: Mapping[str, Any], body: Mapping[str, Any]
    ) -> None:
        if rid in self.calls:
            return
        parent, ns, step = self._call_parent(data, meta)
        model = str(meta.get("ls_model_name") or data.get("name") or "model")
        call = self.calls[rid] = CallSpan(new_span_id(), "model", model, ns, step, parent)
        inp = body.get("input")
        msgs: list[Any] = []
        if isinstance(inp, Mapping):
            batch = inp.get("messages") or inp.get("prompts") or []
            msgs = list(batch[0]) if batch and isinstance(batch[0], list) else list(batch)
        await self._emit(
            ModelRequest,
            ns,
            span_id=call.span,
            parent_span_id=parent,
            step=step,
            model=model,
            messages_count=len(msgs),
            last_messages=[to_jsonable(m, max_str=2000) for m in msgs[-3:]],
            streaming=True,
        )

    async def _model_end(self, rid: str, body: Mapping[str, Any]) -> None:
        call = self.calls.pop(rid, None)
        if call is None:
            return
        out = body.get("output")
        message = out
        if isinstance(out, Mapping) and "generations" in out:  # a plain LLM's result
            gens = out.get("generations") or [[]]
            first = gens[0][0] if gens and gens[0] else {}
            message = (
                first.get("message") or first.get("text") if isinstance(first, Mapping) else first
            )
        usage = message.get("usage_metadata") if isinstance(message, Mapping) else None
        await self._emit(
            ModelResponse,
            call.ns,
            span_id=call.span,
            parent_span_id=call.parent,
            step=call.step,
            model=call.name,
            message=to_jsonable(message, max_str=8000),
            usage=to_jsonable(dict(usage)) if isinstance(usage, Mapping) else None,
            latency_ms=(time.perf_counter() - call.t0) * 1000,
        )

    async def _tool_start(
        self, rid: str, data: Mapping[str, Any], meta: Mapping[str, Any], body: Mapping[str, Any]
    ) -> None:
        if rid in self.calls:
            return
        parent, ns, step = self._call_parent(data, meta)
        name = str(data.get("name") or "tool")
        call = self.calls[rid] = CallSpan(new_span_id(), "tool", name, ns, step, parent)
        args = body.get("input")
        call_id = None
        if isinstance(args, Mapping) and isinstance(args.get("tool_call_id"), str):
            call_id = args["tool_call_id"]
            self.tools_run.add(call_id)
        await self._emit(
            ToolStarted,
            ns,
            span_id=call.span,
            parent_span_id=parent,
            step=step,
            tool=name,
            tool_call_id=call_id,
            args=to_jsonable(args, max_str=2000),
        )

    async def _tool_end(self, rid: str, body: Mapping[str, Any], failed: bool) -> None:
        call = self.calls.pop(rid, None)
        if call is None:
            return
        out = body.get("output")
        error = None
        if failed:
            error = _tool_error(body.get("error"))
        status = (
            "error"
            if failed or (isinstance(out, Mapping) and out.get("status") == "error")
            else "success"
        )
        await self._emit(
            ToolFinished,
            call.ns,
            span_id=call.span,
            parent_span_id=call.parent,
            step=call.step,
            tool=call.name,
            tool_call_id=out.get("tool_call_id") if isinstance(out, Mapping) else None,
            status=status,
            result=to_jsonable(out, max_str=4000),
            error=error,
            duration_ms=(time.perf_counter() - call.t0) * 1000,
        )

    async def _failed_without_a_tool(
        self, task: TaskSpan | None, writes: list[tuple[str, Any]]
    ) -> None:
        """Error answers a task wrote to tool calls it was given that no tool ran for (a tool
        the agent does not have: ``ToolNode`` answers without calling anything, so the server
        sends no tool event), as failed tool calls with that answer, as on the engine's own
        agent and attached."""
        if task is None or not task.tool_calls:
            return
        for _channel, value in writes:
            for message in value if isinstance(value, list) else [value]:
                if not isinstance(message, Mapping) or message.get("type") != "tool":
                    continue
                call_id = str(message.get("tool_call_id") or "")
                call = task.tool_calls.get(call_id)
                if call is None or call_id in self.tools_run or message.get("status") != "error":
                    continue
                self.tools_run.add(call_id)
                span = new_span_id()
                common = {
                    "span_id": span, "parent_span_id": task.span, "step": task.step,
                    "tool": str(call.get("name") or message.get("name") or "tool"),
                    "tool_call_id": call_id,
                }  # fmt: skip
                args = to_jsonable(call.get("args"), max_str=2000)
                await self._emit(ToolStarted, task.ns, **common, args=args)
                await self._emit(
                    ToolFinished, task.ns, **common, status="error",
                    result=to_jsonable(message, max_str=4000),
                )  # fmt: skip

    async def _close_calls_of(self, task: TaskSpan | None, error: ErrorInfo | None) -> None:
        """A node ended: calls still open in it ended with it (no end event came)."""
        if task is None:
            return
        inside = {task.span}
        for rid, call in list(self.calls.items()):  # in start order: a caller before its calls
            if call.parent not in inside:
                continue
            inside.add(call.span)
            self.calls.pop(rid, None)
            why = error or ErrorInfo(
                type="Incomplete", message="the server reported no end of this call"
            )
            if call.kind == "model":
                await self._emit(
                    ModelResponse, call.ns, span_id=call.span, parent_span_id=call.parent,
                    step=call.step, model=call.name, error=why,
                    latency_ms=(time.perf_counter() - call.t0) * 1000,
                )  # fmt: skip
            else:
                await self._emit(
                    ToolFinished, call.ns, span_id=call.span, parent_span_id=call.parent,
                    step=call.step, tool=call.name, status="error", error=why,
                    duration_ms=(time.perf_counter() - call.t0) * 1000,
                )  # fmt: skip
