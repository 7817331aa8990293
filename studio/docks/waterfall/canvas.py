"""The Waterfall's drawing surface: one run's bars on a time axis, with a ruler.

``WaterfallCanvas`` (a ``QAbstractScrollArea``) paints only what is in view: for each visible
row, the bars overlapping the visible time range (``RunLanes.bars_in``, a bisection).  Bars are
coloured by family (the event log's hues), red when they failed; an open bar ends in a fading
edge.  Paused time shows as hatched bands (or, with pauses collapsed, as a marked line with the
pause's length); a retry's backoff as a dashed link between the attempts; loops and interrupts
as marks.  Ctrl+wheel zooms around the pointer, Shift+wheel scrolls the time axis, the wheel
scrolls the rows; ``+`` / ``-`` / ``0`` zoom in, out, to fit.  A click emits ``barClicked``.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontMetrics,
    QHelpEvent,
    QKeyEvent,
    QLinearGradient,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QAbstractScrollArea, QToolTip, QWidget

from studio.look.tones import Tones, tones_for
from studio.models.event_summary import duration_text
from studio.models.waterfall import Bar, Mark, RunLanes, TimeAxis
from studio.widgets.plain_tip import plain_tip

__all__ = ["WaterfallCanvas"]

RULER_H = 24
ROW_H = 20
PAD = 10
_NS_PER_MS = 1_000_000
_MIN_SCALE = 1e-9  # px per ns: 1 px per second
_MAX_SCALE = 1e-2  # 10 px per microsecond


class WaterfallCanvas(QAbstractScrollArea):
    barClicked = Signal(object)
    """The ``Bar`` clicked."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lanes: RunLanes | None = None
        self.collapse = True
        self.axis: TimeAxis | None = None
        self.scale = 1e-6  # px per ns (1 px per ms)
        self.auto_fit = True
        """Fit the run to the width as it grows, until the user zooms or scrolls."""
        self.selected: Bar | None = None
        self.cursor_t: int | None = None
        """A moment to mark (the checkpoint picked while time-travelling), in event time."""
        self._tones: Tones = tones_for(self.palette())
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.viewport().setMouseTracking(True)
        self.viewport().installEventFilter(self)
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(40)
        self._refresh_timer.timeout.connect(self.refresh)
        self.horizontalScrollBar().valueChanged.connect(lambda _v: self.viewport().update())
        self.verticalScrollBar().valueChanged.connect(lambda _v: self.viewport().update())

    # -- what is shown -------------------------------------------------------------------------

    def set_lanes(self, lanes: RunLanes | None) -> None:
        if lanes is not self.lanes:
            self.lanes = lanes
            self.auto_fit = True
            self.selected = None if lanes is None or self.selected is None else self.selected
        self.refresh()

    def set_collapse(self, on: bool) -> None:
        self.collapse = on
        self.refresh()

    def schedule(self) -> None:
        """Repaint soon (events arrive in bursts: one repaint per burst)."""
        if not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def refresh(self) -> None:
        self._refresh_timer.stop()
        lanes = self.lanes
        self.axis = TimeAxis(lanes, self.collapse) if lanes is not None else None
        if self.auto_fit:
            self._fit_scale()
        self._update_scrollbars()
        self.viewport().update()

    def select(self, bar: Bar | None, reveal: bool = True) -> None:
        self.selected = bar
        if bar is not None and reveal:
            self.reveal(bar)
        self.viewport().update()

    def reveal(self, bar: Bar) -> None:
        """Scroll so ``bar`` is in view."""
        if self.axis is None or self.lanes is None:
            return
        x0 = self._x(bar.start)
        x1 = self._x(bar.end_or(self.lanes.now))
        h = self.horizontalScrollBar()
        width = self.viewport().width()
        if x0 < h.value() or x1 > h.value() + width:
            self.auto_fit = False
            h.setValue(int(max(0, x0 - width * 0.2)))
        v = self.verticalScrollBar()
        top = bar.row * ROW_H
        body = self.viewport().height() - RULER_H
        if top < v.value() or top + ROW_H > v.value() + body:
            v.setValue(max(0, top - body // 3))

    # -- zoom ----------------------------------------------------------------------------------

    def _span(self) -> int:
        if self.lanes is None or self.axis is None:
            return _NS_PER_MS
        return max(_NS_PER_MS, self.axis.show(self.lanes.duration))

    def _fit_scale(self) -> None:
        width = max(50, self.viewport().width() - 2 * PAD)
        self.scale = min(_MAX_SCALE, max(_MIN_SCALE, width / self._span()))

    def fit(self) -> None:
        self.auto_fit = True
        self.refresh()
        self.horizontalScrollBar().setValue(0)

    def zoom(self, factor: float, anchor_x: float | None = None) -> None:
        """Zoom the time axis by ``factor`` keeping the time under ``anchor_x`` in place."""
        if anchor_x is None:
            anchor_x = self.viewport().width() / 2
        h = self.horizontalScrollBar()
        t = (h.value() + anchor_x - PAD) / self.scale
        self.scale = min(_MAX_SCALE, max(_MIN_SCALE, self.scale * factor))
        self.auto_fit = False
        self._update_scrollbars()
        h.setValue(int(t * self.scale + PAD - anchor_x))
        self.viewport().update()

    def _update_scrollbars(self) -> None:
        content_w = int(self._span() * self.scale) + 2 * PAD
        h = self.horizontalScrollBar()
        h.setRange(0, max(0, content_w - self.viewport().width()))
        h.setPageStep(self.viewport().width())
        rows = len(self.lanes.rows) if self.lanes is not None else 0
        v = self.verticalScrollBar()
        v.setRange(0, max(0, rows * ROW_H + 6 - (self.viewport().height() - RULER_H)))
        v.setPageStep(max(ROW_H, self.viewport().height() - RULER_H))
        v.setSingleStep(ROW_H)

    # -- coordinates ---------------------------------------------------------------------------

    def _x(self, t: int) -> float:
        """Content x of event time ``t``."""
        shown = self.axis.show(t) if self.axis is not None else t
        return PAD + shown * self.scale

    def _vx(self, t: int) -> float:
        return self._x(t) - self.horizontalScrollBar().value()

    def _vy(self, row: int) -> float:
        return RULER_H + row * ROW_H - self.verticalScrollBar().value()

    def bar_at(self, pos: QPoint) -> Bar | None:
        lanes = self.lanes
        if lanes is None or self.axis is None or pos.y() < RULER_H:
            return None
        row = (pos.y() - RULER_H + self.verticalScrollBar().value()) // ROW_H
        content_x = pos.x() + self.horizontalScrollBar().value()
        shown = int((content_x - PAD) / self.scale)
        t = self.axis.event_time(shown)
        slack = int(3 / self.scale)  # a thin bar is still clickable
        for bar in lanes.bars_in(row, t - slack, t + slack):
            return bar
        return None

    def bar_rect(self, bar: Bar) -> QRectF:
        """Where ``bar`` is drawn in the viewport."""
        now = self.lanes.now if self.lanes is not None else 0
        x0, x1 = self._vx(bar.start), self._vx(bar.end_or(now))
        return QRectF(x0, self._vy(bar.row) + 2, max(2.0, x1 - x0), ROW_H - 4)

    # -- painting ------------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self.viewport())
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        t = self._tones
        w, h = self.viewport().width(), self.viewport().height()
        p.fillRect(0, 0, w, h, t.panel)
        lanes, axis = self.lanes, self.axis
        if lanes is not None and axis is not None and not axis.covers(lanes):
            self.axis = axis = TimeAxis(lanes, self.collapse)  # a pause began since the refresh
        if lanes is None or axis is None:
            p.setPen(t.muted)
            p.drawText(QRectF(0, 0, w, h), int(Qt.AlignmentFlag.AlignCenter), "No run yet")
            p.end()
            return
        hval = self.horizontalScrollBar().value()
        lo = axis.event_time(max(0, int((hval - PAD) / self.scale)))
        hi = axis.event_time(int((hval + w) / self.scale) + 1)
        first = max(0, self.verticalScrollBar().value() // ROW_H)
        last = min(len(lanes.rows), first + (h - RULER_H) // ROW_H + 2)
        p.setClipRect(0, RULER_H, w, h - RULER_H)
        self._paint_pauses(p, lanes, axis, h)
        for row in range(first, last):
            if row % 2:
                p.fillRect(QRectF(0, self._vy(row), w, ROW_H), _alpha(t.border, 28))
            for bar in lanes.bars_in(row, lo, hi):
                self._paint_bar(p, bar, lanes)
        self._paint_gaps(p, lanes, first, last)
        self._paint_marks(p, lanes.marks, first, last)
        self._paint_pause_labels(p, lanes, axis, w, h)
        if self.cursor_t is not None:
            x = self._vx(self.cursor_t)
            p.setPen(QPen(t.running, 1.5, Qt.PenStyle.DashLine))
            p.drawLine(QPointF(x, RULER_H), QPointF(x, h))
        p.setClipping(False)
        self._paint_ruler(p, w, hval)
        p.end()

    def _paint_pauses(self, p: QPainter, lanes: RunLanes, axis: TimeAxis, h: int) -> None:
        t = self._tones
        for start, end in axis.pauses():
            x0, x1 = self._vx_shown(start), self._vx_shown(end)
            if x1 - x0 >= 2:  # shown as it was: a hatched band
                band = QRectF(x0, RULER_H, x1 - x0, h - RULER_H)
                p.fillRect(band, _alpha(t.interrupted, 30))
                p.fillRect(band, QBrush(_alpha(t.interrupted, 70), Qt.BrushStyle.BDiagPattern))
            else:  # collapsed: a line (its length is said on the ruler)
                p.setPen(QPen(t.interrupted, 1.5, Qt.PenStyle.DashLine))
                p.drawLine(QPointF(x0, RULER_H), QPointF(x0, h))

    def _paint_pause_labels(
        self, p: QPainter, lanes: RunLanes, axis: TimeAxis, w: int, h: int
    ) -> None:
        """How long each pause lasted, at the foot of its band or line."""
        t = self._tones
        fm = QFontMetrics(self.font())
        for (start, end), (raw_s, raw_e) in zip(axis.pauses(), axis.raw_pauses(), strict=True):
            x0, x1 = self._vx_shown(start), self._vx_shown(end)
            label = f"paused {duration_text((raw_e - raw_s) / 1e6) or '0 ms'}"
            width = fm.horizontalAdvance(label) + 10
            left = (x0 + x1 - width) / 2 if x1 - x0 > width else x0 + 3
            rect = QRectF(left, h - 20, width, 16)
            if rect.right() < 0 or rect.left() > w:
                continue
            p.fillRect(rect, _alpha(t.panel, 235))
            p.setPen(QPen(t.interrupted, 1.0))
            p.drawRect(rect)
            p.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), label)

    def _vx_shown(self, shown: int) -> float:
        return PAD + shown * self.scale - self.horizontalScrollBar().value()

    def _paint_bar(self, p: QPainter, bar: Bar, lanes: RunLanes) -> None:
        t = self._tones
        r = self.bar_rect(bar)
        hue = t.failed if bar.failed else t.interrupted if bar.interrupted else t.family(bar.family)
        fill = _alpha(hue, 70 if not t.dark else 90)
        if bar.end is None:  # still open: fades out at its (moving) end
            grad = QLinearGradient(r.left(), 0, r.right(), 0)
            grad.setColorAt(0.0, fill)
            grad.setColorAt(1.0, _alpha(hue, 15))
            p.fillRect(r, QBrush(grad))
        else:
            p.fillRect(r, fill)
        if not self.collapse:  # the run sat paused inside this span: hatched
            for start, end in lanes.pauses:
                stop = end if end is not None else lanes.now
                s0, s1 = max(start, bar.start), min(stop, bar.end_or(lanes.now))
                if s1 > s0:
                    seg = QRectF(
                        self._vx(s0), r.top(), max(1.0, self._vx(s1) - self._vx(s0)), r.height()
                    )
                    p.fillRect(seg, QBrush(_alpha(t.muted, 140), Qt.BrushStyle.Dense6Pattern))
        dimmed = self.cursor_t is not None and bar.start > self.cursor_t
        p.setPen(QPen(_alpha(hue, 90 if dimmed else 220), 1.0))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(r.adjusted(0, 0, -1, -1))
        if bar is self.selected:
            p.setPen(QPen(t.running, 2.0))
            p.drawRect(r.adjusted(-1, -1, 0, 0))
        if r.width() > 24:
            fm = QFontMetrics(self.font())
            text = bar.label
            ms = self._shown_ns(bar, lanes) / 1e6 if bar.end is not None else None
            if (
                ms is not None
                and fm.horizontalAdvance(f"{text}  {duration_text(ms)}") + 8 < r.width()
            ):
                text = f"{text}  {duration_text(ms) or '0 ms'}"
            shown = fm.elidedText(text, Qt.TextElideMode.ElideRight, int(r.width() - 6))
            p.setPen(_alpha(t.text, 110) if dimmed else t.text)
            p.drawText(r.adjusted(4, 0, -2, 0), int(Qt.AlignmentFlag.AlignVCenter), shown)

    def _shown_ns(self, bar: Bar, lanes: RunLanes) -> int:
        """The bar's length as drawn: active time with pauses collapsed, else wall time."""
        wall = bar.end_or(lanes.now) - bar.start
        return wall - _paused_in(bar, lanes) if self.collapse else wall

    def _paint_gaps(self, p: QPainter, lanes: RunLanes, first: int, last: int) -> None:
        t = self._tones
        fm = QFontMetrics(self.font())
        for gap in lanes.gaps:
            if (
                max(gap.after.row, gap.before.row) < first
                or min(gap.after.row, gap.before.row) > last
            ):
                continue
            a, b = self.bar_rect(gap.after), self.bar_rect(gap.before)
            y0, y1 = a.center().y(), b.center().y()
            p.setPen(QPen(t.interrupted, 1.5, Qt.PenStyle.DashLine))
            p.drawLine(QPointF(a.right(), y0), QPointF(b.left(), y1))
            gap_ns = gap.before.start - (gap.after.end or gap.after.start)
            label = f"backoff {duration_text(gap_ns / 1e6) or '0 ms'}"
            width = b.left() - a.right()
            text_w = fm.horizontalAdvance(label) + 8
            if width > text_w + 6:  # on the line, masking it
                mid = (a.right() + b.left()) / 2
                rect = QRectF(mid - text_w / 2, (y0 + y1) / 2 - 8, text_w, 16)
                p.fillRect(rect, t.panel)
                p.setPen(t.interrupted)
                p.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), label)

    def _paint_marks(self, p: QPainter, marks: list[Mark], first: int, last: int) -> None:
        t = self._tones
        fm = QFontMetrics(self.font())
        for mark in marks:
            if not first <= mark.row <= last:
                continue
            x, y = self._vx(mark.at), self._vy(mark.row) + ROW_H / 2
            color = t.failed if mark.kind == "loop.detected" else t.interrupted
            p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            p.setPen(QPen(t.panel, 1.0))
            p.setBrush(color)
            p.drawEllipse(QPointF(x, y), 5, 5)
            p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            rect = QRectF(x + 7, y - 8, fm.horizontalAdvance(mark.label) + 6, 16)
            p.fillRect(rect, _alpha(t.panel, 230))
            p.setPen(color)
            p.drawText(rect, int(Qt.AlignmentFlag.AlignVCenter), mark.label)

    def _paint_ruler(self, p: QPainter, w: int, hval: int) -> None:
        t = self._tones
        p.fillRect(0, 0, w, RULER_H, t.panel)
        p.setPen(QPen(t.border, 1.0))
        p.drawLine(0, RULER_H - 1, w, RULER_H - 1)
        step = _tick_step(80 / self.scale)
        start = math.floor(max(0, hval - PAD) / self.scale / step) * step
        shown = start
        while True:
            x = PAD + shown * self.scale - hval
            if x > w:
                break
            p.setPen(QPen(t.muted, 1.0))
            p.drawLine(QPointF(x, RULER_H - 6), QPointF(x, RULER_H - 1))
            label = _tick_label(shown, step)
            p.drawText(QPointF(x + 3, RULER_H - 9), label)
            shown += step

    # -- input ---------------------------------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            bar = self.bar_at(event.position().toPoint())
            if bar is not None:
                self.select(bar, reveal=False)
                self.barClicked.emit(bar)
                return
        super().mousePressEvent(event)

    def wheelEvent(self, event: QWheelEvent) -> None:
        mods = event.modifiers()
        delta = event.angleDelta().y() or event.angleDelta().x()
        if mods & Qt.KeyboardModifier.ControlModifier:
            self.zoom(1.25 if delta > 0 else 0.8, event.position().x())
            event.accept()
            return
        if mods & Qt.KeyboardModifier.ShiftModifier:
            h = self.horizontalScrollBar()
            self.auto_fit = False
            h.setValue(h.value() - int(delta / 2))
            event.accept()
            return
        super().wheelEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom(1.5)
        elif key == Qt.Key.Key_Minus:
            self.zoom(1 / 1.5)
        elif key == Qt.Key.Key_0:
            self.fit()
        else:
            super().keyPressEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """The viewport's tooltips.  An event filter, not a ``viewportEvent`` override: with
        PySide 6.11 an error raised in ``paintEvent`` under a Python ``viewportEvent`` that
        calls its base crashes the process instead of printing the error."""
        if watched is self.viewport() and isinstance(event, QHelpEvent):
            bar = self.bar_at(event.pos())
            if bar is None:
                QToolTip.hideText()
            else:  # escaped: names and errors come from the agent
                tip = plain_tip(_tooltip(bar, self.lanes))
                QToolTip.showText(event.globalPos(), tip, self.viewport())
            return True
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.refresh()

    def set_tones(self, tones: Tones) -> None:
        self._tones = tones
        self.viewport().update()


