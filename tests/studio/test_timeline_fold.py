"""The Timeline folds its oldest top-level checkpoints under one row, so a long thread's
Timeline updates as quickly as a short one's (``studio.qtmodels.timeline_fold``)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QTreeView

from studio.docks.timeline.view import TimelineDock
from studio.models.hub import Hub
from studio.models.timeline import Branch, CheckpointRecord, TimelineModel, iter_tree
from studio.qtmodels.timeline_fold import EarlierCheckpoints, TimelineFold
from studio.qtmodels.timeline_items import TimelineItemModel

KEEP, STEP = 4, 3
"""Small, so Qt's model tester (which walks the whole model at every signal) stays quick."""


@pytest.fixture(autouse=True)
def _small_fold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(TimelineFold, "KEEP", KEEP)
    monkeypatch.setattr(TimelineFold, "STEP", STEP)


def cid(i: int) -> str:
    return f"c{i:04d}"


def main_line(timeline: TimelineModel, start: int, stop: int) -> None:
    for i in range(start, stop):
        timeline.add(CheckpointRecord(cid(i), cid(i - 1) if i else None, i, "loop"))


def qt_items(model: TimelineItemModel, parent: QModelIndex | None = None) -> list[Any]:
    """Every row's item, depth first, each index's parent checked."""
    out: list[Any] = []
    parent = parent or QModelIndex()
    for row in range(model.rowCount(parent)):
        child = model.index(row, 0, parent)
        assert child.parent() == parent
        out.append(model.item(child))
        out += qt_items(model, child)
    return out


def test_oldest_checkpoints_fold_as_a_thread_grows(qapp: Any, qtmodeltester: Any) -> None:
    timeline = TimelineModel()
    model = TimelineItemModel(timeline)
    qtmodeltester.check(model)
    folds: list[int] = []
    model.folded.connect(lambda: folds.append(model.fold.count))
    main_line(timeline, 0, KEEP + STEP)
    assert model.rowCount() == KEEP + STEP and model.fold.row is None
    main_line(timeline, KEEP + STEP, KEEP + STEP + 1)
    assert folds == [STEP + 1] and model.rowCount() == 1 + KEEP
    earlier = model.item(model.index(0, 0))
    assert isinstance(earlier, EarlierCheckpoints)
    assert model.index(0, 0).data() == f"{STEP + 1} earlier checkpoints"
    assert "click to open" in model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)
    main_line(timeline, KEEP + STEP + 1, 6 * (KEEP + STEP))
    assert model.rowCount() <= 1 + KEEP + STEP
    items = [i for i in qt_items(model) if not isinstance(i, EarlierCheckpoints)]
    assert items == [item for _depth, item in iter_tree(timeline)]  # all there, in order
    for _depth, item in iter_tree(timeline):
        assert model.item(model.index_of(item)) is item


def test_a_fork_moves_with_its_fork_point_and_grows_there(qapp: Any) -> None:
    timeline = TimelineModel()
    model = TimelineItemModel(timeline)
    main_line(timeline, 0, 3)
    timeline.add(CheckpointRecord("f1", cid(1), 2, "fork"))  # a branch under c0001
    main_line(timeline, 3, KEEP + STEP + 2)
    fork_point = timeline.get(cid(1))
    assert model.index_of(fork_point).parent() == model.fold_index()
    timeline.add(CheckpointRecord("f2", "f1", 3, "loop"))  # the fork goes on, folded
    branch = model.item(model.index(0, 0, model.index_of(fork_point)))
    assert isinstance(branch, Branch)
    assert [model.item(model.index(r, 0, model.index_of(branch))) for r in range(2)] == [
        timeline.get("f1"),
        timeline.get("f2"),
    ]
    items = [i for i in qt_items(model) if not isinstance(i, EarlierCheckpoints)]
    assert items == [item for _depth, item in iter_tree(timeline)]


