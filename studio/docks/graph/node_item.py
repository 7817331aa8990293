"""The node box of the Graph dock: shape and colour by kind, live status, onion, badges.

Corner badges: the visit count top right, a red "⟳ loop" top left when the run looped there,
and the tokens and cost of the node's model calls bottom right."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QGraphicsEllipseItem,
    QGraphicsItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from studio.docks.graph.theme import Fonts, Palette
from studio.models.graph_content import BoxMetrics, TextRole, onion_height
from studio.models.graph_layout import NodeBox
from studio.models.graph_state import NodeView
from studio.widgets.plain_tip import plain_tip

__all__ = ["NodeItem", "OnionItem"]

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
_LOUD = ("running", "failed", "interrupted")
_TONE = {"info": "running", "warn": "interrupted", "error": "failed", "ok": "ok"}
_HALO = 12.0
_LEFT = Qt.AlignmentFlag.AlignLeft
_CENTER = Qt.AlignmentFlag.AlignHCenter


def _alpha(color: QColor, alpha: int) -> QColor:
    c = QColor(color)
    c.setAlpha(alpha)
    return c


class NodeItem(QGraphicsItem):
    """One node box; its local origin is the box's top-left corner.

    The breakpoint marker is a child ellipse item (``breakpoint_dot``) on the left edge.
    """

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
        # drawn once per look into a picture Qt keeps and copies (a repaint of the view for
        # another box's change, a scroll, costs a copy); ``update()`` draws it again
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setToolTip(plain_tip(box.id))
        r = 5.5
        pill = box.content.shape == "pill"
        dot_y = box.rect.h / 2 if pill else metrics.pad_y + metrics.title_row / 2
        self.breakpoint_dot = QGraphicsEllipseItem(-r, dot_y - r, 2 * r, 2 * r, self)
        self.breakpoint_dot.setVisible(False)
        self.breakpoint_dot.setToolTip("breakpoint")
        self._style_dot()
        self.onion: OnionItem | None = None
        """The wrapper middleware of an agent box, kept as a picture of its own (it never
        changes with the state; the node repaints around it)."""
        if box.content.shape == "agent" and box.content.wrappers:
            self.onion = OnionItem(self, metrics.pad_y + metrics.title_row + metrics.section_gap)

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
        tip = [self.node_id, f"status: {state.status}", f"visits: {state.visits}"]
        if state.error:
            tip.append(state.error)
        if state.loop:
            tip.append(f"loop detected: {state.loop}")
        if state.cost_tip:
            tip.append(state.cost_tip)
        self.setToolTip(plain_tip("\n".join(tip)))  # names and errors come from the agent
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
        if self.onion is not None:
            self.onion.update()

    def _style_dot(self) -> None:
        self.breakpoint_dot.setBrush(QBrush(self._palette.color("failed")))
        self.breakpoint_dot.setPen(QPen(self._palette.color("background"), 2.0))

    def fill_color(self) -> QColor:
        return self._colors()[0]

    def border_color(self) -> QColor:
        return self._colors()[1]

    def _status(self) -> str:
        return self._state.status if self._state else "idle"

    def _colors(self) -> tuple[QColor, QColor]:
        status = self._status()
        default = _KIND_COLORS.get(self.box.kind, ("node_fill", "border"))
        fill, border = _STATUS_COLORS.get(status, default)
        if status == "pending":
            border = "pending"
        return self._palette.color(fill), self._palette.color(border)

    # --- painting ---------------------------------------------------------------------

    def boundingRect(self) -> QRectF:
        r = self.box.rect
        return QRectF(-_HALO, -_HALO, r.w + 2 * _HALO, r.h + 2 * _HALO)

    def shape(self) -> QPainterPath:
        return self._outline()

    def _outline(self, grow: float = 0.0) -> QPainterPath:
        r = self.box.rect
        rect = QRectF(-grow, -grow, r.w + 2 * grow, r.h + 2 * grow)
        radius = rect.height() / 2 if self.box.content.shape == "pill" else 9.0 + grow
        path = QPainterPath()
        path.addRoundedRect(rect, radius, radius)
        return path

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        self.repaints += 1
        status = self._status()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fill, border = self._colors()
        if status in _LOUD:  # a soft glow around lit, failed and interrupted nodes
            painter.setPen(Qt.PenStyle.NoPen)
            for grow, alpha in ((8.0, 28), (5.0, 55), (2.5, 90)):
                painter.setBrush(_alpha(border, alpha))
                painter.drawPath(self._outline(grow))
        if self._selected:
            painter.setPen(QPen(self._palette.color("selection"), 1.5, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(self._outline(5.0))
        loud = status in (*_LOUD, "pending")
        style = Qt.PenStyle.DashLine if status == "pending" else Qt.PenStyle.SolidLine
        painter.setPen(QPen(border, 2.2 if loud else 1.2, style))
        painter.setBrush(fill)
        painter.drawPath(self._outline())
        shape = self.box.content.shape
        if shape == "pill":
            rect = QRectF(0, 0, self.box.rect.w, self.box.rect.h)
            self._text(
                painter, rect, self.box.content.title, "title", "text", Qt.AlignmentFlag.AlignCenter
            )
        elif shape == "agent":
            self._paint_agent(painter)
        else:
            self._paint_box(painter)
        if self._state and self._state.visits:
            self._paint_count(painter, self._state.visits)
        if self._state and self._state.cost:
            self._paint_cost(painter, self._state.cost)
        if self._state and self._state.loop:
            self._paint_loop(painter)

    def _text(
        self,
        painter: QPainter,
        rect: QRectF,
        text: str,
        role: TextRole,
        color: str | QColor,
        align: Qt.AlignmentFlag,
        bold: bool = False,
    ) -> None:
        font = self._fonts.font(role)
        if bold:
            font = type(font)(font)
            font.setBold(True)
        painter.setFont(font)
        painter.setPen(color if isinstance(color, QColor) else self._palette.color(color))
        metrics = self._fonts.metrics(role)
        elided = metrics.elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
        painter.drawText(rect, int(align | Qt.AlignmentFlag.AlignVCenter), elided)

    def _paint_box(self, painter: QPainter) -> None:
        c, m, w = self.box.content, self._m, self.box.rect.w
        if c.shape == "hook":
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self._palette.color("hook_accent"))
            bar = QRectF(6, m.pad_y + 1, 3, self.box.rect.h - 2 * m.pad_y - 2)
            painter.drawRoundedRect(bar, 1.5, 1.5)
        y = m.pad_y
        inner = QRectF(m.pad_x, y, w - 2 * m.pad_x, m.title_row)
        self._text(painter, inner, c.title, "title", "text", _CENTER)
        if c.subtitle:
            sub = QRectF(m.pad_x, y + m.title_row, w - 2 * m.pad_x, m.subtitle_row)
            self._text(painter, sub, c.subtitle, "subtitle", "muted", _CENTER)

    def _paint_agent(self, painter: QPainter) -> None:
        c, m, w = self.box.content, self._m, self.box.rect.w
        y = m.pad_y
        self._text(
            painter,
            QRectF(m.pad_x, y, w - 2 * m.pad_x, m.title_row),
            c.title,
            "title",
            "text",
            _LEFT,
        )
        count = len(c.wrappers)
        if count:
            tag = f"{count} wrapper{'s' if count > 1 else ''}"
            tag_rect = QRectF(m.pad_x, y, w - 2 * m.pad_x, m.title_row)
            self._text(painter, tag_rect, tag, "detail", "muted", Qt.AlignmentFlag.AlignRight)
        y += m.title_row
        if c.wrappers:
            y += m.section_gap
            if self.onion is None:
                self._paint_onion(painter, y)
            y += onion_height(len(c.wrappers), m)
        if c.status_rows:
            y = self._divider(painter, y)
            self._paint_status(painter, y)

    def _paint_onion(self, painter: QPainter, top: float) -> None:
        """Wrapper middleware as nested frames around the call, outermost first."""
        c, m, w = self.box.content, self._m, self.box.rect.w
        accent = self._palette.color("model_border" if self.box.kind == "model" else "tools_border")
        height = onion_height(len(c.wrappers), m)
        for i, name in enumerate(c.wrappers):
            x = m.pad_x - 4 + m.onion_inset * i
            frame = QRectF(
                x, top + m.detail_row * i, w - 2 * x, height - (m.detail_row + m.onion_pad) * i
            )
            painter.setPen(QPen(_alpha(accent, 150), 1.0))
            painter.setBrush(_alpha(accent, 22))
            painter.drawRoundedRect(frame, 6, 6)
            label = QRectF(x + 8, frame.y(), frame.width() - 16, m.detail_row)
            self._text(painter, label, name, "detail", "text", _LEFT)
        core_x = m.pad_x - 4 + m.onion_inset * len(c.wrappers)
        core = QRectF(core_x, top + m.detail_row * len(c.wrappers), w - 2 * core_x, m.detail_row)
        call = "model call" if self.box.kind == "model" else "tool call"
        self._text(painter, core, call, "detail", "muted", _CENTER)

    def _divider(self, painter: QPainter, y: float) -> float:
        m = self._m
        mid = y + m.section_gap / 2
        painter.setPen(QPen(self._palette.color("divider"), 1))
        painter.drawLine(QPointF(m.pad_x, mid), QPointF(self.box.rect.w - m.pad_x, mid))
        return y + m.section_gap

    def _paint_status(self, painter: QPainter, y: float) -> None:
        c, m, st = self.box.content, self._m, self._state
        inner = self.box.rect.w - 2 * m.pad_x
        rows = c.status_rows
        if st and st.badge:
            head, _, detail = st.badge.text.partition(" - ")
            tone = self._palette.color(_TONE[st.badge.tone])
            pill = QRectF(m.pad_x - 5, y + 1, inner + 10, 2 * m.detail_row - 2)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self._palette.color("node_fill"))
            painter.drawRoundedRect(pill, 7, 7)
            painter.setPen(QPen(_alpha(tone, 120), 1.0))
            painter.setBrush(_alpha(tone, 34))
            painter.drawRoundedRect(pill, 7, 7)
            self._text(
                painter,
                QRectF(m.pad_x + 2, y, inner - 4, m.detail_row),
                head,
                "detail",
                tone,
                _LEFT,
                bold=True,
            )
            row2 = QRectF(m.pad_x + 2, y + m.detail_row, inner - 4, m.detail_row)
            self._text(painter, row2, detail, "detail", "text", _LEFT)
            y += 2 * m.detail_row
            rows -= 2
        lines = self._status_lines(rows)
        for text, color in lines:
            self._text(
                painter, QRectF(m.pad_x, y, inner, m.detail_row), text, "detail", color, _LEFT
            )
            y += m.detail_row

    def _status_lines(self, rows: int) -> list[tuple[str, str]]:
        """What fills the status rows below the badge: calls in flight, tools, or a quiet note."""
        if rows <= 0:
            return []
        c, st = self.box.content, self._state
        if self.box.kind != "tools":
            if st and st.badge:
                return []
            if not (st and st.visits):
                return [("not called yet", "muted")]
            return [(st.retry_note, "interrupted" if st.retried_visits else "muted")]
        calls = list(st.tool_calls) if st else []
        if calls:
            shown = calls if len(calls) <= rows else calls[: rows - 1]
            lines = [(f"▸ {call.text}", "running") for call in shown]
            if len(calls) > len(shown):
                lines.append((f"+{len(calls) - len(shown)} more in flight", "muted"))
            return lines
        if st and st.status == "running":
            return [("running…", "running")]
        tools = list(c.tools)
        shown_tools = tools if len(tools) <= rows else tools[: rows - 1]
        lines = [(f"◦ {t}", "muted") for t in shown_tools]
        if len(tools) > len(shown_tools):
            lines.append((f"+{len(tools) - len(shown_tools)} more tools", "muted"))
        return lines

    def _paint_count(self, painter: QPainter, visits: int) -> None:
        text = f"×{visits}"
        painter.setFont(self._fonts.badge)
        width = max(22.0, painter.fontMetrics().horizontalAdvance(text) + 12.0)
        rect = QRectF(self.box.rect.w - width + 9, -8, width, 16)
        painter.setPen(QPen(self._palette.color("background"), 1.5))
        painter.setBrush(self._palette.color("count_fill"))
        painter.drawRoundedRect(rect, 8, 8)
        painter.setPen(self._palette.color("count_text"))
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), text)

    def _paint_cost(self, painter: QPainter, text: str) -> None:
        """Tokens and cost on the bottom edge, right-aligned; amber when part is unknown."""
        painter.setFont(self._fonts.badge)
        width = painter.fontMetrics().horizontalAdvance(text) + 14.0
        rect = QRectF(self.box.rect.w - width + 9, self.box.rect.h - 8, width, 16)
        unknown = "?" in text
        tone = self._palette.color("interrupted" if unknown else "muted")
        painter.setPen(QPen(_alpha(tone, 170), 1.0))
        painter.setBrush(self._palette.color("background"))
        painter.drawRoundedRect(rect, 8, 8)
        painter.setPen(tone if unknown else self._palette.color("text"))
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), text)

    def _paint_loop(self, painter: QPainter) -> None:
        """A red "⟳ loop" on the top-left corner."""
        text = "⟳ loop"
        painter.setFont(self._fonts.badge)
        width = painter.fontMetrics().horizontalAdvance(text) + 14.0
        rect = QRectF(-9, -8, width, 16)
        painter.setPen(QPen(self._palette.color("background"), 1.5))
        painter.setBrush(self._palette.color("failed"))
        painter.drawRoundedRect(rect, 8, 8)
        painter.setPen(QColor("#ffffff"))
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), text)


class OnionItem(QGraphicsItem):
    """An agent box's wrapper frames, drawn by its node once per zoom and palette and then
    blitted (``DeviceCoordinateCache``): a change of the node's state does not draw them again."""

    def __init__(self, node: NodeItem, top: float) -> None:
        super().__init__(node)
        self._node = node
        self._top = top
        self.repaints = 0
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def boundingRect(self) -> QRectF:
        box = self._node.box
        height = onion_height(len(box.content.wrappers), self._node._m)
        return QRectF(0, self._top, box.rect.w, height).adjusted(-1, -1, 1, 1)  # the pen

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        self.repaints += 1
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        self._node._paint_onion(painter, self._top)
