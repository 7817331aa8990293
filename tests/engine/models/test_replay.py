"""ReplayChatModel: serve while requests match, then say so and hand over (or raise)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from engine.events import (
    ErrorInfo,
    EventBase,
    MiddlewareAction,
    ModelRequest,
    ModelResponse,
    event_to_dict,
)
from engine.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage, message_to_dict
from engine.models import (
    ChatModel,
    ReplayChatModel,
    ReplayDivergenceError,
    ScriptedChatModel,
    request_hash,
)
from engine.observe.bus import EventBus, RunEmitter

TOOLS = [{"name": "add", "description": "Add", "parameters": {"type": "object"}}]


async def run_agent(model: ChatModel, question: str, *, stream: bool = False) -> list[BaseMessage]:
    """A tiny agent loop: call the model, answer its tool calls, until it stops calling tools."""
    messages: list[BaseMessage] = [HumanMessage(question)]
    for _ in range(5):
        if stream:
            reply = [item async for item in model.astream(messages, tools=TOOLS)][-1]
        else:
            reply = await model.ainvoke(messages, tools=TOOLS)
        messages.append(reply)
        if not reply.tool_calls:
            break
        for call in reply.tool_calls:
            total = sum(call["args"].values())
            messages.append(ToolMessage(str(total), tool_call_id=call["id"] or ""))
    return messages


def live_model() -> ScriptedChatModel:
    return ScriptedChatModel(
        [
            AIMessage("", tool_calls=[{"name": "add", "args": {"a": 2, "b": 3}}]),
            "The sum is 5.",
        ],
        name="live",
    )


async def record(question: str = "2+3?") -> tuple[list[tuple[str, AIMessage]], list[BaseMessage]]:
    """Run with a live model and keep (request_hash, reply) pairs, as the agent's events would."""
    live = live_model()
    transcript = await run_agent(live, question)
    replies = [m for m in transcript if isinstance(m, AIMessage)]
    recorded = [
        (request_hash(c.messages, c.tools, c.tool_choice, c.response_format), reply)
        for c, reply in zip(live.calls, replies, strict=True)
    ]
    return recorded, transcript


@pytest.mark.parametrize("stream", [False, True])
async def test_matching_run_is_served_from_the_recording(stream: bool) -> None:
    recorded, original = await record()
    replay = ReplayChatModel(recorded)  # no fallback: any live call would raise
    again = await run_agent(replay, "2+3?", stream=stream)
    assert [m.text for m in again] == [m.text for m in original]
    replies = [m for m in again if isinstance(m, AIMessage)]
    assert [r.id for r in replies] == [r.id for r in original if isinstance(r, AIMessage)]
    assert all(r.response_metadata["replayed"] for r in replies)
    assert replay.served == 2 and replay.divergence is None


async def test_divergence_without_fallback_raises_a_clear_error() -> None:
    recorded, _ = await record()
    replay = ReplayChatModel(recorded)
    with pytest.raises(ReplayDivergenceError, match=r"call #1 differs from the recording"):
        await run_agent(replay, "7+1?")
    d = replay.divergence
    assert d is not None and d.call_index == 0
    assert d.expected_hash == recorded[0][0] and d.actual_hash != d.expected_hash
    with pytest.raises(ReplayDivergenceError):  # stays diverged
        await replay.ainvoke(["2+3?"], tools=TOOLS)


@pytest.mark.parametrize("stream", [False, True])
async def test_divergence_hands_over_to_the_fallback_for_good(stream: bool) -> None:
    recorded, _ = await record()
    fallback = ScriptedChatModel(["live answer", "another live answer"], name="fallback")
    replay = ReplayChatModel(recorded[:1], fallback=fallback)
    # call 1 matches the recording; call 2 (after the tool result) is past its end
    transcript = await run_agent(replay, "2+3?", stream=stream)
    assert transcript[-1].text == "live answer"
    assert replay.served == 1
    assert replay.divergence is not None
    assert replay.divergence.call_index == 1 and replay.divergence.expected_hash is None
    assert "past the end of the recording" in replay.divergence.describe()
    assert len(fallback.calls) == 1 and fallback.calls[0].tools == TOOLS
    # later calls go to the fallback even if they would match the recording again
    assert (await replay.ainvoke(["2+3?"], tools=TOOLS)).text == "another live answer"
    assert replay.model_name == "fallback"