def test_a_loaded_thread_is_folded_at_once_and_other_roots_stay_last(qapp: Any) -> None:
    timeline = TimelineModel()
    model = TimelineItemModel(timeline)
    records = [CheckpointRecord(cid(i), cid(i - 1) if i else None, i, "loop") for i in range(20)]
    records.append(CheckpointRecord("other", None, 0, "input"))  # a second root: its branch
    resets: list[int] = []
    model.modelReset.connect(lambda: resets.append(model.rowCount()))
    timeline.load(records)
    assert resets == [1 + KEEP] and model.fold.count == 21 - KEEP
    main_line(timeline, 20, 21)  # the main line goes on: before the other root
    top = [model.item(model.index(r, 0)) for r in range(model.rowCount())]
    assert top[-1] is timeline.get("other").branch and top[-2] is timeline.get(cid(20))
    items = [i for i in qt_items(model) if not isinstance(i, EarlierCheckpoints)]
    assert items == [item for _depth, item in iter_tree(timeline)]


@pytest.fixture
def dock(qtbot: Any) -> TimelineDock:
    widget = TimelineDock(Hub())
    qtbot.addWidget(widget)
    widget.resize(500, 400)
    widget.show()
    return widget


def test_the_dock_opens_the_fold_to_select_and_reopens_folded_forks(dock: TimelineDock) -> None:
    hub, timeline, model, view = dock.hub, dock.timeline, dock.item_model, dock.view
    main_line(timeline, 0, 3)
    timeline.add(CheckpointRecord("f1", cid(1), 2, "fork"))
    fork_point = timeline.get(cid(1))
    view.expand(model.index_of(fork_point))
    hub.select_checkpoint(cid(2))
    main_line(timeline, 3, 3 * (KEEP + STEP))
    fold = model.fold_index()
    assert fold.isValid() and model.index_of(fork_point).parent() == fold
    assert view.isExpanded(model.index_of(fork_point))  # reopened after the move
    assert view.isExpanded(fold)  # to show the selected checkpoint, which it holds
    assert [model.item(i) for i in view.selectionModel().selectedRows()] == [timeline.get(cid(2))]
    dock._on_clicked(fold)  # a click on the fold's row closes it
    assert not view.isExpanded(fold) and not model.item(fold).open
    dock._on_clicked(fold)
    assert view.isExpanded(fold) and model.item(fold).open
    dock.follow_live()
    hub.select_checkpoint(cid(0))  # picked elsewhere (the Events dock, a search)
    view.collapse(fold)
    hub.select_checkpoint(cid(1))
    assert view.isExpanded(fold)


def test_following_the_live_tip_leaves_the_fold_closed(dock: TimelineDock, qtbot: Any) -> None:
    for i in range(3 * (KEEP + STEP)):
        main_line(dock.timeline, i, i + 1)
        qtbot.waitUntil(lambda: not dock._follow_timer.isActive())
    fold = dock.item_model.fold_index()
    assert fold.isValid() and not dock.view.isExpanded(fold)  # the rows moved in are old
    bar = dock.view.verticalScrollBar()
    assert bar.value() == bar.maximum()


def test_a_loaded_thread_opens_at_its_newest_checkpoint(
    dock: TimelineDock, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(TimelineFold, "KEEP", 40)  # more rows kept than the dock shows at once
    n = 200
    records = [CheckpointRecord(cid(i), cid(i - 1) if i else None, i, "loop") for i in range(n)]
    dock.timeline.load(records)  # a session opened, a thread picked
    qtbot.waitUntil(lambda: not dock._follow_timer.isActive())
    fold = dock.item_model.fold_index()
    assert fold.isValid() and not dock.view.isExpanded(fold)
    newest = dock.item_model.index_of(dock.timeline.get(cid(n - 1)))
    assert dock.view.viewport().rect().intersects(dock.view.visualRect(newest))
    assert dock.delegate.live_id == cid(n - 1) and dock.live_button.isChecked()
    dock.hub.select_checkpoint(cid(n - 1))  # a picked checkpoint is kept at a reload
    dock.timeline.load(records)
    assert [dock.item_model.item(i) for i in dock.view.selectionModel().selectedRows()] == [
        dock.timeline.get(cid(n - 1))
    ]


def test_the_fold_keeps_the_top_level_short_at_its_real_size(
    qapp: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.undo()
    keep, step = TimelineFold.KEEP, TimelineFold.STEP
    timeline = TimelineModel()
    model = TimelineItemModel(timeline)
    view = QTreeView()
    view.setUniformRowHeights(True)
    view.setModel(model)
    main_line(timeline, 0, 3 * (keep + step))
    view.scrollToBottom()
    assert keep < model.rowCount() <= 1 + keep + step
    assert model.fold.count + model.rowCount() - 1 == 3 * (keep + step)
