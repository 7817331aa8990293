"""What every dock of a main window shows, as text: each item view's rows (every column, with
tooltips, every row fetched), labels, text boxes, buttons (text, enabled, checked), the Graph's
items (text, tooltip, state) and the Waterfall's bars, gaps and marks.  Tests compare two
windows' digests (the same session fed in pages or one event at a time, a live run and its
recording) to find a dock that shows something else."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractItemModel, QAbstractListModel, QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QGraphicsView,
    QLabel,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

__all__ = ["digest", "dock_digest"]

_TIP = Qt.ItemDataRole.ToolTipRole


def _rows(model: QAbstractItemModel, parent: QModelIndex, depth: int) -> list[str]:
    out: list[str] = []
    if model.canFetchMore(parent):
        model.fetchMore(parent)
    columns = 1 if isinstance(model, QAbstractListModel) else model.columnCount(parent)
    for r in range(model.rowCount(parent)):
        cells = []
        for c in range(columns):
            index = model.index(r, c, parent)
            cells.append(str(index.data()))
            tip = index.data(_TIP)
            if tip:
                cells.append(f"tip:{tip}")
        out.append("  " * depth + " | ".join(cells))
        out.extend(_rows(model, model.index(r, 0, parent), depth + 1))
    return out


def _scene(view: QGraphicsView) -> list[str]:
    out = []
    for item in view.scene().items():
        text = item.toPlainText() if hasattr(item, "toPlainText") else ""
        state = (
            repr(getattr(item, "_state", None)),
            getattr(item, "highlighted", None),
            getattr(item, "observed", None),
            repr(getattr(item, "route", None)),
        )
        out.append(f"{type(item).__name__}:{text}:{item.toolTip()}:{item.isVisible()}:{state}")
    return sorted(out)


def _waterfall(dock: Any) -> list[str]:
    out = []
    for lanes in dock.model.runs.values():
        out.append(f"run {lanes.label} pauses={lanes.pauses}")
        for row in lanes.rows:
            for b in row:
                parent = b.parent.label if b.parent else None
                out.append(
                    f" bar {b.family} {b.label} {b.start} {b.end} row={b.row} failed={b.failed}"
                    f" interrupted={b.interrupted} {b.detail!r} in={parent}"
                )
        out += [f" gap {g.after.label} -> {g.before.label} {g.delay_s}" for g in lanes.gaps]
        out += [f" mark {m.kind} {m.label} row={m.row} at={m.at}" for m in lanes.marks]
    return out


def digest(widget: QWidget, *, enabled: bool = True) -> list[str]:
    """One widget and its children as text lines (``enabled``: with buttons' enabled state)."""
    lines: list[str] = []
    for child in [widget, *widget.findChildren(QWidget)]:
        name = type(child).__name__
        if isinstance(child, QAbstractItemView) and child.model() is not None:
            lines += [f"[{name}]", *_rows(child.model(), QModelIndex(), 0)]
        elif isinstance(child, QLabel):
            lines.append(f"label:{child.text()}")
        elif isinstance(child, (QTextEdit, QPlainTextEdit)):
            lines.append(f"text:{child.toPlainText()}")
        elif isinstance(child, QGraphicsView) and child.scene() is not None:
            lines += [f"[{name}]", *_scene(child)]
        elif isinstance(child, QAbstractButton):
            on = f":{child.isEnabled()}" if enabled else ""
            lines.append(f"button:{child.text()}{on}:{child.isChecked()}")
    return lines


def dock_digest(window: Any, *, enabled: bool = True) -> dict[str, list[str]]:
    """Every dock's digest (the Graph, the window's centre, as ``"graph"``)."""
    out = {"graph": digest(window.centralWidget(), enabled=enabled)}
    for key, dock in window.docks.items():
        widget = dock.widget()
        out[key] = digest(widget, enabled=enabled)
        if key == "waterfall":
            out[key] += _waterfall(widget)
    return out
