"""A run longer than the load limit opens on its start and its last events: the Events tree
marks the events left in the file with one row in their place, under the run's row, before
the first loaded superstep of its end (not an event: not counted, filtered or selected as
one)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, Qt

from engine.recording import Session
from studio.history.long_run import cut_run
from studio.models.event_row import Row
from studio.models.run_gap import RunGap
from studio.qtmodels.event_fold import RootFold
from studio.qtmodels.event_tree import EventTreeModel
from tests.studio.app_agents import make_window, open_in_window, run_until
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


# -- the window --------------------------------------------------------------------------------


def test_a_cut_runs_middle_shows_as_one_row_in_the_events_tree(
    qtbot: Any, qloop: Any, tmp_path: Path, feed_limit: Callable[[int], None]
) -> None:
    path = tmp_path / "long.stepwise"
    total = record_loop(path)
    feed_limit(total // 4)
    window = make_window(qtbot, tmp_path)
    dock = open_in_window(qloop, window, path)
    hub, model, view, tree = window.hub, dock.model, dock.view, dock.tree
    older = hub.older_runs
    assert older is not None and older.gap is not None
    assert older.cut == total - len(hub.events) > 0
    # the first superstep of the run's end; every one before it stays in the file
    step = next(e for e in hub.events if e.kind == "superstep.started" and not e.ns)
    run = model.index(0, 0)
    run_row = tree.children(tree.root)[0]
    assert model.rowCount() == 1 and model.row_at(run) is run_row
    view.expand(run)
    gap = model.index(0, 0, run)  # the run's first row: what is missing, then what is not
    assert gap.data() == (
        f"{older.cut:,} events not loaded (supersteps 0–{step.step - 1} of this run stay in"
        " the file)"
    )
    assert model.is_gap(gap) and model.row_at(gap) is None
    after = model.index(1, 0, run)
    assert model.row_at(after) is tree.find(step.seq, step.run_id)
    assert after.data().startswith(f"superstep {step.step} ")
    assert model.rowCount(run) == len(run_row.children) + 1
    # a placeholder: muted, slanted, across the columns, with nothing below it
    assert gap.data(Qt.ItemDataRole.FontRole).italic()
    assert gap.data(Qt.ItemDataRole.ForegroundRole).color() == model._tones.muted
    assert view.isFirstColumnSpanned(0, run) and not model.hasChildren(gap)
    # not an event: every count is the events'
    assert _event_rows(model) == tree.rows
    assert tree.event_count == len(hub.events)
    status = dock.status.text()
    assert status.startswith(f"{len(hub.events):,} events · {len(tree.rows):,} rows · ")
    assert f"{older.cut:,} events in the middle of the newest run not loaded" in status

    # selecting it (a click) selects no event: the details say what it stands for
    picked: list[Any] = []
    dock.rowSelected.connect(picked.append)
    _click(qtbot, view, after)
    assert hub.selected_event is step and picked == [model.row_at(after)]
    _click(qtbot, view, gap)
    assert view.currentIndex() == gap and dock.selected_row() is None and picked[-1] is None
    assert hub.selected_event is step  # no event behind it: the other views keep theirs
    assert dock.details.toPlainText() == older.gap.note
    assert not dock.whatif_button.isEnabled()
    qtbot.keyClick(view, Qt.Key.Key_Down)  # on to the first loaded superstep
    assert dock.selected_row() is model.row_at(after) and hub.selected_event is step
    _click(qtbot, view, gap)
    # time travel from there: the checkpoint's row is selected, the State dock shows it
    saved = next(e for e in reversed(hub.events) if e.kind == "checkpoint.saved")
    hub.select_checkpoint(saved.checkpoint_id)
    assert dock.selected_row() is tree.find(saved.seq, saved.run_id)
    state = window.docks["state"].widget()
    run_until(qloop, lambda: state.title.text().startswith(f"Step {saved.step} "))

    # a filter keeps it under the run (the events it stands for were not searched either)
    dock.set_filter_text("check")
    dock._finish_job()
    run = model.index_of(run_row)
    assert model.is_gap(model.index(0, 0, run)) and view.isFirstColumnSpanned(0, run)
    assert "filtered" in dock.status.text() and tree.event_count == len(hub.events)
    view.expandAll()
    assert _event_rows(model) == sorted(
        (r for r in tree.rows if tree.is_visible(r)), key=lambda r: r.uid
    )
    dock.clear_filter()
    dock._finish_job()
    assert model.is_gap(model.index(0, 0, model.index_of(run_row)))


def _click(qtbot: Any, view: Any, index: QModelIndex) -> None:
    view.scrollTo(index)
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center()
    )


def test_no_gap_row_without_a_cut_run_and_none_once_another_session_opens(
    qtbot: Any, qloop: Any, tmp_path: Path, feed_limit: Callable[[int], None]
) -> None:
    cut_path, whole_path = tmp_path / "long.stepwise", tmp_path / "short.stepwise"
    total = record_loop(cut_path)
    record_loop(whole_path, turns=3)
    record_loop(whole_path, turns=3)  # a second run: the first is left out whole
    with Session.open(whole_path) as session:
        newest = session.count(session.runs("t")[-1].run_id)
    window = make_window(qtbot, tmp_path)
    feed_limit(newest)
    dock = open_in_window(qloop, window, whole_path)
    older = window.hub.older_runs
    assert older is not None and older.runs == 1 and not older.cut and older.gap is None
    assert not any(dock.model.is_gap(i) for i in all_indexes(dock.model))

    feed_limit(total // 4)
    dock = open_in_window(qloop, window, cut_path)
    assert dock.model.gap_index().isValid()
    feed_limit(newest)
    dock = open_in_window(
        qloop, window, whole_path
    )  # another session: the gap goes with the cut run
    assert dock.model.gap.gap is None and not dock.model.gap_index().isValid()
    assert not any(dock.model.is_gap(i) for i in all_indexes(dock.model))

    feed_limit(total // 4)
    dock = open_in_window(qloop, window, cut_path)
    window.hub.reset()
    assert dock.model.rowCount() == 0 and not dock.model.gap_index().isValid()
    assert dock.model.gap.gap is None


def test_time_travel_into_the_middle_left_in_the_file_selects_the_gap_row(
    qtbot: Any, qloop: Any, tmp_path: Path, feed_limit: Callable[[int], None]
) -> None:
    """A checkpoint picked on the Timeline whose events were left in the file: the Events dock
    stops following and shows where they are (the gap's row, its note in the details);
    "● Live" follows again."""
    path = tmp_path / "long.stepwise"
    total = record_loop(path)
    feed_limit(total // 4)
    window = make_window(qtbot, tmp_path)
    dock = open_in_window(qloop, window, path)
    hub, model, view = window.hub, dock.model, dock.view
    timeline = window.docks["timeline"].widget()
    run_until(qloop, lambda: hub.older_runs is not None and hub.older_runs.outline is not None)
    older = hub.older_runs
    assert older is not None and older.gap is not None and dock.follow
    # a checkpoint of the run's middle: on the Timeline, its checkpoint.saved not loaded
    nodes = [n for n in timeline.timeline.by_id.values() if n.step is not None]
    middle = [n for n in nodes if n.checkpoint_id not in hub.saved]
    assert middle and len(middle) < len(nodes)
    pick = middle[len(middle) // 2]
    index = timeline.item_model.index_of(pick)
    timeline.fold_row.reveal(index)
    _click(qtbot, timeline.view, index)
    assert hub.selected_checkpoint == pick.checkpoint_id
    assert view.currentIndex() == model.gap_index() and model.gap_index().isValid()
    assert dock.selected_row() is None and not dock.follow
    assert dock.details.toPlainText() == older.gap.note
    # a loaded checkpoint still selects its own row; Live follows again
    loaded = next(n for n in nodes if n.checkpoint_id in hub.saved)
    hub.select_checkpoint(loaded.checkpoint_id)
    saved = hub.saved[loaded.checkpoint_id]
    assert dock.selected_row() is dock.tree.find(saved.seq, saved.run_id)
    timeline.live_button.click()
    assert hub.selected_checkpoint is None and dock.follow


def test_a_checkpoint_picked_before_its_event_is_fed_is_shown_when_it_comes(
    qtbot: Any, tmp_path: Path
) -> None:
    """A long session feeds its loaded events page by page: a checkpoint picked on the Timeline
    before its ``checkpoint.saved`` is fed stops the log following and the status bar says its
    events are loading (it is not one of the runs left in the file); when it comes, its row is
    selected and the graph and the status bar count up to it as when every event was in."""
    import asyncio

    from studio.app.status_bar import RunStatusBar
    from studio.docks.events.view import EventLogDock
    from studio.docks.graph.panel import GraphPanel
    from studio.history.replay import open_session
    from studio.models.hub import Hub

    path = tmp_path / "long.stepwise"
    total = record_loop(path, turns=60)

    def opened_with_views() -> tuple[Any, Hub, EventLogDock, RunStatusBar, GraphPanel]:
        hub = Hub()
        views = EventLogDock(hub), RunStatusBar(hub), GraphPanel(hub)
        for view in views:
            qtbot.addWidget(view)
        opened = open_session(hub, path, feed_limit=total // 2, first_page=40, page_size=40)
        return opened, hub, *views

    # what the views show at the checkpoint picked once every event is in
    opened, hub, log, status, graph = opened_with_views()
    asyncio.run(opened.afeed_rest())
    picks = [c for c in hub.saved.values() if not c.ns]
    pick_late = picks[-3]
    hub.select_checkpoint(pick_late.checkpoint_id)
    whole = (graph.state.visits("step"), graph.state.visits("check"))
    assert whole[0] > 0
    opened.close()

    opened, hub, log, status, graph = opened_with_views()
    older = hub.older_runs
    assert older is not None and older.outline is not None
    with Session.open(path) as session:
        late = [c for c in session.checkpoints("t") if c.checkpoint_id not in hub.saved]
    coming = [c for c in late if older.place(c.checkpoint_id) == "loaded"]
    assert coming, "every loaded checkpoint was fed with the first page"
    pick = next(c for c in coming if c.checkpoint_id == pick_late.checkpoint_id)
    hub.select_checkpoint(pick.checkpoint_id)
    assert not log.follow and log.selected_row() is None
    note = status.message_label.full_text()
    assert note.startswith("Time travel: loading the events up to") and "not loaded" not in note
    asyncio.run(opened.afeed_rest())
    log.flush()
    saved = hub.saved[pick.checkpoint_id]
    assert log.selected_row() is log.tree.find(saved.seq, saved.run_id) and not log.follow
    # the graph counts the visits up to it as when every event was in first
    assert (graph.state.visits("step"), graph.state.visits("check")) == whole
    # the status bar counts it as any loaded checkpoint once its events are in
    assert status.message_label.full_text().startswith(f"Time travel: showing step {saved.step}")
    assert status.fields["step"].text() == f"Step {saved.step}"
    assert hub.older_before(pick.checkpoint_id) is older  # the part left out counts whole
    opened.close()