async def test_divergence_is_announced_on_the_current_run() -> None:
    recorded, _ = await record()
    replay = ReplayChatModel(recorded, fallback=ScriptedChatModel(["live", "live again"]))
    bus = EventBus()
    seen: list[EventBase] = []
    bus.subscribe(seen.append)
    emitter = RunEmitter("run-1", "thread-1", [bus], loop=asyncio.get_running_loop())
    token = emitter.bind()
    try:
        await replay.ainvoke(["something else"], tools=TOOLS)
        await replay.ainvoke(["and more"], tools=TOOLS)  # announced once only
    finally:
        RunEmitter.unbind(token)
    actions = [e for e in seen if isinstance(e, MiddlewareAction)]
    assert len(actions) == 1
    [action] = actions
    assert (action.middleware, action.action) == ("ReplayChatModel", "replay_diverged")
    assert action.detail["call_index"] == 0
    assert action.detail["expected_hash"] == recorded[0][0]
    assert action.detail["actual_hash"] == request_hash(["something else"], TOOLS)
    assert action.run_id == "run-1"


def test_sync_invoke_diverging_inside_a_run_announces_from_another_loop() -> None:
    recorded = [("0" * 64, AIMessage("never served"))]
    replay = ReplayChatModel(recorded, fallback=ScriptedChatModel(["live"]))
    seen: list[tuple[EventBase, int]] = []

    async def main() -> str:
        bus = EventBus()
        bus.subscribe(lambda event: seen.append((event, threading.get_ident())))
        emitter = RunEmitter("run-2", None, [bus])
        token = emitter.bind()
        try:
            # a sync node running in a worker thread calls the sync API
            reply = await asyncio.to_thread(replay.invoke, ["hi"])
            await asyncio.sleep(0)  # let the handed-over event be delivered
            return reply.text
        finally:
            RunEmitter.unbind(token)

    assert asyncio.run(main()) == "live"
    # delivered by the run's own loop thread (here: this one), not the worker's private loop
    assert [(e.kind, thread) for e, thread in seen] == [
        ("middleware.action", threading.get_ident())
    ]


def model_events(pairs: list[tuple[str | None, AIMessage | None, str | None]]) -> list[EventBase]:
    """model.request / model.response events, one span per pair: (hash, message, error)."""
    events: list[EventBase] = []
    for i, (h, message, error) in enumerate(pairs):
        span = f"span-{i}"
        events.append(ModelRequest(run_id="r", span_id=span, model="m", request_hash=h))
        events.append(
            ModelResponse(
                run_id="r",
                span_id=span,
                model="m",
                message=message_to_dict(message) if message is not None else None,
                error=ErrorInfo(type="ModelTimeoutError", message="slow") if error else None,
            )
        )
    return events


@pytest.mark.parametrize("as_dicts", [False, True])
async def test_from_events_pairs_requests_with_responses(as_dicts: bool) -> None:
    recorded, original = await record()
    (h1, m1), (h2, m2) = recorded
    events = model_events(
        [
            (h1, None, "timeout"),  # a failed attempt, retried below: not replayed
            (h1, m1, None),
            (None, AIMessage("unhashed"), None),  # no hash: cannot be matched, left out
            (h2, m2, None),
        ]
    )
    # responses may arrive after other events; the pairing is by span, not position
    events.insert(1, MiddlewareAction(run_id="r", middleware="x", action="y"))
    source: list[Any] = [event_to_dict(e) for e in events] if as_dicts else events
    replay = ReplayChatModel.from_events(source)
    assert [h for h, _ in replay.recorded] == [h1, h2]
    assert [m.text for _, m in replay.recorded] == [m1.text, m2.text]
    assert replay.recorded[0][1].tool_calls == m1.tool_calls
    again = await run_agent(replay, "2+3?")
    assert [m.text for m in again] == [m.text for m in original]


def test_repr_mentions_progress() -> None:
    replay = ReplayChatModel([])
    assert repr(replay) == "ReplayChatModel(0/0 served, fallback=None)"
    assert replay.model_name == "replay"
