"""A large session opens without reading its events, and pages correctly by seq and by kind."""

from __future__ import annotations

import sqlite3

import pytest

from engine.events import event_to_json
from engine.recording import Session, SessionRecorder
from tests.engine.recording.helpers import every_kind

N_A = 150_000  # events of run A
N_B = 50_000  # events of run B
KINDS = ("node.started", "route", "state.updated", "checkpoint.saved")
RUN_A = "01a1ff00-0000-7000-8000-00000000000a"
RUN_B = "01a1ff00-0000-7000-8000-00000000000b"


def _kind_of(seq: int) -> str:
    return KINDS[seq % len(KINDS)]


@pytest.fixture(scope="module")
def big_session(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "big.stepwise"
    templates = {e.kind: e for e in every_kind()}
    with SessionRecorder(path) as rec:  # the runs (and the schema) through the recorder
        for rid in (RUN_A, RUN_B):
            rec.record(templates["run.started"].model_copy(update={"run_id": rid, "span_id": rid}))
    conn = sqlite3.connect(path)
    runs = dict(conn.execute("SELECT run_id, id FROM session_runs"))
    rows = []
    for rid, n in ((RUN_A, N_A), (RUN_B, N_B)):
        for seq in range(2, n + 1):
            kind = _kind_of(seq)
            ev = templates[kind].model_copy(update={"run_id": rid, "seq": seq, "step": seq // 10})
            rows.append(
                (
                    runs[rid],
                    seq,
                    kind,
                    seq // 10,
                    "model",
                    None,
                    None,
                    float(seq),
                    event_to_json(ev),
                )
            )
    conn.executemany(
        "INSERT INTO session_events(run, seq, kind, step, node, span_id, parent_span_id, ts, data) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    conn.commit()
    conn.close()
    return path


def test_counts(big_session):
    with Session.open(big_session) as s:
        assert s.count() == N_A + N_B
        assert s.count(RUN_A) == N_A and s.count(RUN_B) == N_B
        assert s.last_seq(RUN_A) == N_A
        expected_routes = sum(1 for q in range(2, N_A + 1) if _kind_of(q) == "route")
        assert s.count(RUN_A, kinds=["route"]) == expected_routes
        assert s.count(kinds=[]) == 0
        assert [r.run_id for r in s.runs()] == [RUN_A, RUN_B]


def test_page_by_seq_range(big_session):
    with Session.open(big_session) as s:
        page = s.events(RUN_A, seq_from=120_000, limit=1000)
        assert [e.seq for e in page] == list(range(120_000, 121_000))
        assert all(e.run_id == RUN_A for e in page)
        assert [e.kind for e in page] == [_kind_of(q) for q in range(120_000, 121_000)]
        tail = s.events(RUN_A, seq_from=N_A - 5, limit=1000)
        assert [e.seq for e in tail] == list(range(N_A - 5, N_A + 1))
        bounded = s.events(RUN_B, seq_from=10, seq_to=19, limit=None)
        assert [e.seq for e in bounded] == list(range(10, 20))
        assert s.events(RUN_A, seq_from=N_A + 1) == []


def test_page_with_offset_and_across_runs(big_session):
    with Session.open(big_session) as s:
        page = s.event_json(limit=10, offset=N_A - 5)
        ids = [(e.run_id, e.seq) for e in (s._decode(t) for t in page)]
        assert ids == [(RUN_A, q) for q in range(N_A - 4, N_A + 1)] + [
            (RUN_B, q) for q in range(1, 6)
        ]


def test_page_by_kind(big_session):
    with Session.open(big_session) as s:
        page = s.events(RUN_B, kinds=["checkpoint.saved"], seq_from=40_000, limit=50)
        expected = [q for q in range(40_000, N_B + 1) if _kind_of(q) == "checkpoint.saved"][:50]
        assert [e.seq for e in page] == expected
        assert {e.kind for e in page} == {"checkpoint.saved"}


def test_page_by_several_kinds_across_runs(big_session):
    with Session.open(big_session) as s:
        wanted = ("route", "checkpoint.saved")
        page = s.events(kinds=wanted, limit=6, offset=s.count(RUN_A, kinds=wanted) - 3)
        got = [(e.run_id, e.seq) for e in page]
        tail_a = [q for q in range(2, N_A + 1) if _kind_of(q) in wanted][-3:]
        head_b = [q for q in range(2, N_B + 1) if _kind_of(q) in wanted][:3]
        assert got == [(RUN_A, q) for q in tail_a] + [(RUN_B, q) for q in head_b]
        it = s.iter_event_json(kinds=wanted, page_size=1000)
        assert sum(1 for _ in it) == s.count(kinds=wanted)


def test_keyset_iteration_visits_every_event_once_in_order(big_session):
    with Session.open(big_session) as s:
        seen = []
        for text in s.iter_event_json(kinds=["state.updated"], page_size=4096):
            seen.append(text)
        expected_a = [q for q in range(2, N_A + 1) if _kind_of(q) == "state.updated"]
        expected_b = [q for q in range(2, N_B + 1) if _kind_of(q) == "state.updated"]
        assert len(seen) == len(expected_a) + len(expected_b)
        first_b = s._decode(seen[len(expected_a)])
        assert (first_b.run_id, first_b.seq) == (RUN_B, expected_b[0])
        last = s._decode(seen[-1])
        assert (last.run_id, last.seq) == (RUN_B, expected_b[-1])
        # a whole run, decoded, page by page
        seqs = [e.seq for e in s.iter_events(RUN_B, page_size=7000)]
        assert seqs == list(range(1, N_B + 1))


def test_queries_use_the_indexes(big_session):
    """The reader's own queries (traced) search an index; none scans or sorts the table."""
    with Session.open(big_session) as s:
        traced: list[str] = []
        s._conn.set_trace_callback(traced.append)
        s.events(RUN_A, seq_from=100, limit=10)
        s.events(RUN_A, kinds=["route"], limit=10)
        s.events(kinds=["route"], limit=10)
        next(s.iter_event_json(kinds=["route"], page_size=10))
        next(s.iter_event_json(kinds=["route", "state.updated"], page_size=10))
        next(s.iter_event_json(RUN_B, page_size=10))
        s._conn.set_trace_callback(None)
        queries = [q for q in traced if "FROM session_events" in q and "ORDER BY" in q]
        assert len(queries) == 6
        for sql in queries:
            plan = " ".join(r[3] for r in s._conn.execute("EXPLAIN QUERY PLAN " + sql))
            assert "SEARCH session_events USING" in plan, (sql, plan)
            assert "SCAN" not in plan and "TEMP B-TREE" not in plan, (sql, plan)
