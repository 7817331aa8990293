"""A model streaming 100,000 tokens: recorded into a session file vs nobody listening.

The model streams its reply chunk by chunk (as a provider's streaming API does) and then
gives the whole message.  ``create_agent`` calls it once and the run ends.

- bare: no subscriber; the agent runs on an in-memory saver (the engine collects the stream
  into the reply, nothing else);
- recorded: a ``SessionRecorder`` attached, the agent on the recorder's ``SqliteSaver``; the
  time includes closing the recorder (every token event written, coalesced, committed).

The two are timed in turn and the figure is the median of the per-round ratios (issue 26
goal: <= 1.5x).

Run: ``.venv/bin/python -m tests.bench.bench_tokens``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from tests.bench.report import Figure, alternate, goal, median_ratio

TOKENS = 100_000
ROUNDS = 3


def _model() -> Any:
    from engine.messages import AIMessage, AIMessageChunk
    from engine.models.base import BaseChatModel, ChatRequest
    from engine.models.streaming import collect

    class TokenStream(BaseChatModel):
        """Streams ``TOKENS`` word tokens, then the whole reply."""

        async def _astream(self, request: ChatRequest) -> AsyncIterator[AIMessage]:
            chunks: list[AIMessageChunk] = []
            for i in range(TOKENS):
                chunk = AIMessageChunk(content=f" w{i % 1000}", id="reply")
                chunks.append(chunk)
                yield chunk
            final = collect(chunks)
            assert final is not None
            yield final

    return TokenStream("token-stream")


def _agent(checkpointer: Any) -> Any:
    from engine import create_agent

    return create_agent(_model(), [], checkpointer=checkpointer)


def bare() -> float:
    from engine.checkpoint import InMemorySaver
    from engine.messages import HumanMessage

    agent = _agent(InMemorySaver())
    t0 = time.perf_counter()
    out = agent.invoke({"messages": [HumanMessage("talk")]}, {"configurable": {"thread_id": "t"}})
    spent = time.perf_counter() - t0
    assert len(out["messages"][-1].text) > TOKENS
    return spent


def recorded(workdir: Path, events: list[int]) -> Callable[[], float]:
    import sqlite3

    from engine.messages import HumanMessage
    from engine.recording import SessionRecorder

    counter = [0]

    def once() -> float:
        counter[0] += 1
        path = workdir / f"tokens-{counter[0]}.stepwise"
        t0 = time.perf_counter()
        recorder = SessionRecorder(path)
        agent = _agent(recorder.checkpointer)
        recorder.attach(agent)
        agent.invoke({"messages": [HumanMessage("talk")]}, {"configurable": {"thread_id": "t"}})
        recorder.close()
        spent = time.perf_counter() - t0
        with sqlite3.connect(path) as conn:
            events.append(conn.execute("SELECT count(*) FROM session_events").fetchone()[0])
        conn.close()
        return spent

    return once


def run() -> list[Figure]:
    events: list[int] = []
    with tempfile.TemporaryDirectory() as tmp:
        times = alternate({"bare": bare, "recorded": recorded(Path(tmp), events)}, ROUNDS)
    ratio = median_ratio(times, "recorded", "bare")
    return [
        Figure(
            f"model streaming {TOKENS:,} tokens, nobody listening",
            statistics.median(times["bare"]),
            "s",
        ),
        Figure(
            "  recorded into a session file (run + close)",
            statistics.median(times["recorded"]),
            "s",
            note=f"{events[-1]:,} event rows written",
        ),
        goal("  recorded vs not listened to", ratio, 1.5),
    ]


if __name__ == "__main__":
    for f in run():
        print(f.line())
