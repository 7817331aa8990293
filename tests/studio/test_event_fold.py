"""The Events tree folds its older top-level rows under one row, so a long session's log
updates as quickly as a short one's (``studio.qtmodels.event_fold``)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QTreeView

from engine.events import ErrorInfo, EventBase, ToolFinished, ToolStarted
from studio.models.event_filter import EventFilter
from studio.qtmodels.event_fold import RootFold
from studio.qtmodels.event_tree import EventTreeModel
from tests.studio.event_samples import AgentScript, human
from tests.studio.test_event_log_view import all_indexes

KEEP, STEP = 4, 3
"""Small, so Qt's model tester (which walks the whole model at every signal) stays quick."""


@pytest.fixture(autouse=True)
def _small_fold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(RootFold, "KEEP", KEEP)
    monkeypatch.setattr(RootFold, "STEP", STEP)


def script(i: int) -> AgentScript:
    """A script for run ``run-i`` (span ids of its own)."""
    s = AgentScript(run_id=f"run-{i}")
    s._ids = itertools.count(1000 * i + 1)
    return s


def run_events(i: int, *, fail: bool = False) -> list[EventBase]:
    """One small run (``run-i``): a superstep with a tool call that fails (and is retried:
    the run goes on) with ``fail``."""
    s = script(i)
    s.start(human(f"turn {i}", f"m{i}"))
    s.superstep("tools")
    s.open(ToolStarted, tool="create_file", tool_call_id=f"c{i}")
    error = ErrorInfo(type="OSError", message="disk full") if fail else None
    s.close(ToolFinished, tool="create_file", tool_call_id=f"c{i}", error=error)
    s.end_superstep("tools", [], [])
    s.finish()
    return s.events


def all_rows(model: EventTreeModel) -> list[Any]:
    """Every row Qt can reach (None for the fold's own), each index's parent checked."""
    out = []
    for idx in all_indexes(model):
        assert model.index(idx.row(), 0, idx.parent()) == idx
        out.append(model.row_at(idx))
    return out


def test_older_runs_fold_under_one_row_as_runs_stream_in(qapp: Any, qtmodeltester: Any) -> None:
    model = EventTreeModel()
    qtmodeltester.check(model)  # re-checked on every signal below, the moves included
    for i in range(KEEP + STEP):
        model.add_events(run_events(i))
    assert model.rowCount() == KEEP + STEP and not model.fold.on  # nothing folded yet
    model.add_events(run_events(KEEP + STEP))
    qtmodeltester.check(model)
    fold = model.index(0, 0)
    assert model.is_fold(fold) and model.row_at(fold) is None
    assert fold.data() == f"{STEP + 1} earlier runs"
    assert model.rowCount() == 1 + KEEP
    assert model.rowCount(fold) == STEP + 1
    runs = model.tree.children(model.tree.root)
    # the oldest under the fold, in order; the newest at the top level
    assert [model.row_at(model.index(r, 0, fold)) for r in range(STEP + 1)] == runs[: STEP + 1]
    assert [model.row_at(model.index(r, 0)) for r in range(1, 1 + KEEP)] == runs[STEP + 1 :]
    for i in range(KEEP + STEP + 1, 10 * (KEEP + STEP)):
        model.add_events(run_events(i))
    qtmodeltester.check(model)
    assert model.rowCount() <= 1 + KEEP + STEP  # bounded: the view's relayout is too
    assert sorted(r.uid for r in all_rows(model) if r is not None) == [
        r.uid for r in model.tree.rows
    ]


def test_what_is_open_and_selected_in_a_run_stays_so_when_it_is_folded(qapp: Any) -> None:
    model = EventTreeModel()
    view = QTreeView()
    view.setModel(model)
    for i in range(10):
        model.add_events(run_events(i))
    old_run = model.tree.children(model.tree.root)[3]
    step = old_run.children[-2]  # the superstep (after the input checkpoint and state rows)
    view.expand(model.index_of(old_run))
    view.setCurrentIndex(model.index_of(step))
    for i in range(10, KEEP + STEP + 5):
        model.add_events(run_events(i))
    assert model.fold.on and model.fold.folded(model.tree.visible_index(old_run))
    assert view.isExpanded(model.index_of(old_run))
    assert model.row_at(view.currentIndex()) is step
    assert view.currentIndex().parent().parent() == model.fold_index()


def test_a_failure_in_a_folded_run_marks_the_fold(qapp: Any) -> None:
    model = EventTreeModel()
    late = script(0)  # fails once folded
    late.start(human("turn 0", "m0"))
    late.superstep("tools")
    late.open(ToolStarted, tool="create_file", tool_call_id="c0")
    model.add_events(late.events)
    model.add_events(run_events(1, fail=True))
    for i in range(2, KEEP + STEP + 3):
        model.add_events(run_events(i))
    fold = model.index(0, 0)
    assert model.is_fold(fold) and fold.data(model.FailedRole) == 1  # run 1: a failure inside
    changed: list[QModelIndex] = []
    model.dataChanged.connect(lambda a, *_: changed.append(a))
    done = len(late.events)
    late.close(ToolFinished, tool="create_file", tool_call_id="c0")
    late.end_superstep("tools", [], [], status="error")
    late.finish("error")
    model.add_events(late.events[done:])
    run0 = model.tree.children(model.tree.root)[0]
    assert run0.failed and model.fold.folded(0)
    assert any(model.row_at(i) is run0 for i in changed)  # its row, under the fold
    assert any(model.is_fold(i) for i in changed)
    assert fold.data(model.FailedRole) == 2
    assert model.index(0, 0).data(Qt.ItemDataRole.ForegroundRole).color() == model._tones.failed


