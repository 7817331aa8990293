"""The Events tree's cell painter draws exactly what the stock delegate draws (pixel for pixel,
with and without the app's theme), keeps each cell's look until the model says it changed, and
leaves selected cells to the stock painter."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QStyledItemDelegate

from engine.events import EventBase, ToolFinished, ToolStarted
from studio.docks.events.delegate import EventCellDelegate
from studio.docks.events.view import EventLogDock
from studio.models.hub import Hub
from tests.studio.event_samples import AgentScript, human, synthetic_stream


@pytest.fixture(params=["plain", "light", "dark"])
def theme(request: Any, qapp: QApplication) -> Iterator[str]:
    """No stylesheet (as the benches run) and both of the app's themes (as users see it)."""
    from studio.look.theme import apply_theme

    palette, sheet = qapp.palette(), qapp.styleSheet()
    if request.param != "plain":
        apply_theme(qapp, request.param)
    yield request.param
    qapp.setStyleSheet(sheet)
    qapp.setPalette(palette)


def shown_dock(qtbot: Any, events: list[EventBase]) -> EventLogDock:
    hub = Hub()
    dock = EventLogDock(hub)
    qtbot.addWidget(dock)
    dock.resize(900, 600)
    dock.show()
    qtbot.waitExposed(dock)
    hub.add_events(events)
    dock.view.expandAll()
    qtbot.waitUntil(lambda: not dock.model.unsynced)
    if len(events) > 40:  # laid out: more rows than fit, so the scroll bar shows
        qtbot.waitUntil(dock.view.verticalScrollBar().isVisible)
    return dock


def rendered(dock: EventLogDock) -> QImage:
    return dock.view.viewport().grab().toImage()


def stock_rendering(dock: EventLogDock) -> QImage:
    ours = dock.view.itemDelegate()
    stock = QStyledItemDelegate(dock.view)
    dock.view.setItemDelegate(stock)
    try:
        return rendered(dock)
    finally:
        dock.view.setItemDelegate(ours)


def test_the_events_tree_paints_with_the_cell_painter(qtbot: Any) -> None:
    dock = shown_dock(qtbot, list(synthetic_stream(60)))
    assert isinstance(dock.view.itemDelegate(), EventCellDelegate)


def test_cells_look_exactly_as_the_stock_delegate_draws_them(qtbot: Any, theme: str) -> None:
    # failed rows (a background tint), bold run rows, icons, right-aligned and elided columns
    dock = shown_dock(qtbot, list(synthetic_stream(400)))
    header = dock.view.header()
    header.resizeSection(1, 60)  # the Node column elides its text
    delegate = dock.delegate
    handed_on = delegate.stock_paints
    first = rendered(dock)  # from a cell's first paint on, painted from its look
    assert delegate.stock_paints == handed_on
    assert len(delegate._looks) > 20
    ours = rendered(dock)  # the second: from the kept looks
    assert delegate.stock_paints == handed_on
    assert ours == first == stock_rendering(dock)


def test_a_selected_row_is_left_to_the_stock_painter_and_looks_the_same(
    qtbot: Any, theme: str
) -> None:
    dock = shown_dock(qtbot, list(synthetic_stream(120)))
    rendered(dock)
    rendered(dock)  # every cell's look kept
    handed_on = dock.delegate.stock_paints
    flags = QItemSelectionModel.SelectionFlag
    row = dock.model.index(2, 0, dock.model.index(0, 0))
    dock.view.selectionModel().select(row, flags.Select | flags.Rows)
    ours = rendered(dock)
    assert dock.delegate.stock_paints - handed_on == len(dock.model.COLUMNS)  # that row's
    assert ours == stock_rendering(dock)


def test_a_cell_is_read_again_when_the_model_says_it_changed(qtbot: Any) -> None:
    s = AgentScript()
    s.start(human("hi", "m0"))
    s.open(ToolStarted, tool="read_file", tool_call_id="c1", args={"path": "a.txt"})
    dock = shown_dock(qtbot, list(s.events))
    rows = [r for r in dock.tree.rows if r.kind == "tool.started"]
    assert rows
    index = dock.model.index_of(rows[0], 3)
    rendered(dock)
    rendered(dock)
    assert (index.internalId(), 3) in dock.delegate._looks
    before = dock.delegate.look(index).text
    assert before == index.data(Qt.ItemDataRole.DisplayRole) == "…"  # still open

    changed: list[QModelIndex] = []
    dock.model.dataChanged.connect(lambda top, _bottom, *_: changed.append(top))
    s.close(ToolFinished, tool="read_file", tool_call_id="c1", status="success")
    dock.hub.add_events(s.events[-1:])
    qtbot.waitUntil(lambda: bool(changed) and not dock.model.unsynced)
    assert (index.internalId(), 3) not in dock.delegate._looks  # forgotten: read again
    after = dock.delegate.look(index).text
    assert after == index.data(Qt.ItemDataRole.DisplayRole) != before
    rendered(dock)
    assert rendered(dock) == stock_rendering(dock)


def test_the_look_cache_is_bounded(qtbot: Any) -> None:
    from studio.docks.events import delegate as module

    dock = shown_dock(qtbot, list(synthetic_stream(60)))
    model = dock.model
    looks = dock.delegate._looks
    for r in range(model.rowCount()):
        for c in range(model.columnCount()):
            dock.delegate.look(model.index(r, c))
    assert 0 < len(looks) <= module._LIMIT
    count = len(looks)
    dock.model.clear()
    assert len(looks) == 0 < count


def test_new_prices_or_tones_make_every_cell_read_again(qtbot: Any) -> None:
    # two runs: the model's "everything changed" spans several top-level rows
    events = list(synthetic_stream(60, run_id="r1")) + list(synthetic_stream(60, run_id="r2"))
    dock = shown_dock(qtbot, events)
    assert dock.model.rowCount() == 2
    rendered(dock)
    rendered(dock)
    looks = dock.delegate._looks
    assert looks
    dock.model.set_prices(dock.model.prices.with_overrides({}))
    assert not looks  # children's Cost cells too, not only the top-level rows'
    rendered(dock)
    rendered(dock)
    assert looks
    dock.model.set_palette(dock.view.palette())
    assert not looks
    rendered(dock)
    assert rendered(dock) == stock_rendering(dock)
