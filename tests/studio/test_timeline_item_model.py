"""The Timeline's Qt item model mirrors ``TimelineModel`` row for row (checkpoints, fork
branches under their fork points, extra roots after the main nodes) through inserts, updates
and resets, and the tree view lays its rows out without calling into Python for each row."""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QTreeView

from studio.models.timeline import CheckpointRecord, TimelineModel, iter_tree
from studio.qtmodels.timeline_fold import TimelineFold
from studio.qtmodels.timeline_items import ITEM_ROLE, TimelineItemModel


def _rec(cid: str, parent: str | None, step: int, source: str = "loop") -> CheckpointRecord:
    return CheckpointRecord(cid, parent, step, source)


def _qt_tree(model: TimelineItemModel, parent: QModelIndex | None = None) -> list[Any]:
    """(depth, item) of every row, depth first, as the view reads them."""
    out: list[Any] = []

    def walk(index: QModelIndex, depth: int) -> None:
        for row in range(model.rowCount(index)):
            child = model.index(row, 0, index)
            assert child.parent() == index
            out.append((depth, model.item(child)))
            walk(child, depth + 1)

    walk(parent or QModelIndex(), 0)
    return out


def _same(model: TimelineItemModel) -> None:
    assert _qt_tree(model) == list(iter_tree(model.timeline))
    for _depth, item in iter_tree(model.timeline):
        index = model.index_of(item)
        assert model.item(index) is item and index.data(ITEM_ROLE) is item


def test_rows_follow_inserts_forks_roots_updates_and_resets(qtbot: Any) -> None:
    timeline = TimelineModel()
    model = TimelineItemModel(timeline)
    inserted: list[tuple[int, int]] = []
    changed: list[Any] = []
    model.rowsInserted.connect(lambda _p, first, last: inserted.append((first, last)))
    model.dataChanged.connect(lambda top, _bottom, *_: changed.append(model.item(top)))
    for i, cid in enumerate("abcd"):
        timeline.add(_rec(cid, None if i == 0 else "abcd"[i - 1], i))
    _same(model)
    assert inserted == [(0, 0), (1, 1), (2, 2), (3, 3)]
    timeline.add(_rec("e", "b", 2, "fork"))  # a branch under b
    timeline.add(_rec("f", "e", 3))
    timeline.add(_rec("g", "b", 2, "fork"))  # a second fork of b
    timeline.add(_rec("r", None, 0, "input"))  # another root, after the main nodes
    timeline.add(_rec("h", "d", 4))  # the main branch goes on: before that root
    _same(model)
    fork_point = timeline.get("b")
    assert model.rowCount(model.index_of(fork_point)) == 2
    assert timeline.mark("c", "error", "boom")
    assert changed == [timeline.get("c")]
    assert "boom" in model.index_of(timeline.get("c")).data(Qt.ItemDataRole.ToolTipRole)
    resets: list[int] = []
    model.modelReset.connect(lambda: resets.append(model.rowCount()))
    timeline.load([_rec("x", None, 0), _rec("y", "x", 1), _rec("z", "x", 1, "fork")])
    assert resets == [2]  # one reset, its rows all there when the view hears of it
    _same(model)
    timeline.load([])
    assert model.rowCount() == 0 and model.columnCount() == 1


def test_laying_out_a_long_timeline_does_not_call_python_per_row(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 600 rows at the top level, none folded (``timeline_fold`` would keep 250 of them there)
    monkeypatch.setattr(TimelineFold, "KEEP", 10_000)
    timeline = TimelineModel()
    timeline.load([_rec(f"c{i:05d}", f"c{i - 1:05d}" if i else None, i) for i in range(600)])
    view = QTreeView()
    qtbot.addWidget(view)
    view.setUniformRowHeights(True)
    view.setModel(TimelineItemModel(timeline, view))
    view.resize(300, 200)
    view.show()
    qtbot.waitExposed(view)
    calls = 0

    def count(_frame: FrameType, event: str, _arg: Any) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    timeline.add(_rec("c00600", "c00599", 600))  # a live run's new checkpoint
    sys.setprofile(count)
    try:
        view.doItemsLayout()  # what the view does after every insertion
    finally:
        sys.setprofile(None)
    assert view.model().rowCount() == 601
    assert calls < 60  # it was three calls a row (index, flags twice): 1,800