def _raw_pauses(lanes: RunLanes) -> list[tuple[int, int]]:
    return [(s, e if e is not None else lanes.now) for s, e in lanes.pauses]


def _paused_in(bar: Bar, lanes: RunLanes) -> int:
    """How long the run sat paused while ``bar`` was open."""
    total = 0
    for start, end in _raw_pauses(lanes):
        total += max(0, min(end, bar.end_or(lanes.now)) - max(start, bar.start))
    return total


def _tooltip(bar: Bar, lanes: RunLanes | None) -> str:
    now = lanes.now if lanes is not None else bar.start
    wall = bar.end_or(now) - bar.start
    paused = _paused_in(bar, lanes) if lanes is not None else 0
    lines = [bar.label.removesuffix(" ✗"), f"#{bar.event.seq} {bar.event.kind}"]
    active = duration_text((wall - paused) / 1e6) or "0 ms"
    lines.append(
        f"starts at +{duration_text(bar.start / 1e6) or '0 ms'}, active {active}"
        + (f", paused {duration_text(paused / 1e6)}" if paused > 0 else "")
        + ("" if bar.end is not None else " (still running)")
    )
    if bar.detail:
        lines.append(bar.detail)
    return "\n".join(lines)


def _tick_step(ns: float) -> int:
    """A round step (1, 2, 5 × 10^k ns) at least ``ns`` long."""
    ns = max(1.0, ns)
    power = 10 ** math.floor(math.log10(ns))
    for m in (1, 2, 5, 10):
        if m * power >= ns:
            return int(m * power)
    return int(10 * power)


def _tick_label(ns: int, step: int) -> str:
    if step >= 1_000_000_000:
        return f"{ns / 1e9:g} s"
    if step >= 1_000_000:
        return f"{ns / 1e9:.3f}".rstrip("0").rstrip(".") + " s" if ns >= 1e9 else f"{ns / 1e6:g} ms"
    return f"{ns / 1e6:.3f}".rstrip("0").rstrip(".") + " ms"


def _alpha(color: QColor, alpha: int) -> QColor:
    c = QColor(color)
    c.setAlpha(alpha)
    return c
