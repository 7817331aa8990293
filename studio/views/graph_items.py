"""QGraphicsItems of the Graph dock: node boxes, edges with arrowheads, edge labels."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsEllipseItem, QGraphicsItem, QGraphicsPathItem, QStyleOptionGraphicsItem, QWidget

from studio.models.graph_state import NodeView
from studio.views.graph_content import BoxMetrics
from studio.views.graph_layout import EdgeRoute, NodeBox
from studio.views.graph_theme import Fonts, Palette

__all__ = ["EdgeItem", "EdgeLabelItem", "NodeItem"]

_KIND_COLORS = {
    "start": ("pill_fill", "pill_border"),
    "end": ("pill_fill", "pill_border"),
    "hook": ("hook_fill", "hook_border"),
    "model": ("model_fill", "model_border"),
    "tools": ("tools_fill", "tools_border"),
    "subgraph": ("subgraph_fill", "border"),
}
_STATUS_COLORS = {
    "running": ("running_fill", "running"),
    "failed": ("failed_fill", "failed"),
    "interrupted": ("interrupted_fill", "interrupted"),
}
_TONE = {"info": "running", "warn": "interrupted", "error": "failed", "ok": "ok"}
_HALO = 12.0


class NodeItem(QGraphicsItem):
    """One node box; its local origin is the box's top-left corner."""

    def __init__(self, box: NodeBox, fonts: Fonts, palette: Palette, metrics: BoxMetrics) -> None:
        super().__init__()
        self.box = box
        self.node_id = box.id
        self._fonts, self._palette, self._m = fonts, palette, metrics
        self._state: NodeView | None = None
        self._selected = False
        self.repaints = 0
        self.setPos(box.rect.x, box.rect.y)
        self.setZValue(2)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setToolTip(box.id)
        r = 5.5
        dot_y = box.rect.h / 2 if box.content.shape == "pill" else metrics.pad_y + metrics.title_row / 2
        self.breakpoint_dot = QGraphicsEllipseItem(-r, dot_y - r, 2 * r, 2 * r, self)
        self.breakpoint_dot.setVisible(False)
        self.breakpoint_dot.setZValue(3)
        self._style_dot()

    # --- state ------------------------------------------------------------------------

    @property
    def state(self) -> NodeView | None:
        return self._state

    def set_state(self, state: NodeView) -> bool:
        """Show ``state``; returns False (and repaints nothing) when nothing visible changed."""
        if state == self._state:
            return False
        self._state = state
        self.breakpoint_dot.setVisible(state.breakpoint)
        tip = self.node_id if not state.error else f"{self.node_id}\n{state.error}"
        if state.visits:
            tip += f"\nvisits: {state.visits}"
        self.setToolTip(tip)
        self.update()
        return True

    def set_selected(self, selected: bool) -> None:
        if selected != self._selected:
            self._selected = selected
            self.update()

    def set_palette(self, palette: Palette) -> None:
        self._palette = palette
        self._style_dot()
        self.update()

    def _style_dot(self) -> None:
        self.breakpoint_dot.setBrush(QBrush(self._palette.color("failed")))
        self.breakpoint_dot.setPen(QPen(self._palette.color("node_fill"), 1.5))

    def fill_color(self) -> QColor:
        return self._colors()[0]

    def border_color(self) -> QColor:
        return self._colors()[1]

    def _colors(self) -> tuple[QColor, QColor]:
        status = self._state.status if self._state else "idle"
        fill, border = _STATUS_COLORS.get(status) or _KIND_COLORS.get(self.box.kind, ("node_fill", "border"))
        if status == "pending":
            border = "pending"
        return self._palette.color(fill), self._palette.color(border)

    # --- painting ---------------------------------------------------------------------

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt API
        r = self.box.rect
        return QRectF(-_HALO, -_HALO, r.w + 2 * _HALO, r.h + 2 * _HALO)

    def _shape_path(self, grow: float = 0.0) -> QPainterPath:
        r = self.box.rect
        rect = QRectF(-grow, -grow, r.w + 2 * grow, r.h + 2 * grow)
        radius = rect.height() / 2 if self.box.content.shape == "pill" else 8.0 + grow
        path = QPainterPath()
        path.addRoundedRect(rect, radius, radius)
        return path

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        self.repaints += 1
        p, st = self._palette, self._state
        status = st.status if st else "idle"
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fill, border = self._colors()
        if status in ("running", "failed", "interrupted"):
            for grow, alpha in ((7.0, 40), (4.0, 70)):
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(QColor(border.red(), border.green(), border.blue(), alpha))
                painter.drawPath(self._shape_path(grow))
        if self._selected:
            pen = QPen(p.color("selection"), 1.5, Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(self._shape_path(4.5))
        width = 2.4 if status in ("running", "failed", "interrupted", "pending") else 1.3
        pen = QPen(border, width, Qt.PenStyle.DashLine if status == "pending" else Qt.PenStyle.SolidLine)
        painter.setPen(pen)
        painter.setBrush(fill)
        painter.drawPath(self._shape_path())
        shape = self.box.content.shape
        if shape == "pill":
            self._text(painter, self._rect(), self.box.content.title, "title", "text", Qt.AlignmentFlag.AlignCenter)
        elif shape == "agent":
            self._paint_agent(painter)
        else:
            self._paint_box(painter)
        if st and st.visits:
            self._paint_count(painter, st.visits)

    def _rect(self) -> QRectF:
        return QRectF(0, 0, self.box.rect.w, self.box.rect.h)

    def _text(self, painter: QPainter, rect: QRectF, text: str, role: str, color: str | QColor, align: Qt.AlignmentFlag) -> None:
        painter.setFont(self._fonts.font(role))  # type: ignore[arg-type]
        painter.setPen(color if isinstance(color, QColor) else self._palette.color(color))
        elided = self._fonts.metrics(role).elidedText(text, Qt.TextElideMode.ElideRight, rect.width())  # type: ignore[arg-type]
        painter.drawText(rect, int(align | Qt.AlignmentFlag.AlignVCenter), elided)

    def _paint_box(self, painter: QPainter) -> None:
        c, m, w = self.box.content, self._m, self.box.rect.w
        if c.shape == "hook":
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self._palette.color("hook_accent"))
            painter.drawRoundedRect(QRectF(5, m.pad_y + 2, 3, self.box.rect.h - 2 * m.pad_y - 4), 1.5, 1.5)
        center = Qt.AlignmentFlag.AlignHCenter
        y = m.pad_y
        self._text(painter, QRectF(m.pad_x, y, w - 2 * m.pad_x, m.title_row), c.title, "title", "text", center)
        if c.subtitle:
            y += m.title_row
            self._text(painter, QRectF(m.pad_x, y, w - 2 * m.pad_x, m.subtitle_row), c.subtitle, "subtitle", "muted", center)

    def _paint_agent(self, painter: QPainter) -> None:
        c, m, p, w = self.box.content, self._m, self._palette, self.box.rect.w
        left = Qt.AlignmentFlag.AlignLeft
        y = m.pad_y
        self._text(painter, QRectF(m.pad_x, y, w - 2 * m.pad_x, m.title_row), c.title, "title", "text", left)
        y += m.title_row
        if c.wrappers:
            y = self._divider(painter, y)
            top = y
            for i, name in enumerate(c.wrappers):
                x = m.pad_x + 12 * i
                self._text(painter, QRectF(x + 10, y, w - x - 10 - m.pad_x, m.detail_row), name, "detail", "text", left)
                y += m.detail_row
            # the onion: one guide per layer, from its row down to the innermost one
            painter.setPen(QPen(p.color("hook_accent" if c.title == "model" else "tools_border"), 1.4))
            for i in range(len(c.wrappers)):
                x = m.pad_x + 12 * i + 3
                painter.drawLine(QPointF(x, top + m.detail_row * i + 4), QPointF(x, y - 4))
        if c.status_rows:
            y = self._divider(painter, y)
            self._paint_status(painter, y)

    def _divider(self, painter: QPainter, y: float) -> float:
        m = self._m
        painter.setPen(QPen(self._palette.color("divider"), 1))
        painter.drawLine(QPointF(m.pad_x, y + m.section_gap / 2), QPointF(self.box.rect.w - m.pad_x, y + m.section_gap / 2))
        return y + m.section_gap

    def _paint_status(self, painter: QPainter, y: float) -> None:
        c, m, st, w = self.box.content, self._m, self._state, self.box.rect.w
        left = Qt.AlignmentFlag.AlignLeft
        inner = w - 2 * m.pad_x
        rows: list[tuple[str, str, bool]] = []  # text, colour, badge pill?
        if st and st.badge:
            rows.append((st.badge.text, _TONE[st.badge.tone], True))
        if c.title != "model" or c.tools:
            calls = st.tool_calls if st else ()
            room = c.status_rows - len(rows)
            shown = list(calls[:room]) if len(calls) <= room else list(calls[: room - 1])
            rows += [(f"▸ {call.text}", "running", False) for call in shown]
            if len(calls) > len(shown):
                rows.append((f"+{len(calls) - len(shown)} more in flight", "muted", False))
            if not calls and c.tools and len(rows) < c.status_rows:
                rows.append(("tools: " + ", ".join(c.tools), "muted", False))
        if not rows:
            rows.append(("no retries" if st and st.visits else "idle", "muted", False))
        for text, color, pill in rows[: c.status_rows]:
            rect = QRectF(m.pad_x, y, inner, m.detail_row)
            if pill:
                width = min(inner, self._fonts.text_width(text, "detail") + 14)
                tone = self._palette.color(color)
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(QColor(tone.red(), tone.green(), tone.blue(), 38))
                painter.drawRoundedRect(QRectF(m.pad_x - 4, y + 1, width, m.detail_row - 2), 7, 7)
                rect = QRectF(m.pad_x + 3, y, width - 10, m.detail_row)
            self._text(painter, rect, text, "detail", color, left)
            y += m.detail_row

    def _paint_count(self, painter: QPainter, visits: int) -> None:
        text = f"×{visits}"
        font = self._fonts.badge
        painter.setFont(font)
        width = max(20.0, painter.fontMetrics().horizontalAdvance(text) + 10.0)
        rect = QRectF(self.box.rect.w - width + 8, -8, width, 16)
        painter.setPen(QPen(self._palette.color("background"), 1.5))
        painter.setBrush(self._palette.color("count_fill"))
        painter.drawRoundedRect(rect, 8, 8)
        painter.setPen(self._palette.color("count_text"))
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), text)


