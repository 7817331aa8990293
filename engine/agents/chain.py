"""Onion composition of ``wrap_model_call`` / ``wrap_tool_call`` layers, with wrapper events.

The first middleware is the outermost layer: ``[m1, m2, m3]`` enters ``m1 > m2 > m3`` and
leaves ``m3 < m2 < m1``.  Each layer gets a ``handler`` that runs the next layer (or, at the
bottom, the real model/tool call); a layer may call it zero times (short-circuit) or many
times (retry, fallback), and every call runs the inner layers again.

The bottom of the onion is always async and always runs on the event loop.  Under the async
API the layers' async variants (``awrap_*``) run there too.  Under the sync API the layers'
sync variants run on one worker thread (so blocking middleware never blocks the loop) and
the bottom is handed back to the loop.  Both paths share the event bookkeeping below.

A model-call layer may return an ``ExtendedModelResponse``: its ``command`` is collected (the
inner layers' commands first, then the layer's own) while the layer above sees only the
``ModelResponse``.  Commands collected by a handler call that is then retried are dropped.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.core.aio import call_on_loop, in_thread
from engine.core.foreign import is_foreign_message
from engine.errors import GraphBubbleUp
from engine.events import ErrorInfo, WrapperFinished, WrapperStarted
from engine.messages import AIMessage, ToolMessage, coerce_message
from engine.middleware.types import AgentMiddleware, ExtendedModelResponse, ModelResponse
from engine.observe.bus import RunEmitter, current_emitter, span
from engine.serde import to_jsonable
from engine.types import Command

__all__ = ["MODEL_CALL", "TOOL_CALL", "Chain", "WrapKind"]

Innermost = Callable[[Any], Coroutine[Any, Any, Any]]


Result = tuple[Any, list[Command]]
"""A layer's result: the value the layer above sees, and the commands collected so far."""


@dataclass(frozen=True)
class WrapKind:
    """What is being wrapped: the method name, how to check a layer's result, event fields."""

    wrapper: Literal["wrap_model_call", "wrap_tool_call"]
    normalize: Callable[[Any], Result]
    describe: Callable[[Any], dict[str, Any]]


def _ours(out: Any) -> Any:
    """A langchain_core message a layer returned (``from langchain_core.messages import
    ToolMessage``, as LangChain's docs write it) as ours; anything else as it is."""
    return coerce_message(out) if is_foreign_message(out) else out


def _model_result(out: Any) -> Result:
    out = _ours(out)
    if isinstance(out, ModelResponse):
        return out, []
    if isinstance(out, AIMessage):
        return ModelResponse([out]), []
    if isinstance(out, ExtendedModelResponse):
        return out.model_response, [out.command] if out.command is not None else []
    raise TypeError(
        f"wrap_model_call must return a ModelResponse or an AIMessage, got {type(out).__name__}"
    )


def _tool_result(out: Any) -> Result:
    out = _ours(out)
    if isinstance(out, ToolMessage | Command):
        return out, []
    raise TypeError(
        f"wrap_tool_call must return a ToolMessage or a Command, got {type(out).__name__}"
    )


def _tool_fields(request: Any) -> dict[str, Any]:
    call = request.tool_call
    return {"tool_call_id": call.get("id"), "tool": call.get("name")}


MODEL_CALL = WrapKind("wrap_model_call", _model_result, lambda _request: {})
TOOL_CALL = WrapKind("wrap_tool_call", _tool_result, _tool_fields)


