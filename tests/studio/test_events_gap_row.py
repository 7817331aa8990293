"""A run longer than the load limit opens on its start and its last events: the Events tree
marks the events left in the file with one row in their place, under the run's row, before
the first loaded superstep of its end (not an event: not counted, filtered or selected as
one)."""

from __future__ import annotations

from pathlib import Path

from engine.recording import Session
from studio.history.long_run import cut_run
from studio.models.run_gap import RunGap
from tests.studio.long_runs import record_loop


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
