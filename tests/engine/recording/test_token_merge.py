"""Token events merged at the source for the recorder: the session holds what it held before."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

from engine import create_agent
from engine.checkpoint import InMemorySaver
from engine.debug import Debugger
from engine.events import EventBase
from engine.messages import AIMessage, AIMessageChunk, HumanMessage
from engine.models.base import BaseChatModel, ChatRequest
from engine.models.streaming import collect
from engine.observe.token_runs import TokenMerge
from engine.recording import Session, SessionRecorder

TOKENS = 1_000


class Streaming(BaseChatModel):
    """Streams ``TOKENS`` chunks (one with a tool-call fragment), then the whole reply."""

    async def _astream(self, request: ChatRequest) -> AsyncIterator[AIMessage]:
        chunks: list[AIMessageChunk] = []
        for i in range(TOKENS):
            chunk = AIMessageChunk(content=f" t{i}", id="reply")
            chunks.append(chunk)
            yield chunk
        final = collect(chunks)
        assert final is not None
        yield final


def _record(path: Path, *, extra_subscriber: bool) -> list[tuple[int, str, str]]:
    seen: list[EventBase] = []
    with SessionRecorder(path, flush_interval=60) as rec:  # one write batch: a stable grouping
        agent = create_agent(Streaming("s"), [], checkpointer=rec.checkpointer)
        rec.attach(agent)
        if extra_subscriber:  # a listener that wants every token: no merging at the source
            agent.subscribe(seen.append)
        agent.invoke({"messages": [HumanMessage("go")]}, {"configurable": {"thread_id": "t"}})
    if extra_subscriber:
        assert sum(e.kind == "model.token" for e in seen) == TOKENS
    with Session.open(path) as s:
        return [(e.seq, e.kind, getattr(e, "text", "")) for e in s.iter_events()]


def test_the_session_is_the_same_whether_tokens_merge_at_the_source_or_in_the_writer(
    tmp_path: Path,
) -> None:
    merged = _record(tmp_path / "merged.stepwise", extra_subscriber=False)
    one_by_one = _record(tmp_path / "one.stepwise", extra_subscriber=True)
    assert merged == one_by_one
    tokens = [row for row in merged if row[1] == "model.token"]
    assert len(tokens) == 201  # the first 200 one by one, then the rest as one event
    assert "".join(t[2] for t in tokens) == "".join(f" t{i}" for i in range(TOKENS))


class Collector:
    """A subscriber that takes merged tokens by the given rule."""

    def __init__(self, rule: TokenMerge) -> None:
        self.merge_tokens = rule
        self.events: list[EventBase] = []

    def __call__(self, ev: EventBase) -> None:
        self.events.append(ev)


def _run(rule: TokenMerge, debugger: Debugger | None = None) -> list[EventBase]:
    collector = Collector(rule)
    agent = create_agent(Streaming("s"), [], checkpointer=InMemorySaver())
    agent.subscribe(collector)
    agent.invoke(
        {"messages": [HumanMessage("go")]}, {"configurable": {"thread_id": "t"}}, debugger=debugger
    )
    return collector.events


def test_merged_tokens_keep_their_seq_numbers_and_come_before_the_next_event() -> None:
    events = _run(TokenMerge(keep=10, max_text=50, interval=60.0))
    seqs = [e.seq for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    tokens = [e for e in events if e.kind == "model.token"]
    assert all(len(t.text) == len(f" t{i}") for i, t in enumerate(tokens[:10]))  # type: ignore[attr-defined]
    assert all(len(t.text) <= 50 for t in tokens[10:])  # type: ignore[attr-defined]
    assert "".join(t.text for t in tokens) == "".join(f" t{i}" for i in range(TOKENS))  # type: ignore[attr-defined]
    after = events[events.index(tokens[-1]) + 1]
    assert after.kind == "model.response"
    # every token took its number: the response comes TOKENS numbers after the request
    request = next(e for e in events if e.kind == "model.request")
    assert after.seq == request.seq + TOKENS + 1


def test_a_merged_token_event_is_delivered_once_its_interval_passed() -> None:
    tokens = [
        e for e in _run(TokenMerge(keep=0, max_text=10**6, interval=0.0)) if e.kind == "model.token"
    ]
    assert len(tokens) == TOKENS  # each token's interval passed before the next one came


def test_a_watching_debugger_gets_every_token_event() -> None:
    dbg = Debugger()
    dbg.break_on_interrupt()  # something to watch for: every event passes its gate
    tokens = [
        e
        for e in _run(TokenMerge(keep=0, max_text=10**6, interval=60.0), dbg)
        if e.kind == "model.token"
    ]
    assert len(tokens) == TOKENS
