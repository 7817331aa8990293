"""Edge items of the Graph dock: routes with arrowheads (solid, dashed or dotted) and their
labels."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QStyleOptionGraphicsItem, QWidget

from studio.docks.graph.theme import Fonts, Palette
from studio.models.graph_layout import EdgeRoute

__all__ = ["EdgeItem", "EdgeLabelItem"]


class EdgeItem(QGraphicsPathItem):
    """An edge route: solid when static, dashed when conditional, dotted when ``observed``
    (a route a run took that the graph's drawing has no edge for), with an arrowhead."""

    ARROW = 9.0

    def __init__(self, route: EdgeRoute, palette: Palette, *, observed: bool = False) -> None:
        super().__init__()
        self.route = route
        self.observed = observed
        self._palette = palette
        self.highlighted = False
        if observed:
            self.setToolTip(
                "Taken at run time; the graph's drawing has no edge here (a node returning "
                "Command(goto=...) without a Command[Literal[...]] return annotation, or an "
                "edge LangGraph's drawing cannot reach)"
            )
        path = QPainterPath(QPointF(*route.curves[0][0]))
        for _, c1, c2, end in route.curves:
            path.cubicTo(QPointF(*c1), QPointF(*c2), QPointF(*end))
        self.setPath(path)
        self.setZValue(0)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)  # as a node box
        self._arrow = self._arrowhead()
        self._restyle()

    def _arrowhead(self) -> QPolygonF:
        start, _, c2, tip = self.route.curves[-1]
        base = c2 if c2 != tip else start
        angle = math.atan2(tip[1] - base[1], tip[0] - base[0])
        a, half = self.ARROW, self.ARROW * 0.42
        back = (tip[0] - a * math.cos(angle), tip[1] - a * math.sin(angle))
        nx, ny = -math.sin(angle) * half, math.cos(angle) * half
        return QPolygonF(
            [
                QPointF(*tip),
                QPointF(back[0] + nx, back[1] + ny),
                QPointF(back[0] - nx, back[1] - ny),
            ]
        )

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
        if self.observed:
            pen.setStyle(Qt.PenStyle.CustomDashLine)
            pen.setDashPattern([1.0, 2.5])
        elif self.route.conditional:
            pen.setStyle(Qt.PenStyle.CustomDashLine)
            pen.setDashPattern([4.0, 3.0])
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        self.setPen(pen)
        self.setZValue(1.5 if self.highlighted else 0)
        self.update()

    def boundingRect(self) -> QRectF:
        return super().boundingRect().united(self._arrow.boundingRect()).adjusted(-2, -2, 2, 2)

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
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
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)  # as a node box

    def set_highlighted(self, on: bool) -> None:
        if on != self.highlighted:
            self.highlighted = on
            self.update()

    def set_palette(self, palette: Palette) -> None:
        self._palette = palette
        self.update()

    def boundingRect(self) -> QRectF:
        r = self.route.label_rect
        assert r is not None
        return QRectF(-1, -1, r.w + 2, r.h + 2)

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        r = self.route.label_rect
        assert r is not None and self.route.label is not None
        p = self._palette
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(p.color("route" if self.highlighted else "label_border"), 1))
        painter.setBrush(p.color("label_fill"))
        painter.drawRoundedRect(QRectF(0, 0, r.w, r.h), r.h / 2, r.h / 2)
        painter.setFont(self._fonts.label)
        painter.setPen(p.color("route" if self.highlighted else "muted"))
        painter.drawText(
            QRectF(0, 0, r.w, r.h), int(Qt.AlignmentFlag.AlignCenter), self.route.label
        )
