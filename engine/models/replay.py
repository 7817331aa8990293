"""``ReplayChatModel``: serve a recorded run's model responses again, deterministically and free.

``recorded`` is a list of ``(request_hash, AIMessage)`` pairs in call order.  Call *i* gets
recorded response *i* as long as its request hashes (``engine.models.hashing.request_hash``)
to the recorded hash.  On the first mismatch, or past the end of the recording, the model
*diverges*: it records ``divergence``, emits a ``MiddlewareAction(action="replay_diverged")``
on the current run (if any), and from then on hands every call to ``fallback`` (a live model),
or raises ``ReplayDivergenceError`` when there is none.

Replayed messages are served exactly as recorded (same message and tool-call ids, so the
conversation hashes the same as the original), with ``response_metadata["replayed"] = True``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.events import EventBase, MiddlewareAction
from engine.messages import AIMessage, AIMessageChunk, message_from_dict
from engine.models.base import BaseChatModel, ChatModel, ChatRequest, ModelProfile
from engine.models.errors import ReplayDivergenceError
from engine.models.hashing import request_hash
from engine.models.streaming import split_message
from engine.observe.bus import current_emitter, emit, emit_sync

__all__ = ["Divergence", "ReplayChatModel", "recorded_from_events"]


@dataclass(frozen=True)
class Divergence:
    """Where a replay left its recording."""

    call_index: int
    """0-based index of the call (and of the recorded response it should have matched)."""
    expected_hash: str | None
    """The recorded request's hash; None when the run went past the end of the recording."""
    actual_hash: str

    def describe(self) -> str:
        if self.expected_hash is None:
            return f"call #{self.call_index + 1} goes past the end of the recording (hash {self.actual_hash[:12]})"
        return (
            f"call #{self.call_index + 1} differs from the recording "
            f"(expected hash {self.expected_hash[:12]}, got {self.actual_hash[:12]})"
        )


def _field(event: EventBase | Mapping[str, Any], name: str) -> Any:
    return event.get(name) if isinstance(event, Mapping) else getattr(event, name, None)


def recorded_from_events(
    events: Iterable[EventBase | Mapping[str, Any]],
) -> list[tuple[str, AIMessage]]:
    """``(request_hash, message)`` pairs from a run's events, in request order.

    Each ``model.request`` is paired with the ``model.response`` of the same ``span_id``.
    Failed calls (a response with an error or without a message) and requests without a
    ``request_hash`` are left out: a retried call replays as its successful attempt.
    """
    pending: dict[str, str] = {}
    order: list[str] = []
    answers: dict[str, AIMessage] = {}
    for event in events:
        kind, span = _field(event, "kind"), _field(event, "span_id")
        if span is None:
            continue
        if kind == "model.request" and _field(event, "request_hash"):
            pending[span] = _field(event, "request_hash")
            order.append(span)
        elif kind == "model.response" and span in pending and not _field(event, "error"):
            data = _field(event, "message")
            if isinstance(data, Mapping):
                message = message_from_dict(dict(data))
                if isinstance(message, AIMessageChunk):
                    message = message.to_message()
                if isinstance(message, AIMessage):
                    answers[span] = message
    return [(pending[span], answers[span]) for span in order if span in answers]


