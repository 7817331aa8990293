"""Stepwise's own innermost layer around each model and tool call of a real ``create_agent``.

It sits inside every ``wrap_model_call`` / ``wrap_tool_call`` middleware of the agent (so
retry and fallback middleware see what it does exactly as they see the real call), right
around LangChain's own call of the model or the tool, and gives attach mode what the embedded
engine's debugger offers:

- fault injection: the fault the debugger queued for the next model call, or for tool X,
  is raised here, as a real error of that call (``Debugger.inject_model_error`` /
  ``inject_tool_error``, the Faults menu);
- replay: with a ``ReplayChatModel`` as the run's model override, a model call whose request
  matches the recording is answered from it, without calling the model (no cost); from the
  first call that differs, the app's own model answers again;
- a model that cannot stream: when the studio streams the app's models (for their tokens) and
  a model's stream gives nothing at all (it does not implement streaming, or says "No
  generations found in stream"), the same call is made once more without streaming, and that
  model is not streamed again in the run.

Only the copy of the graph that runs has the layer; the user's graph is never modified.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from engine.agents.unstreamed import cannot_stream, fallback_detail
from engine.attach.base import ACTIVE, IN_LAYER, HandlerBase, layer_context, layer_mark
from engine.attach.converted import ours, ours_all, request_hash_of
from engine.attach.model_names import model_name
from engine.attach.quiet_fakes import streams_its_reply
from engine.attach.streaming_off import streaming_off
from engine.attach.unknown_tools import unknown_call
from engine.events import MiddlewareAction, ModelRequest, ModelResponse
from engine.serde import to_jsonable

__all__ = ["model_layers", "tool_layers"]


def fault_for(cb: HandlerBase, kind: str, name: str) -> BaseException | None:
    """The debugger's next fault for a ``kind`` call named ``name`` (taken), if any."""
    return _fault(cb, kind, name)


def _fault(cb: HandlerBase, kind: str, name: str) -> BaseException | None:
    gate = cb.em.debugger
    if gate is None:
        return None
    return gate.take_fault(kind, name)


def fault_event(kind: str, name: str, err: BaseException) -> dict[str, Any]:
    """The ``middleware.action`` fields that say a fault was injected."""
    return _fault_event(kind, name, err)


def _fault_event(kind: str, name: str, err: BaseException) -> dict[str, Any]:
    return {
        "middleware": "Debugger",
        "action": "fault_injected",
        "detail": {
            "kind": kind,
            "target": name,
            "error_type": type(err).__name__,
            "message": str(err),
        },
    }


def _sent(request: Any) -> list[Any]:
    """The messages the model receives (the system message first)."""
    system = getattr(request, "system_message", None)
    return [system, *request.messages] if system is not None else list(request.messages)


class _Replayed:
    """A replay's answer to one call: the recorded message, or the divergence."""

    def __init__(self, cb: HandlerBase, request: Any) -> None:
        self.message: Any = None
        self.diverged: Any = None
        from engine.models.base import ChatRequest
        from engine.models.replay import ReplayChatModel

        replay = cb.model_override
        if not isinstance(replay, ReplayChatModel):
            return

        from_lc = _from_langchain(_sent(request))
        message, divergence = replay._match(ChatRequest(messages=from_lc))
        if message is not None:
            from engine.interop import to_langchain

            self.message = to_langchain(message)
        self.diverged = divergence

    def events(self, cb: HandlerBase, request: Any, name: str) -> list[tuple[type, dict[str, Any]]]:
        if self.diverged is not None:
            return [
                (
                    MiddlewareAction,
                    {
                        "middleware": "ReplayChatModel",
                        "action": "replay_diverged",
                        "detail": {
                            "call_index": self.diverged.call_index,
                            "expected_hash": self.diverged.expected_hash,
                            "actual_hash": self.diverged.actual_hash,
                            "fallback": name,
                            "message": self.diverged.describe(),
                        },
                    },
                )
            ]
        return []


def _from_langchain(messages: list[Any]) -> list[Any]:
    return ours_all(messages)


def _response(message: Any) -> Any:
    from langchain.agents.middleware.types import ModelResponse as LCModelResponse

    return LCModelResponse(result=[message])


class _Reply:
    """Stands for a bound model whose call gives the recorded reply (no callbacks: the served
    call's events are ours, ``replay_events``)."""

    def __init__(self, message: Any) -> None:
        self.message = message

    def bind_tools(self, *_args: Any, **_kwargs: Any) -> _Reply:
        return self

    def bind(self, **_kwargs: Any) -> _Reply:
        return self

    def invoke(self, *_args: Any, **_kwargs: Any) -> Any:
        return self.message

    async def ainvoke(self, *_args: Any, **_kwargs: Any) -> Any:
        return self.message


