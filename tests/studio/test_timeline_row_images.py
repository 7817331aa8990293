"""The Timeline draws each row once per look and copies it after: the copies are the same
pixels as drawing every row afresh (lanes, fork curves, chips, markers, the live tag, a
selected row), a repaint draws nothing new, and a row whose look changed is drawn again."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

from engine.messages import AIMessage
from studio.history.timetravel import aresume_from
from studio.qtmodels.timeline_delegate import TimelineDelegate
from studio.qtmodels.timeline_items import ITEM_ROLE
from tests.studio.tt_studio import make_studio, seed_input


class FreshRows(TimelineDelegate):
    """Draws every row afresh, as the Timeline did before it kept row images (and parts of
    rows: ``fresh_rendering`` turns its ``tails`` off)."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Any) -> None:
        state = option.state  # type: ignore[attr-defined]
        self.paint_row(
            painter,
            option.rect,  # type: ignore[attr-defined]
            index.data(ITEM_ROLE),
            bool(state & QStyle.StateFlag.State_Selected),
            bool(state & QStyle.StateFlag.State_MouseOver),
            self._fonts_for(option.font),  # type: ignore[attr-defined]
        )


def rendered(view: Any) -> QImage:
    return view.viewport().grab().toImage()


def fresh_rendering(dock: Any) -> QImage:
    ours = dock.view.itemDelegate()
    fresh = FreshRows(dock.view, dock.hub.theme)
    fresh.live_id, fresh.collapsed, fresh.c = ours.live_id, ours.collapsed, ours.c
    fresh.tails.enabled = False  # every part of a row drawn in place, none copied
    dock.view.setItemDelegate(fresh)
    try:
        return rendered(dock.view)
    finally:
        dock.view.setItemDelegate(ours)


def test_row_images_are_the_pixels_of_fresh_rows(qtbot: Any, qloop: Any) -> None:
    s = make_studio(qtbot)
    dock = s.timeline
    dock.resize(520, 520)
    dock.show()
    qtbot.waitExposed(dock)
    qloop.run_until_complete(s.agent.ainvoke(seed_input(), s.hub.config()))
    qtbot.waitUntil(lambda: len(s.main_nodes) > 4)
    first = rendered(dock.view)
    delegate = dock.delegate
    drawn = delegate.rows.drawn
    assert drawn > 4 and first == fresh_rendering(dock)
    assert rendered(dock.view) == first and delegate.rows.drawn == drawn  # copies only

    # a fork (a lane and a curve), a selected row, the live tag moved to another row
    node = s.after_write_todos()
    s.model.push(AIMessage("Only login.tsx is needed; stopping here."))
    qloop.run_until_complete(aresume_from(s.agent, "t1", node.checkpoint_id))
    qtbot.waitUntil(lambda: len(dock.timeline.branches) == 2)
    dock.view.expandAll()
    dock.view.setCurrentIndex(dock.item_model.index_of(node))
    delegate.live_id = node.checkpoint_id
    dock.view.viewport().update()
    assert rendered(dock.view) == fresh_rendering(dock)
    assert delegate.rows.drawn > drawn
    assert delegate.rows.drawn > drawn


def test_a_new_theme_draws_every_row_again(qtbot: Any, qloop: Any) -> None:
    s = make_studio(qtbot)
    dock = s.timeline
    dock.show()
    qtbot.waitExposed(dock)
    qloop.run_until_complete(s.agent.ainvoke(seed_input(), s.hub.config()))
    qtbot.waitUntil(lambda: len(s.main_nodes) > 4)
    light = rendered(dock.view)
    assert len(dock.delegate.rows)
    dock.delegate.set_theme("dark")
    assert len(dock.delegate.rows) == 0
    dark = rendered(dock.view)
    assert dark != light and dark == fresh_rendering(dock)
