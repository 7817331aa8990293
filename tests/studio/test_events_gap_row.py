"""A run longer than the load limit opens on its start and its last events: the Events tree
marks the events left in the file with one row in their place, under the run's row, before
the first loaded superstep of its end (not an event: not counted, filtered or selected as
one)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.recording import Session
from studio.history.long_run import cut_run
from studio.models.event_row import Row
from studio.models.run_gap import RunGap
from studio.qtmodels.event_fold import RootFold
from studio.qtmodels.event_tree import EventTreeModel
from tests.studio.long_runs import record_loop
from tests.studio.test_event_fold import run_events
from tests.studio.test_event_log_view import all_indexes


def test_the_gap_says_how_many_events_and_which_supersteps_stay_in_the_file() -> None:
    assert RunGap("r", 1, 5962, (0, 851)).label == (
        "5,962 events not loaded (supersteps 0–851 of this run stay in the file)"
    )
    assert RunGap("r", 1, 12, (3, 3)).label == (
        "12 events not loaded (superstep 3 of this run stays in the file)"
    )
    assert RunGap("r", 1, 12, None, 4).label == (
        "12 events not loaded (the start of superstep 4 of this run stays in the file)"
    )
    assert RunGap("r", 1, 12, (0, 3), 4).label == (
        "12 events not loaded (supersteps 0–3 and the start of superstep 4 of this run stay in"
        " the file)"
    )
    assert RunGap("r", 1, 1).label == "1 event of this run not loaded (it stays in the file)"
    assert RunGap("r", 1, 7).label == "7 events of this run not loaded (they stay in the file)"


def test_a_cut_run_knows_the_supersteps_it_leaves_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "long.stepwise"
    total = record_loop(path)
    with Session.open(path) as session:
        run = session.runs("t")[0].run_id
        cut = cut_run(session, run, total, total // 4)
        first = session.events(run, seq_from=cut.tail_from, limit=1)[0]
        # a limit so small that the last events start inside a superstep
        tiny = cut_run(session, run, total, 8)
    # its last events start with a root superstep: every one before it stays in the file
    assert first.kind == "superstep.started" and not first.ns and first.step is not None
    assert cut.gap() == RunGap(run, 1, cut.skipped, (0, first.step - 1))
    opener = tiny.head[-1]
    assert opener.kind == "superstep.started" and opener.step is not None
    assert opener.seq < tiny.tail_from - 1  # some of its events stay in the file
    assert tiny.gap() == RunGap(run, 1, tiny.skipped, (0, opener.step - 1), opener.step)


# -- the Events model ---------------------------------------------------------------------------


def test_the_gap_row_comes_first_under_its_run_and_stays_there(
    qapp: Any, qtmodeltester: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Set before its run arrives, the gap waits for the run's row; it stays first under it
    while the run is folded with the older runs, and goes with a ``set_gap(None)``."""
    monkeypatch.setattr(RootFold, "KEEP", 2)
    monkeypatch.setattr(RootFold, "STEP", 2)
    model = EventTreeModel()
    qtmodeltester.check(model)  # re-checked at every signal below
    cut = run_events(0)
    gap = RunGap("run-0", cut[0].seq, 1234, (0, 41))
    model.set_gap(gap)
    model.add_events(cut[:1])  # the run's start: its row, the gap under it
    model.add_events(cut[1:])
    run = model.index(0, 0)
    run_row = model.tree.children(model.tree.root)[0]
    assert model.row_at(run) is run_row and model.rowCount(run) == len(run_row.children) + 1
    first = model.index(0, 0, run)
    assert model.is_gap(first) and model.row_at(first) is None and first.parent() == run
    assert first.data() == gap.label and not model.hasChildren(first)
    assert model.row_at(model.index(1, 0, run)) is run_row.children[0]
    assert model.uids(run, 0, 1) == [first.internalId(), run_row.children[0].uid]
    assert _event_rows(model) == model.tree.rows  # the gap is no event row
    for i in range(1, 8):  # the cut run is folded with the older runs
        model.add_events(run_events(i))
    qtmodeltester.check(model)
    run = model.index_of(run_row)
    assert run.parent() == model.fold_index()
    assert model.is_gap(model.index(0, 0, run)) and model.gap_index().parent() == run
    assert _event_rows(model) == model.tree.rows
    model.set_gap(None)
    assert model.rowCount(run) == len(run_row.children) and not model.gap_index().isValid()
    model.set_gap(gap)  # its run's row known: inserted at once
    assert model.is_gap(model.index(0, 0, run)) and model.gap_index().isValid()
    model.clear()
    assert model.gap.gap is None and model.rowCount() == 0


def _event_rows(model: EventTreeModel) -> list[Row]:
    """The event rows Qt can reach, in tree order, each index's parent checked."""
    rows = []
    for idx in all_indexes(model):
        assert model.index(idx.row(), 0, idx.parent()) == idx
        row = model.row_at(idx)
        if row is not None:
            rows.append(row)
    return sorted(rows, key=lambda r: r.uid)
