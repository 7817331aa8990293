"""``SteadyHeader``: a tree view's header copied from a picture of itself while its look is the
same (the tree view repaints its header at every relayout of its rows), drawn afresh when a
section, a title or the palette changes; the same pixels as the stock header."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QColor, QImage, QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QApplication, QTreeView

from studio.widgets.steady_header import SteadyHeader, steady_header


def _settle(qtbot: Any) -> None:
    for _ in range(3):
        QApplication.processEvents()
        qtbot.wait(10)


def _view(qtbot: Any, steady: bool) -> tuple[QTreeView, QStandardItemModel]:
    view = QTreeView()
    qtbot.addWidget(view)
    if steady:
        steady_header(view)
    model = QStandardItemModel(0, 3, view)
    model.setHorizontalHeaderLabels(["Event", "Node", "Time"])
    view.setModel(model)
    view.header().resizeSection(0, 120)
    view.setGeometry(300, 300, 360, 400)  # away from the pointer (a header under it is Qt's own)
    view.show()
    qtbot.waitExposed(view)
    _settle(qtbot)
    return view, model


def _pixels(view: QTreeView) -> QImage:
    return view.grab().toImage().convertToFormat(QImage.Format.Format_ARGB32)


def _add_rows(model: QStandardItemModel, n: int) -> None:
    for i in range(n):
        model.appendRow([QStandardItem(f"event {i}"), QStandardItem("node"), QStandardItem("+0.1")])


def test_the_header_is_set_as_the_tree_views_own_and_drawn_the_same(qtbot: Any) -> None:
    stock, stock_model = _view(qtbot, steady=False)
    view, model = _view(qtbot, steady=True)
    header = view.header()
    assert isinstance(header, SteadyHeader)
    own = stock.header()
    assert header.sectionsMovable() == own.sectionsMovable()
    assert header.stretchLastSection() == own.stretchLastSection()
    assert header.defaultAlignment() == own.defaultAlignment()
    assert header.isFirstSectionMovable() == own.isFirstSectionMovable()
    for m in (stock_model, model):
        _add_rows(m, 5)
    qtbot.waitUntil(lambda: header.pictures >= 1)
    header.viewport().repaint()  # from the picture
    assert _pixels(view) == _pixels(stock)


def test_new_rows_repaint_the_header_from_its_picture(qtbot: Any) -> None:
    view, model = _view(qtbot, steady=True)
    header = view.header()
    assert isinstance(header, SteadyHeader)
    qtbot.waitUntil(lambda: header.pictures >= 1)  # drawn once shown
    drawn = header.pictures
    for _ in range(4):  # each batch of rows lays the tree out again, and repaints its header
        _add_rows(model, 3)
        _settle(qtbot)
        header.viewport().repaint()  # a new look would start drawing a new picture here
        QApplication.processEvents()
    assert header.pictures == drawn


def test_a_new_section_size_title_or_palette_draws_the_header_afresh(qtbot: Any) -> None:
    stock, stock_model = _view(qtbot, steady=False)
    view, model = _view(qtbot, steady=True)
    header = view.header()
    assert isinstance(header, SteadyHeader)
    qtbot.waitUntil(lambda: header.pictures >= 1)  # drawn once shown
    drawn = header.pictures
    for v in (stock, view):
        v.header().resizeSection(0, 90)
    qtbot.waitUntil(lambda: header.pictures == drawn + 1)
    assert _pixels(view) == _pixels(stock)
    for m in (stock_model, model):
        m.setHorizontalHeaderLabels(["Event", "Node", "When"])
    qtbot.waitUntil(lambda: header.pictures == drawn + 2)
    assert _pixels(view) == _pixels(stock)
    # a palette change drops the picture (the app's stylesheet, when a test left one, may
    # paint the sections the same whatever the palette: the pixels are what must match)
    palette = QPalette(view.palette())
    palette.setColor(QPalette.ColorRole.Button, QColor("#204060"))
    for v in (stock, view):
        v.header().setPalette(palette)
    assert header._picture is None
    _settle(qtbot)
    assert _pixels(view) == _pixels(stock)
