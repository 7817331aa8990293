"""Session files stay small: token events are coalesced, large state values are referenced."""

from __future__ import annotations

import copy
from pathlib import Path

from engine.agents import create_agent
from engine.events import ModelToken
from engine.messages import AIMessage, HumanMessage
from engine.models import ScriptedChatModel
from engine.recording import Session, SessionRecorder
from engine.recording.compact import TokenCoalescer, coalesce_tokens
from engine.tools import tool

RUN = "01a1ff00-0000-7000-8000-0000000000aa"


def _token(seq: int, text: str, span: str) -> ModelToken:
    return ModelToken(run_id=RUN, seq=seq, ts=float(seq), span_id=span, model="m", text=text)


def test_adjacent_tokens_of_one_call_become_one_event(tmp_path: Path) -> None:
    path = tmp_path / "t.stepwise"
    with SessionRecorder(path, flush_interval=60) as rec:  # one batch, written at close
        for i in range(500):
            rec.record(_token(i + 1, f"w{i} ", "call-a"))
        rec.record(_token(501, "other", "call-b"))
        rec.record(_token(502, " more", "call-a"))
    with Session.open(path) as s:
        events = list(s.iter_events())
    # the first 200 tokens of a call are kept one by one; the rest of the run is one event
    assert [e.seq for e in events[:200]] == list(range(1, 201))
    assert [(e.span_id, e.seq) for e in events[200:]] == [
        ("call-a", 201),
        ("call-b", 501),
        ("call-a", 502),
    ]
    text = "".join(e.text for e in events if e.span_id == "call-a")  # type: ignore[attr-defined]
    assert text == "".join(f"w{i} " for i in range(500)) + " more"


def test_tokens_can_be_kept_one_per_event(tmp_path: Path) -> None:
    path = tmp_path / "t.stepwise"
    with SessionRecorder(path, flush_interval=60, coalesce_tokens=False) as rec:
        for i in range(5):
            rec.record(_token(i + 1, "x", "call-a"))
    with Session.open(path) as s:
        assert s.count() == 5


BIG = "y" * 2_000_000


@tool
def fetch(url: str) -> str:
    """Fetch a (very large) page."""
    return BIG


def test_a_large_tool_result_is_stored_once(tmp_path: Path) -> None:
    model = ScriptedChatModel(
        [
            AIMessage(content="", tool_calls=[{"name": "fetch", "args": {"url": "u"}, "id": "c1"}]),
            "done",
        ]
    )
    path = tmp_path / "big.stepwise"
    with SessionRecorder(path) as rec:
        agent = copy.copy(create_agent(model, [fetch]))
        agent.checkpointer = rec.checkpointer
        rec.attach(agent)
        agent.invoke(
            {"messages": [HumanMessage(content="go")]}, {"configurable": {"thread_id": "t"}}
        )
    with Session.open(path) as s:
        event_bytes = sum(len(t) for t in s.iter_event_json())
        assert event_bytes < 200_000  # the events refer to the value, they do not copy it
        updates = [
            t for t in s.iter_event_json(kinds=["state.updated"]) if "characters in all" in t
        ]
        assert updates and "the full value is in the checkpoint of step" in updates[0]
        messages = s.state("t")["messages"]
        assert any(getattr(m, "content", None) == BIG for m in messages)


class _CountedText(str):
    """A token's text that counts how often its length is taken."""

    calls = 0

    def __len__(self) -> int:
        _CountedText.calls += 1
        return str.__len__(self)


def test_coalescing_looks_at_each_token_a_bounded_number_of_times() -> None:
    from engine.recording.compact import MAX_TOKEN_TEXT

    n = 5_000
    batch = []
    for i in range(n):
        ev = _token(i + 1, "w ", "call-a")
        ev.__dict__["text"] = _CountedText("w ")  # validation would make it a plain str
        batch.append((ev, None))
    _CountedText.calls = 0
    out = coalesce_tokens(batch, keep=0)
    assert _CountedText.calls <= 3 * n, "the pending text must not be re-measured per token"
    assert len(out) == 1 and out[0][0].text == "w " * n  # type: ignore[attr-defined]
    # and a long run still splits at MAX_TOKEN_TEXT characters
    big = [(_token(i + 1, "z" * 1000, "call-a"), None) for i in range(150)]
    parts = coalesce_tokens(big, keep=0)
    assert [len(e.text) for e, _ in parts] == [MAX_TOKEN_TEXT // 1000 * 1000] * 2 + [  # type: ignore[attr-defined]
        150_000 - 2 * (MAX_TOKEN_TEXT // 1000 * 1000)
    ]


def test_a_token_run_split_across_write_batches_is_written_as_one_batch_writes_it() -> None:
    events = [(_token(i + 1, f" t{i}", "call-a"), None) for i in range(300)]
    whole = coalesce_tokens(events, keep=100)
    for cut in (0, 50, 100, 101, 250, 299, 300):
        split = TokenCoalescer(keep=100)
        out = split.feed(events[:cut], final=False) + split.feed(events[cut:], final=False)
        assert split.holding  # the run may still grow: held, not written
        out += split.feed([], final=True)
        assert [(e.seq, e.text) for e, _ in out] == [(e.seq, e.text) for e, _ in whole], cut  # type: ignore[attr-defined]
    assert len(whole) == 101
