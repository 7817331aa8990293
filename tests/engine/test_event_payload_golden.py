"""Every byte of seed 000's events and of its recorded session, against a golden.

``test_golden_events`` projects events onto their kinds and names; this one keeps every field
of every payload, so a faster way of building or delivering events cannot change what a
subscriber reads or what a session file holds.  Each event is rendered as JSON when it is
delivered and again after the run (a payload that aliases something the run changes later
would differ); the session's rows are read back from the file.  Only what differs from run to
run is normalized: ids (run, span, checkpoint, task, message ids) become ``<id N>`` in order of
first appearance, and times and durations become 0.

The golden ``tests/engine/golden/seed000_payloads.jsonl`` was generated with the eager
builders (before events were built lazily); regenerate with ``STEPWISE_REGOLD=1`` only after a
deliberate change to an event, and review the diff.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from pathlib import Path
from typing import Any

from engine.events import EventBase, event_to_json
from engine.messages import HumanMessage
from engine.recording import SessionRecorder
from resources.scenarios.retry_todos import INPUT, build_agent

GOLDEN = Path(__file__).parent / "golden" / "seed000_payloads.jsonl"

_ID = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"  # uuid
    r"|\b[0-9a-f]{7,32}\b"  # span ids, task ids, digests
)
_JSON_COLUMNS = {"data", "input", "output", "error", "next"}
_TIMES = {"ts", "mono_ns", "duration_ms", "latency_ms", "started", "finished"}
_TIME_FIELD = re.compile(r'"(ts|mono_ns|duration_ms|latency_ms)":-?[0-9.eE+-]+')


class _Ids:
    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def json_text(self, s: str) -> str:
        """A JSON text as it was written (key order, spacing), times and ids normalized."""
        return self.text(_TIME_FIELD.sub(lambda m: f'"{m.group(1)}":0', s))

    def text(self, s: str) -> str:
        return _ID.sub(lambda m: self.seen.setdefault(m.group(0), f"<id {len(self.seen)}>"), s)

    def value(self, v: Any) -> Any:
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if isinstance(v, dict):
            return {
                self.text(k): 0 if k in _TIMES and isinstance(x, int | float) else self.value(x)
                for k, x in v.items()
            }
        return v


def _lines(ids: _Ids, prefix: str, rows: list[Any]) -> list[str]:
    return [f"{prefix} {json.dumps(ids.value(r), sort_keys=True)}" for r in rows]


def _run(tmp: Path) -> tuple[list[str], list[str], list[dict[str, Any]]]:
    """(each event's JSON at delivery, after the run, the session file's rows)."""
    path = tmp / "seed.stepwise"
    recorder = SessionRecorder(path)
    agent = build_agent(initial_delay=0.0, checkpointer=recorder.checkpointer)
    delivered: list[str] = []
    events: list[EventBase] = []

    def listen(ev: EventBase) -> None:
        delivered.append(event_to_json(ev))
        events.append(ev)

    sub = agent.subscribe(listen)
    rec = recorder.attach(agent)
    agent.invoke({"messages": [HumanMessage(content=INPUT)]}, {"configurable": {"thread_id": "g"}})
    rec.close()
    sub.close()
    recorder.close()
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    rows: list[dict[str, Any]] = []
    for table, order in (
        ("session_runs", "id"),
        ("session_events", "run, seq"),
        ("session_checkpoints", "seq"),
    ):
        for r in conn.execute(f"SELECT * FROM {table} ORDER BY {order}"):
            d = {"table": table, **dict(r)}
            rows.append(d)
    conn.close()
    return delivered, [event_to_json(e) for e in events], rows


def _render(delivered: list[str], rows: list[dict[str, Any]]) -> str:
    ids = _Ids()
    out = [f"event {ids.json_text(t)}" for t in delivered]
    for row in rows:  # the recorded JSON texts byte for byte (but times and ids)
        texts = {k: ids.json_text(v) for k, v in row.items() if k in _JSON_COLUMNS and v}
        out += _lines(ids, "row", [{**row, **texts}])
    return "\n".join(out) + "\n"


def test_seed000_payloads_and_session_rows_match_the_golden(tmp_path: Path) -> None:
    delivered, after, rows = _run(tmp_path)
    assert after == delivered  # nothing an event holds changed after it was delivered
    text = _render(delivered, rows)
    if os.environ.get("STEPWISE_REGOLD"):
        GOLDEN.write_text(text, encoding="utf-8")
    expected = GOLDEN.read_text(encoding="utf-8")
    got, want = text.splitlines(), expected.splitlines()
    for i, (g, w) in enumerate(zip(got, want, strict=False)):
        assert g == w, f"line {i + 1} differs"
    assert len(got) == len(want)