class EdgeItem(QGraphicsPathItem):
    """An edge route: solid when static, dashed when conditional, with an arrowhead."""

    ARROW = 9.0

    def __init__(self, route: EdgeRoute, palette: Palette) -> None:
        super().__init__()
        self.route = route
        self._palette = palette
        self.highlighted = False
        path = QPainterPath(QPointF(*route.curves[0][0]))
        for _, c1, c2, end in route.curves:
            path.cubicTo(QPointF(*c1), QPointF(*c2), QPointF(*end))
        self.setPath(path)
        self.setZValue(0)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self._arrow = self._arrowhead()
        self._restyle()

    def _arrowhead(self) -> QPolygonF:
        start, _, c2, tip = self.route.curves[-1]
        base = c2 if c2 != tip else start
        angle = math.atan2(tip[1] - base[1], tip[0] - base[0])
        a, half = self.ARROW, self.ARROW * 0.42
        back = (tip[0] - a * math.cos(angle), tip[1] - a * math.sin(angle))
        nx, ny = -math.sin(angle) * half, math.cos(angle) * half
        return QPolygonF([QPointF(*tip), QPointF(back[0] + nx, back[1] + ny), QPointF(back[0] - nx, back[1] - ny)])

    def set_highlighted(self, on: bool) -> None:
        if on != self.highlighted:
            self.highlighted = on
            self._restyle()

    def set_palette(self, palette: Palette) -> None:
        self._palette = palette
        self._restyle()

    def color(self) -> QColor:
        return self._palette.color("route" if self.highlighted else "edge")

    def _restyle(self) -> None:
        pen = QPen(self.color(), 2.6 if self.highlighted else 1.4)
        if self.route.conditional:
            pen.setStyle(Qt.PenStyle.CustomDashLine)
            pen.setDashPattern([4.0, 3.0])
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        self.setPen(pen)
        self.setZValue(1.5 if self.highlighted else 0)
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt API
        return super().boundingRect().united(self._arrow.boundingRect()).adjusted(-2, -2, 2, 2)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(self.pen())
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(self.path())
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.color())
        painter.drawPolygon(self._arrow)