def _served(request: Any, message: Any) -> Any:
    """``request`` on a copy of its model that answers ``message``, for LangChain's own call
    to bind and read as the model's reply (a structured output's tool call becomes the
    structured response, as it did when recorded); None for a model that cannot be copied."""
    try:
        model = request.model.model_copy()  # the same class: LangChain picks the same strategy
    except Exception:  # not a pydantic chat model
        return None
    reply = _Reply(message)
    object.__setattr__(model, "bind_tools", reply.bind_tools)
    object.__setattr__(model, "bind", reply.bind)
    return request.override(model=model)


class _Call:
    """One model call through the layer (the shared bookkeeping of the sync and async ones)."""

    def __init__(self, cb: HandlerBase, request: Any) -> None:
        self.cb = cb
        self.request = request
        self.name = model_name(request.model)
        self.meta, self.run_id = layer_context()
        self.quiet = not cb.app_streams_messages and (
            type(request.model) in cb.unstreamable or streams_its_reply(request.model)
        )
        """Called with streaming off (``streaming_off``): it cannot stream, or its stream is
        only its reply cut into pieces."""

    def streaming(self) -> AbstractContextManager[None]:
        """Where the call runs: streaming off for a quiet model, as the app set it else."""
        return streaming_off(self.request.model) if self.quiet else nullcontext()

    def ns(self) -> str:
        from engine.attach.base import task_of

        return task_of(self.meta)[0]

    def replay_events(self, message: Any) -> list[tuple[type, dict[str, Any]]]:
        """A served recorded reply shows as a model call, as on the engine."""
        from engine.core.ids import new_span_id

        span = new_span_id()
        parent = self.cb.parent_span(self.run_id)  # where the real call's events nest
        sent = _sent(self.request)
        common = {"span_id": span, "parent_span_id": parent, "model": self.name}
        return [
            (
                ModelRequest,
                {
                    **common,
                    "messages_count": len(sent),
                    "last_messages": [to_jsonable(ours(m)) for m in sent[-3:]],
                    "request_hash": request_hash_of(sent),
                },
            ),
            (ModelResponse, {**common, "message": to_jsonable(ours(message)), "replayed": True}),
        ]

    def may_retry_unstreamed(self, exc: BaseException, tokens_before: int) -> bool:
        if not self.cb.stream_tokens or not cannot_stream(exc):
            return False
        if self.cb.tokens_seen != tokens_before:
            return False  # it streamed something: a real failure
        self.cb.unstreamable.add(type(self.request.model))
        return True

    def fallback_event(self) -> tuple[type, dict[str, Any]]:
        return MiddlewareAction, fallback_detail(self.name)


ModelCall = Callable[[Any], Any]
AsyncModelCall = Callable[[Any], Awaitable[Any]]


def sync_model_layer(request: Any, handler: ModelCall) -> Any:
    cb = ACTIVE.get()
    if cb is None:
        return handler(request)
    inside = IN_LAYER.set(True)
    try:
        return _sync_model_layer(cb, request, handler)
    finally:
        IN_LAYER.reset(inside)


def _sync_model_layer(cb: HandlerBase, request: Any, handler: ModelCall) -> Any:
    call = _Call(cb, request)
    ns = call.ns()
    err = _fault(cb, "model", call.name)
    if err is not None:
        cb.emit_sync(MiddlewareAction, ns, **_fault_event("model", call.name, err))
        raise err
    replayed = _Replayed(cb, call.request)
    for cls, fields in replayed.events(cb, call.request, call.name):
        cb.emit_sync(cls, ns, **fields)
    if replayed.message is not None:
        for cls, fields in call.replay_events(replayed.message):
            cb.emit_sync(cls, ns, **fields)
        served = _served(call.request, replayed.message)
        return _response(replayed.message) if served is None else handler(served)
    before = cb.tokens_seen
    try:
        with call.streaming():
            return handler(call.request)
    except Exception as exc:
        if not call.may_retry_unstreamed(exc, before):
            raise
    cls, fields = call.fallback_event()
    cb.emit_sync(cls, ns, **fields)
    with streaming_off(call.request.model):
        return handler(call.request)


async def async_model_layer(request: Any, handler: AsyncModelCall) -> Any:
    cb = ACTIVE.get()
    if cb is None:
        return await handler(request)
    inside = IN_LAYER.set(True)
    try:
        return await _async_model_layer(cb, request, handler)
    finally:
        IN_LAYER.reset(inside)


