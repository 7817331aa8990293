"""How one row of the event tree looks beyond its text: its status icon and its tooltip."""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap

from studio.look.tones import Tones
from studio.models.event_row import Row
from studio.models.event_summary import error_text

__all__ = ["draw_gap_icon", "draw_icon", "row_tooltip"]


def row_tooltip(row: Row) -> str:
    """A row's tooltip: its summary, errors, failure below, pauses, and its events."""
    lines = [row.summary()]
    for ev in row.events:
        err = getattr(ev, "error", None)  # declared by the closing and failing events
        if err is not None:
            lines.append(error_text(err, 400))
    if row.contains_failure and not row.failed:
        lines.append("Contains a failure (expand to see it).")
    for pause in row.pauses or ():
        why = pause.breakpoint or pause.reason or "step"
        lines.append(f"The run paused here (#{pause.seq}): {why}")
    seqs = ", ".join(f"#{e.seq} {e.kind}" for e in row.events)
    if row.tokens:
        seqs += f", {row.tokens} model.token"
    lines.append(seqs)
    return "\n".join(lines)


def _canvas() -> tuple[QPixmap, QPainter]:
    """A transparent 14 px icon at twice the pixels, and an antialiased painter on it."""
    ratio = 2.0
    pm = QPixmap(int(14 * ratio), int(14 * ratio))
    pm.setDevicePixelRatio(ratio)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    return pm, p


def draw_icon(t: Tones, family: str, span: bool, state: int) -> QIcon:
    """A 14 px status dot: family hue; ring while open; red with a cross if failed; a red
    corner dot if something inside failed; amber bars if interrupted."""
    pm, p = _canvas()
    hue = QColor(t.family(family))
    c = QPointF(7, 7)
    radius = 4.6 if span else 2.8
    if state == 3:
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(t.failed)
        p.drawEllipse(c, 5.4, 5.4)
        pen = QPen(QColor("#ffffff"), 1.6)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        p.setPen(pen)
        p.drawLine(QPointF(5, 5), QPointF(9, 9))
        p.drawLine(QPointF(9, 5), QPointF(5, 9))
    elif state == 4:
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(t.interrupted)
        p.drawEllipse(c, 5.4, 5.4)
        p.setBrush(QColor("#ffffff"))
        p.drawRect(5, 4, 1.4, 6)  # type: ignore[call-overload]
        p.drawRect(7.6, 4, 1.4, 6)  # type: ignore[call-overload]
    elif state == 1:
        p.setPen(QPen(hue, 1.8))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawEllipse(c, radius - 0.6, radius - 0.6)
    else:
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(hue)
        p.drawEllipse(c, radius, radius)
        if state == 2:  # something inside failed: a red ring and a red corner dot
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.setPen(QPen(t.failed, 1.3))
            p.drawEllipse(c, radius + 1.6, radius + 1.6)
            p.setPen(QPen(t.panel, 1.0))
            p.setBrush(t.failed)
            p.drawEllipse(QPointF(10.8, 10.8), 2.6, 2.6)
    p.end()
    return QIcon(pm)


def draw_gap_icon(t: Tones) -> QIcon:
    """The 14 px mark of a row in place of events not loaded: three muted dots (an ellipsis
    where an event's status dot would be)."""
    pm, p = _canvas()
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(t.muted)
    for x in (3.0, 7.0, 11.0):
        p.drawEllipse(QPointF(x, 7), 1.3, 1.3)
    p.end()
    return QIcon(pm)