class _Layer:
    """One entry into one layer: its span, handler-call count and events."""

    __slots__ = ("calls", "em", "fields", "span", "t0")

    def __init__(self, kind: WrapKind, m: AgentMiddleware, request: Any) -> None:
        em = current_emitter()
        self.em: RunEmitter | None = em if em is not None and em.active else None
        self.calls = 0
        self.span = span()
        self.fields: dict[str, Any] = {}
        self.t0 = 0.0
        if self.em is not None:
            self.fields = {"middleware": m.name, "wrapper": kind.wrapper, **kind.describe(request)}
            self.t0 = time.perf_counter()

    def started(self, depth: int) -> dict[str, Any]:
        return {
            "span_id": self.span.id,
            "parent_span_id": self.span.parent,
            "depth": depth,
            **self.fields,
        }

    def finished(
        self, exc: BaseException | None, commands: Sequence[Command] = ()
    ) -> dict[str, Any]:
        updates = [c.update for c in commands if c.update is not None]
        outcome = (
            "ok" if exc is None else "interrupted" if isinstance(exc, GraphBubbleUp) else "error"
        )
        return {
            "span_id": self.span.id,
            "parent_span_id": self.span.parent,
            "outcome": outcome,
            "handler_calls": self.calls,
            "error": ErrorInfo.from_exception(exc)
            if outcome == "error" and exc is not None
            else None,
            "duration_ms": (time.perf_counter() - self.t0) * 1000,
            "state_update": to_jsonable(updates[0] if len(updates) == 1 else updates)
            if updates
            else None,
            **self.fields,
        }


class Chain:
    """The layers of one wrapper kind, outermost first."""

    def __init__(self, kind: WrapKind, layers: Sequence[AgentMiddleware]) -> None:
        self.kind = kind
        self.layers = list(layers)
        self._sync_name = kind.wrapper
        self._async_name = f"a{kind.wrapper}"

    @property
    def names(self) -> list[str]:
        return [m.name for m in self.layers]

    async def run(self, request: Any, innermost: Innermost, *, sync: bool) -> Any:
        """Run the onion around ``innermost`` (sync layers on a worker thread when ``sync``)."""
        value, _commands = await self.run_collecting(request, innermost, sync=sync)
        return value

    async def run_collecting(self, request: Any, innermost: Innermost, *, sync: bool) -> Result:
        """Like ``run``, with the commands the layers returned (innermost layer's first)."""
        if not self.layers:
            return await innermost(request), []
        if sync:
            loop = asyncio.get_running_loop()
            return await in_thread(self._call_sync, 0, request, innermost, loop)
        return await self._call_async(0, request, innermost)

    async def _call_async(self, depth: int, request: Any, innermost: Innermost) -> Result:
        if depth == len(self.layers):
            return self.kind.normalize(await innermost(request))
        m = self.layers[depth]
        layer = _Layer(self.kind, m, request)
        inner: list[Command] = []

        async def handler(req: Any) -> Any:
            layer.calls += 1
            inner.clear()
            value, commands = await self._call_async(depth + 1, req, innermost)
            inner.extend(commands)
            return value

        if layer.em is not None:
            await layer.em.emit(WrapperStarted, **layer.started(depth))
        try:
            with layer.span:
                value, own = self.kind.normalize(
                    await getattr(m, self._async_name)(request, handler)
                )
        except BaseException as exc:
            if layer.em is not None:
                await layer.em.emit(WrapperFinished, **layer.finished(exc))
            raise
        if layer.em is not None:
            await layer.em.emit(WrapperFinished, **layer.finished(None, own))
        return value, [*inner, *own]

    def _call_sync(
        self, depth: int, request: Any, innermost: Innermost, loop: asyncio.AbstractEventLoop
    ) -> Result:
        if depth == len(self.layers):
            return self.kind.normalize(call_on_loop(innermost(request), loop))
        m = self.layers[depth]
        layer = _Layer(self.kind, m, request)
        inner: list[Command] = []

        def handler(req: Any) -> Any:
            layer.calls += 1
            inner.clear()
            value, commands = self._call_sync(depth + 1, req, innermost, loop)
            inner.extend(commands)
            return value

        if layer.em is not None:
            layer.em.emit_sync(WrapperStarted, **layer.started(depth))
        try:
            with layer.span:
                value, own = self.kind.normalize(getattr(m, self._sync_name)(request, handler))
        except BaseException as exc:
            if layer.em is not None:
                layer.em.emit_sync(WrapperFinished, **layer.finished(exc))
            raise
        if layer.em is not None:
            layer.em.emit_sync(WrapperFinished, **layer.finished(None, own))
        return value, [*inner, *own]
