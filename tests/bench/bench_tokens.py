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

import tempfile
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from tests.bench.report import Clock, Figure, Timing, alternate, median, ratio_goal

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


def bare() -> Timing:
    from engine.checkpoint import InMemorySaver
    from engine.messages import HumanMessage

    agent = _agent(InMemorySaver())
    with Clock() as clock:
        out = agent.invoke(
            {"messages": [HumanMessage("talk")]}, {"configurable": {"thread_id": "t"}}
        )
    assert len(out["messages"][-1].text) > TOKENS
    return clock.timing


def recorded(workdir: Path, events: list[int]) -> Callable[[], Timing]:
    import sqlite3

    from engine.messages import HumanMessage
    from engine.recording import SessionRecorder

    counter = [0]

    def once() -> Timing:
        counter[0] += 1
        path = workdir / f"tokens-{counter[0]}.stepwise"
        with Clock() as clock:
            recorder = SessionRecorder(path)
            agent = _agent(recorder.checkpointer)
            recorder.attach(agent)
            agent.invoke({"messages": [HumanMessage("talk")]}, {"configurable": {"thread_id": "t"}})
            recorder.close()
        with sqlite3.connect(path) as conn:
            events.append(conn.execute("SELECT count(*) FROM session_events").fetchone()[0])
        conn.close()
        return clock.timing

    return once


def run() -> list[Figure]:
    events: list[int] = []
    with tempfile.TemporaryDirectory() as tmp:
        times = alternate({"bare": bare, "recorded": recorded(Path(tmp), events)}, ROUNDS)
    return [
        Figure(f"model streaming {TOKENS:,} tokens, nobody listening", median(times["bare"]), "s"),
        Figure(
            "  recorded into a session file (run + close)",
            median(times["recorded"]),
            "s",
            note=f"{events[-1]:,} event rows written",
        ),
        ratio_goal("  recorded vs not listened to", times, "recorded", "bare", 1.5),
    ]


if __name__ == "__main__":
    for f in run():
        print(f.line())