class ReplayChatModel(BaseChatModel):
    """Replays recorded responses while requests match; then ``fallback`` takes over."""

    def __init__(
        self,
        recorded: Iterable[tuple[str, AIMessage]],
        *,
        fallback: ChatModel | None = None,
        name: str | None = None,
        profile: ModelProfile | None = None,
    ) -> None:
        model_name = name or (fallback.model_name if fallback is not None else "replay")
        super().__init__(
            model_name, profile=profile or (fallback.profile if fallback is not None else None)
        )
        self.recorded = list(recorded)
        self.fallback = fallback
        self.divergence: Divergence | None = None
        self.served = 0
        """How many calls were answered from the recording."""
        self._calls = 0
        self._lock = threading.Lock()

    @classmethod
    def from_events(
        cls,
        events: Iterable[EventBase | Mapping[str, Any]],
        *,
        fallback: ChatModel | None = None,
        name: str | None = None,
    ) -> ReplayChatModel:
        """A replay of the model calls recorded in ``events`` (see ``recorded_from_events``)."""
        return cls(recorded_from_events(events), fallback=fallback, name=name)

    def __repr__(self) -> str:
        state = "diverged" if self.divergence else f"{self.served}/{len(self.recorded)} served"
        return f"ReplayChatModel({state}, fallback={self.fallback!r})"

    def for_call(self, own: ChatModel | None) -> ChatModel:
        """The model one call of a run uses when this replay is the run's model override
        (``engine.graph.runtime.model_for``): the replay itself, whose fallback, when none was
        given, is the model that call would have used without the override (the agent's own)."""
        if self.fallback is not None or own is None or own is self:
            return self
        return _ReplayFor(self, own)

    def _match(self, request: ChatRequest) -> tuple[AIMessage | None, Divergence | None]:
        """The recorded reply for this call, or the divergence it causes (None if old news)."""
        actual = request_hash(
            request.messages, request.tools, request.tool_choice, request.response_format
        )
        with self._lock:
            index = self._calls
            self._calls += 1
            if self.divergence is not None:
                return None, None
            expected = self.recorded[index][0] if index < len(self.recorded) else None
            if expected == actual:
                self.served += 1
                message = self.recorded[index][1].model_copy(deep=True)
                message.response_metadata = {**message.response_metadata, "replayed": True}
                return message, None
            self.divergence = Divergence(index, expected, actual)
            return None, self.divergence

    async def _announce(self, divergence: Divergence, fallback: ChatModel | None) -> None:
        detail = {
            "call_index": divergence.call_index,
            "expected_hash": divergence.expected_hash,
            "actual_hash": divergence.actual_hash,
            "fallback": fallback.model_name if fallback is not None else None,
            "message": divergence.describe(),
        }
        fields = {"middleware": "ReplayChatModel", "action": "replay_diverged", "detail": detail}
        emitter = current_emitter()
        if emitter is not None and emitter.loop is not asyncio.get_running_loop():
            emit_sync(MiddlewareAction, **fields)  # called through a sync wrapper on another loop
        else:
            await emit(MiddlewareAction, **fields)

    async def _route(
        self, request: ChatRequest, fallback: ChatModel | None = None
    ) -> AIMessage | ChatModel:
        """The recorded reply, or the live model to ask instead."""
        fallback = fallback or self.fallback
        message, divergence = self._match(request)
        if message is not None:
            return message
        if divergence is not None:
            await self._announce(divergence, fallback)
        if fallback is None:
            what = self.divergence.describe() if self.divergence else "unknown call"
            raise ReplayDivergenceError(f"Replay diverged and there is no fallback model: {what}")
        return fallback

    async def _agenerate(
        self, request: ChatRequest, fallback: ChatModel | None = None
    ) -> AIMessage:
        route = await self._route(request, fallback)
        if isinstance(route, AIMessage):
            return route
        return await route.ainvoke(
            request.messages,
            tools=request.tools,
            tool_choice=request.tool_choice,
            response_format=request.response_format,
            **request.settings,
        )

    async def _astream(
        self, request: ChatRequest, fallback: ChatModel | None = None
    ) -> AsyncIterator[AIMessage]:
        route = await self._route(request, fallback)
        if isinstance(route, AIMessage):
            for chunk in split_message(route):
                yield chunk
            yield route
            return
        async for item in route.astream(
            request.messages,
            tools=request.tools,
            tool_choice=request.tool_choice,
            response_format=request.response_format,
            **request.settings,
        ):
            yield item


class _ReplayFor(BaseChatModel):
    """One call's view of a shared replay: recorded replies from ``replay`` (its counters and
    divergence are shared), then ``own`` (the agent's model) once the run has diverged."""

    def __init__(self, replay: ReplayChatModel, own: ChatModel) -> None:
        super().__init__(replay.model_name, profile=own.profile)
        self.replay = replay
        self.own = own

    async def _agenerate(self, request: ChatRequest) -> AIMessage:
        return await self.replay._agenerate(request, self.own)

    async def _astream(self, request: ChatRequest) -> AsyncIterator[AIMessage]:
        async for item in self.replay._astream(request, self.own):
            yield item
