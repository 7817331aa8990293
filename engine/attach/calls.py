"""Model and tool calls of an attached run: LangChain's chat-model and tool callbacks as our
``model.*`` and ``tool.*`` events, nested in the middleware layer (``wrappers``) or node that
made them."""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

from engine.attach.base import IN_LAYER, HandlerBase, InjectedFault, Open, either, task_of
from engine.attach.converted import request_hash_of
from engine.attach.secrets import register_calling_model
from engine.core.ids import new_span_id
from engine.events import (
    ErrorInfo,
    EventBase,
    MiddlewareAction,
    ModelRequest,
    ModelResponse,
    ModelToken,
    ToolFinished,
    ToolStarted,
)
from engine.observe.request_log import public_params
from engine.serde import jsonable_memo, to_jsonable
from engine.usage import reported_model, usage_dict

__all__ = ["CallEvents"]


def _hash(messages: list[Any]) -> str | None:
    """The replay hash of what the model receives (None when it cannot be read as ours)."""
    try:
        return request_hash_of(messages)
    except Exception:  # a message type of the app's own: no replay for this call
        return None


class CallEvents(HandlerBase):
    """Model and tool events from LangChain's chat-model and tool callbacks."""

    def _open_call(
        self, run_id: UUID, parent_run_id: UUID | None, kind: str, name: str, meta: dict[str, Any]
    ) -> Open:
        self.parents[run_id] = parent_run_id
        ns, _ = task_of(meta)
        step = meta.get("langgraph_step")
        op = Open(
            new_span_id(), kind, name, time.perf_counter(), ns,
            int(step) if isinstance(step, int) else None,
        )  # fmt: skip
        op.parent = self.parent_span(parent_run_id)
        self.open[run_id] = op
        return op

    def _close_call(self, run_id: UUID) -> Open | None:
        op = self.open.pop(run_id, None)
        return op if op is not None and op.kind != "node" else None

    async def _emit_for(self, op: Open, cls: type[EventBase], **fields: Any) -> EventBase | None:
        """An event of the call ``op`` (its span, where it nests, its graph and step)."""
        return await self._emit(
            cls, op.ns, span_id=op.span, parent_span_id=op.parent, step=op.step, **fields
        )

    async def _unwrapped_fault(
        self, run_id: UUID, op: Open, kind: str, call_id: str | None = None
    ) -> None:
        """A model or tool call no innermost layer of ours wraps (an agent invoked inside a
        node function or inside a tool, a summarization model) still takes the debugger's
        next fault for it: the call is closed as failed and raises the fault
        (``InjectedFault``).  ``call_id``: a tool call's id (the layer around it names it)."""
        layer = IN_LAYER.get()
        if layer is True or (layer and layer == call_id):
            return
        from engine.attach.innermost import fault_event, fault_for

        err = fault_for(self, kind, op.name)
        if err is None:
            return
        await self._emit(MiddlewareAction, op.ns, **fault_event(kind, op.name, err))
        self._close_call(run_id)
        latency = (time.perf_counter() - op.t0) * 1000
        if kind == "model":
            await self._emit_for(
                op, ModelResponse, model=op.name, error=ErrorInfo.from_exception(err),
                latency_ms=latency,
            )  # fmt: skip
        else:
            await self._emit_for(
                op, ToolFinished, tool=op.name, tool_call_id=op.call_id, status="error",
                error=ErrorInfo.from_exception(err), duration_ms=latency,
            )  # fmt: skip
        raise InjectedFault(err)

    # -- models -------------------------------------------------------------------------------

    @either
    async def on_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        invocation_params: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        await self._model_start(
            serialized, messages, run_id=run_id, parent_run_id=parent_run_id,
            metadata=metadata, invocation_params=invocation_params, **kwargs,
        )  # fmt: skip

    async def _model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        invocation_params: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        register_calling_model(serialized)  # before the server can echo a credential back
        meta = metadata or {}
        params = invocation_params or kwargs.get("invocation_params") or {}
        model = str(
            meta.get("ls_model_name")
            or params.get("model")
            or params.get("model_name")
            or kwargs.get("name")
            or (serialized or {}).get("name")
            or "model"
        )
        op = self._open_call(run_id, parent_run_id, "model", model, meta)
        msgs = messages[0] if messages else []
        schemas = [_tool_schema(t) for t in params.get("tools") or ()]
        tools = [str(t.get("name", "")) if isinstance(t, dict) else str(t) for t in schemas]
        lane = f"{op.ns}|{meta.get('langgraph_node') or ''}"
        log = self.em.requests
        structured = meta.get("ls_structured_output_format")
        # the last messages are mostly the new ones the request log renders in full too: each
        # is dumped once for both
        render = jsonable_memo()
        fields = log.fields(lane, msgs, schemas, render=render)
        ev = await self._emit_for(
            op,
            ModelRequest,
            model=model,
            messages_count=len(msgs),
            last_messages=[render(m, 2000) for m in msgs[-3:]],
            tools=tools,
            tool_choice=to_jsonable(params.get("tool_choice")),
            streaming=bool(params.get("stream")) or self.stream_tokens,
            request_hash=_hash(msgs),
            response_schema=to_jsonable(
                params.get("response_format")
                or (structured.get("schema") if isinstance(structured, dict) else None)
            ),
            params=public_params(params),
            **fields,
        )
        log.remember(lane, ev, msgs, schemas)
        op.t0 = time.perf_counter()  # the call's latency, not a pause or wait at its request
        await self._unwrapped_fault(run_id, op, "model")

    @either
    async def on_llm_start(
        self,
        serialized: dict[str, Any] | None,
        prompts: list[str],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        await self._model_start(
            serialized, [list(prompts)], run_id=run_id, parent_run_id=parent_run_id,
            metadata=metadata, **kwargs,
        )  # fmt: skip

    @either
    async def on_llm_new_token(
        self, token: str | list[str | dict[str, Any]], *, run_id: UUID, **kwargs: Any
    ) -> None:
        op = self.open.get(run_id)
        if op is None or op.kind != "model":
            return
        self.tokens_seen += 1
        chunk = kwargs.get("chunk")
        msg = getattr(chunk, "message", None)
        tcc = [to_jsonable(c) for c in getattr(msg, "tool_call_chunks", None) or ()]
        await self._emit(
            ModelToken,
            op.ns,
            parent_span_id=op.span,
            step=op.step,
            model=op.name,
            text=token
            if isinstance(token, str)
            else "".join(t for t in token if isinstance(t, str)),
            tool_call_chunks=tcc,
        )

    @either
    async def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        op = self._close_call(run_id)
        if op is None:
            return
        message: Any = None
        msg: Any = None
        gens = getattr(response, "generations", None) or []
        if gens and gens[0]:
            gen = gens[0][0]
            msg = getattr(gen, "message", None)
            message = to_jsonable(msg if msg is not None else getattr(gen, "text", None))
        meta = getattr(msg, "response_metadata", None)
        llm_output = getattr(response, "llm_output", None)
        await self._emit_for(
            op,
            ModelResponse,
            model=op.name,
            message=message,
            usage=usage_dict(getattr(msg, "usage_metadata", None), meta, llm_output),
            latency_ms=(time.perf_counter() - op.t0) * 1000,
            model_name=reported_model(meta) or reported_model(llm_output),
        )

    @either
    async def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        op = self._close_call(run_id)
        if op is None:
            return
        await self._emit_for(
            op,
            ModelResponse,
            model=op.name,
            error=ErrorInfo.from_exception(error),
            latency_ms=(time.perf_counter() - op.t0) * 1000,
        )

    # -- tools --------------------------------------------------------------------------------

    @either
    async def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        meta = metadata or {}
        name = str(kwargs.get("name") or (serialized or {}).get("name") or "tool")
        op = self._open_call(run_id, parent_run_id, "tool", name, meta)
        op.call_id = kwargs.get("tool_call_id")
        await self._emit_for(
            op,
            ToolStarted,
            tool=name,
            tool_call_id=op.call_id,
            args=to_jsonable(inputs if inputs is not None else input_str, max_str=2000),
        )
        op.t0 = time.perf_counter()  # the call's duration, not a pause or wait at its start
        call_id = op.call_id
        await self._unwrapped_fault(run_id, op, "tool", str(call_id) if call_id else None)

    @either
    async def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        op = self._close_call(run_id)
        if op is None:
            return
        status = "error" if getattr(output, "status", "success") == "error" else "success"
        await self._emit_for(
            op,
            ToolFinished,
            tool=op.name,
            tool_call_id=getattr(output, "tool_call_id", None) or op.call_id,
            status=status,
            result=to_jsonable(output, max_str=4000),
            duration_ms=(time.perf_counter() - op.t0) * 1000,
        )

    @either
    async def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        op = self._close_call(run_id)
        if op is None:
            return
        interrupted = type(error).__name__ == "GraphInterrupt"
        await self._emit_for(
            op,
            ToolFinished,
            tool=op.name,
            tool_call_id=op.call_id,
            status="error",
            error=None if interrupted else ErrorInfo.from_exception(error),
            duration_ms=(time.perf_counter() - op.t0) * 1000,
        )


def _tool_schema(tool: Any) -> Any:
    """A bound tool as the model sees it: ``{"name", "description", "parameters"}`` (the
    OpenAI ``{"type": "function", "function": ...}`` wrapper removed)."""
    if (
        isinstance(tool, dict)
        and tool.get("type") == "function"
        and isinstance(tool.get("function"), dict)
    ):
        return tool["function"]
    return tool