class EdgeLabelItem(QGraphicsItem):
    def __init__(self, route: EdgeRoute, fonts: Fonts, palette: Palette) -> None:
        super().__init__()
        assert route.label is not None and route.label_rect is not None
        self.route, self._fonts, self._palette = route, fonts, palette
        self.highlighted = False
        r = route.label_rect
        self.setPos(r.x, r.y)
        self.setZValue(1.8)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def set_highlighted(self, on: bool) -> None:
        if on != self.highlighted:
            self.highlighted = on
            self.update()

    def set_palette(self, palette: Palette) -> None:
        self._palette = palette
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt API
        r = self.route.label_rect
        assert r is not None
        return QRectF(-1, -1, r.w + 2, r.h + 2)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        r = self.route.label_rect
        assert r is not None and self.route.label is not None
        p = self._palette
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(p.color("route" if self.highlighted else "label_border"), 1))
        painter.setBrush(p.color("label_fill"))
        painter.drawRoundedRect(QRectF(0, 0, r.w, r.h), r.h / 2, r.h / 2)
        painter.setFont(self._fonts.label)
        painter.setPen(p.color("route" if self.highlighted else "muted"))
        painter.drawText(QRectF(0, 0, r.w, r.h), int(Qt.AlignmentFlag.AlignCenter), self.route.label)