def test_a_filter_starts_the_fold_over_and_reveals_in_place(qapp: Any, qtmodeltester: Any) -> None:
    model = EventTreeModel()
    late = script(1)  # fails once the filter is on: revealed among the folded runs
    late.start(human("turn 1", "m1"))
    late.superstep("tools")
    late.open(ToolStarted, tool="create_file", tool_call_id="c1")
    model.add_events(run_events(0, fail=True))
    model.add_events(late.events)
    n = 3 * (KEEP + STEP)
    for i in range(2, n):
        model.add_events(run_events(i, fail=i % 2 == 0))
    model.set_filter(EventFilter(failures_only=True))
    # (checked from here on: Qt's tester fetches rows while it checks a reset, then finds the
    # rows it fetched inserted "during the reset", with or without a fold)
    qtmodeltester.check(model)
    kept = model.tree.children(model.tree.root)
    assert [r.event.run_id for r in kept] == [f"run-{i}" for i in range(0, n, 2)]
    assert model.fold.on and model.fold.count == len(kept) - KEEP
    assert model.rowCount() == 1 + KEEP and all_rows(model).count(None) == 1
    folded = model.fold.count
    done = len(late.events)
    late.close(
        ToolFinished, tool="create_file", tool_call_id="c1", error=ErrorInfo(type="E", message="x")
    )
    model.add_events(late.events[done:])
    assert model.fold.count == folded + 1  # run 1 joined the folded runs, in its place
    fold = model.index(0, 0)
    assert [model.row_at(model.index(r, 0, fold)).event.run_id for r in range(3)] == [
        "run-0",
        "run-1",
        "run-2",
    ]
    assert model.rowCount() == 1 + KEEP


def test_clearing_the_filter_folds_every_run_again(qapp: Any) -> None:
    model = EventTreeModel()
    n = 3 * (KEEP + STEP)
    for i in range(n):
        model.add_events(run_events(i, fail=i % 2 == 0))
    model.set_filter(EventFilter(failures_only=True))
    assert model.fold.count == len(range(0, n, 2)) - KEEP
    model.set_filter(EventFilter())
    assert model.rowCount() == 1 + KEEP and model.fold.count == n - KEEP
    assert model.index(0, 0).data() == f"{n - KEEP} earlier runs"


def test_the_fold_keeps_the_top_level_short_at_its_real_size(
    qapp: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.undo()
    keep, step = RootFold.KEEP, RootFold.STEP
    model = EventTreeModel()
    view = QTreeView()
    view.setModel(model)
    for i in range(3 * (keep + step)):
        model.add_events(run_events(i))
        view.scrollToBottom()  # lays the tree out, as following the log does
    assert model.fold.on and keep < model.rowCount() <= 1 + keep + step
    assert model.rowCount() + model.fold.count - 1 == 3 * (keep + step)
    assert model.index(0, 0).data() == f"{model.fold.count} earlier runs"


def test_the_events_dock_follows_past_the_fold_and_selects_inside_it(qtbot: Any) -> None:
    from studio.docks.events.view import EventLogDock
    from studio.models.hub import Hub

    dock = EventLogDock(Hub())
    qtbot.addWidget(dock)
    dock.resize(900, 600)
    dock.show()
    qtbot.waitExposed(dock)
    n = 3 * (KEEP + STEP)
    runs = [run_events(i) for i in range(n)]
    for events in runs:
        dock.hub.add_events(events)
        qtbot.waitUntil(lambda: not dock.busy)
    model, view = dock.model, dock.view
    assert model.fold.on and model.rowCount() <= 1 + KEEP + STEP
    bar = view.verticalScrollBar()
    assert bar.value() == bar.maximum()  # following: the newest run is in view, open
    assert view.isExpanded(model.index_of(dock.tree.rows[-1].parent))
    assert not view.isExpanded(model.fold_index())
    old = runs[1][3]  # an event of a folded run, picked elsewhere (the Timeline, a search)
    assert dock.select_seq(old.seq, old.run_id)
    picked = dock.selected_row()
    assert picked is not None and picked.event is old
    assert view.isExpanded(model.fold_index())  # opened to show it
    view.setCurrentIndex(model.fold_index())  # the fold's own row: no event to detail
    assert dock.selected_row() is None
    assert dock.details.toPlainText().startswith(f"{model.fold.count} earlier runs, folded")
