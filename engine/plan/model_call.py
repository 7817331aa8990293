"""One model call, observable: ``model.request`` / ``model.response`` events around it."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from engine.events import ErrorInfo, ModelRequest, ModelResponse
from engine.graph.runtime import model_for
from engine.messages import AIMessage, BaseMessage, SystemMessage
from engine.models.base import ChatModel
from engine.models.hashing import request_hash
from engine.models.resolve import as_chat_model
from engine.observe.bus import current_emitter, span
from engine.serde import to_jsonable

__all__ = ["call_model"]

LAST_MESSAGES = 3


async def call_model(
    model: ChatModel,
    messages: Sequence[BaseMessage],
    *,
    response_format: Mapping[str, Any] | None = None,
) -> AIMessage:
    """``model.ainvoke(messages, response_format=...)``, with events when a run is listening."""
    model = as_chat_model(model_for(model))
    em = current_emitter()
    if em is None or not em.active:
        return await model.ainvoke(messages, response_format=response_format)
    name = getattr(model, "model_name", type(model).__name__)
    system = next((m.text for m in messages if isinstance(m, SystemMessage)), None)
    fmt = None
    if response_format is not None:
        fmt = str(response_format.get("json_schema", {}).get("name") or response_format.get("type"))
    with span() as s:
        await em.emit(
            ModelRequest,
            span_id=s.id,
            parent_span_id=s.parent,
            model=name,
            messages_count=len(messages),
            system_prompt=system,
            last_messages=[to_jsonable(m, max_str=4000) for m in messages[-LAST_MESSAGES:]],
            response_format=fmt,
            request_hash=request_hash(messages, response_format=response_format),
        )
        t0 = time.perf_counter()
        try:
            reply = await model.ainvoke(messages, response_format=response_format)
        except Exception as exc:
            await em.emit(
                ModelResponse,
                span_id=s.id,
                parent_span_id=s.parent,
                model=name,
                error=ErrorInfo.from_exception(exc),
                latency_ms=(time.perf_counter() - t0) * 1000,
            )
            raise
        await em.emit(
            ModelResponse,
            span_id=s.id,
            parent_span_id=s.parent,
            model=name,
            message=to_jsonable(reply),
            usage=reply.usage_metadata,
            latency_ms=(time.perf_counter() - t0) * 1000,
        )
    return reply