async def _async_model_layer(cb: HandlerBase, request: Any, handler: AsyncModelCall) -> Any:
    call = _Call(cb, request)
    ns = call.ns()
    err = _fault(cb, "model", call.name)
    if err is not None:
        await cb._emit(MiddlewareAction, ns, **_fault_event("model", call.name, err))
        raise err
    replayed = _Replayed(cb, call.request)
    for cls, fields in replayed.events(cb, call.request, call.name):
        await cb._emit(cls, ns, **fields)
    if replayed.message is not None:
        for cls, fields in call.replay_events(replayed.message):
            await cb._emit(cls, ns, **fields)
        served = _served(call.request, replayed.message)
        return _response(replayed.message) if served is None else await handler(served)
    before = cb.tokens_seen
    try:
        with call.streaming():
            return await handler(call.request)
    except Exception as exc:
        if not call.may_retry_unstreamed(exc, before):
            raise
    cls, fields = call.fallback_event()
    await cb._emit(cls, ns, **fields)
    with streaming_off(call.request.model):
        return await handler(call.request)


def tool_name(request: Any) -> str:
    """The name of the tool a ``ToolCallRequest`` calls."""
    call = getattr(request, "tool_call", None) or {}
    return str(call.get("name") or "tool")


def sync_tool_layer(request: Any, execute: Callable[[Any], Any]) -> Any:
    cb = ACTIVE.get()
    if cb is not None:
        name = tool_name(request)
        err = _fault(cb, "tool", name)
        if err is not None:
            cb.emit_sync(MiddlewareAction, task_ns(), **_fault_event("tool", name, err))
            raise err
    unknown = unknown_call(request)
    inside = IN_LAYER.set(layer_mark(request))
    try:
        result = execute(request)
    finally:
        IN_LAYER.reset(inside)
    if unknown is not None:
        unknown.report_sync(result)
    return result


async def async_tool_layer(request: Any, execute: Callable[[Any], Awaitable[Any]]) -> Any:
    cb = ACTIVE.get()
    if cb is not None:
        name = tool_name(request)
        err = _fault(cb, "tool", name)
        if err is not None:
            await cb._emit(MiddlewareAction, task_ns(), **_fault_event("tool", name, err))
            raise err
    unknown = unknown_call(request)
    inside = IN_LAYER.set(layer_mark(request))
    try:
        result = await execute(request)
    finally:
        IN_LAYER.reset(inside)
    if unknown is not None:
        await unknown.report(result)
    return result


def task_ns() -> str:
    from engine.attach.base import task_of

    return task_of(layer_context()[0])[0]


# -- composing them under the agent's own middleware ------------------------------------------


def _under_sync(handler: Any) -> Any:
    def composed(request: Any, base: ModelCall) -> Any:
        return handler(request, lambda r: sync_model_layer(r, base))

    return composed


def _under_async(handler: Any) -> Any:
    async def composed(request: Any, base: AsyncModelCall) -> Any:
        async def inner(r: Any) -> Any:
            return await async_model_layer(r, base)

        return await handler(request, inner)

    return composed


def model_layers(sync_handler: Any, async_handler: Any) -> tuple[Any, Any]:
    """The model node's composed handlers with our layer innermost (the handlers as they
    were when LangChain's composing functions are not the ones we know)."""
    try:
        from langchain.agents.factory import (
            _chain_async_model_call_handlers,
            _chain_model_call_handlers,
        )
    except ImportError:
        return sync_handler, async_handler
    return (
        _chain_model_call_handlers([sync_model_layer])
        if sync_handler is None
        else _under_sync(sync_handler),
        _chain_async_model_call_handlers([async_model_layer])
        if async_handler is None
        else _under_async(async_handler),
    )


def _tool_under_sync(wrap: Any) -> Any:
    def composed(request: Any, execute: Any) -> Any:
        return wrap(request, lambda r: sync_tool_layer(r, execute))

    return composed


def _tool_under_async(wrap: Any) -> Any:
    async def composed(request: Any, execute: Any) -> Any:
        async def inner(r: Any) -> Any:
            return await async_tool_layer(r, execute)

        return await wrap(request, inner)

    return composed


def tool_layers(sync_wrap: Any, async_wrap: Any) -> tuple[Any, Any]:
    """A ``ToolNode``'s ``(wrap_tool_call, awrap_tool_call)`` with our layer innermost; an
    async one is added only when the node had no wrapper at all (else LangChain would stop
    using the app's sync middleware in an async run)."""
    new_sync = sync_tool_layer if sync_wrap is None else _tool_under_sync(sync_wrap)
    if async_wrap is not None:
        return new_sync, _tool_under_async(async_wrap)
    return new_sync, async_tool_layer if sync_wrap is None else None
