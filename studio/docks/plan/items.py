"""Scene items of the Plan dock: one box per plan step, coloured by status.

A box has four rows: ``index · name``, the tool, the status line (status, code, attempt, retry
round) and a detail line (a failure's message, a skipped step's upstream reasons, a success's
output).  The layout measures the rows with ``step_lines`` so boxes fit their text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsSceneHoverEvent,
    QStyleOptionGraphicsItem,
    QWidget,
)

from studio.look.palette import Palette
from studio.models.plan_graph import StepView
from studio.widgets.plain_text import plain_tip

__all__ = [
    "BOX_HEIGHT",
    "MAX_WIDTH",
    "PlanFonts",
    "StepItem",
    "StepLines",
    "status_color",
    "step_lines",
]

BOX_HEIGHT = 84.0
MAX_WIDTH = 280.0
MIN_WIDTH = 210.0
PAD_X = 12.0


class PlanFonts:
    def __init__(self) -> None:
        self.title = self._font(13, QFont.Weight.DemiBold)
        self.tool = self._font(11, QFont.Weight.Normal, mono=True)
        self.status = self._font(11, QFont.Weight.DemiBold)
        self.detail = self._font(11, QFont.Weight.Normal)

    @staticmethod
    def _font(px: int, weight: QFont.Weight, mono: bool = False) -> QFont:
        fixed = QFontDatabase.SystemFont.FixedFont
        font = QFontDatabase.systemFont(fixed) if mono else QFont()  # else the app's font
        font.setPixelSize(px)
        font.setWeight(weight)
        return font

    def width(self, step: StepView) -> float:
        """A box wide enough for the title and tool rows (status rows elide), so boxes keep
        their size while the statuses change."""
        lines = step_lines(step)
        widest = max(
            QFontMetricsF(self.title).horizontalAdvance(lines.title),
            QFontMetricsF(self.tool).horizontalAdvance(lines.tool),
        )
        return min(MAX_WIDTH, max(MIN_WIDTH, widest + 2 * PAD_X + 6))


@dataclass(frozen=True)
class StepLines:
    title: str
    tool: str
    status: str
    detail: str


def _short(value: object, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _upstream(reason: str) -> str:
    """``step 2 skipped`` / ``step 1 failed`` from a skip reason
    (``step 1 (read sales): file not found``)."""
    found = re.match(r"step (\d+)", reason)
    who = f"step {found.group(1)}" if found else reason.split(":", 1)[0]
    return f"{who} {'skipped' if 'skipped (upstream' in reason else 'failed'}"


def step_lines(step: StepView) -> StepLines:
    """The four rows of a step's box."""
    status = step.status
    parts = [status]
    if step.code and status != "skipped":
        parts.append(step.code)
    if status == "skipped" and step.code:
        parts = [step.code]
    if step.attempt > 1:
        parts.append(f"attempt {step.attempt}")
    if step.retry_round:
        parts.append(f"round {step.retry_round}")
    detail = ""
    if status == "failed":
        detail = _short(step.message or "")
    elif status == "skipped":
        reasons = [_upstream(r) for r in step.reasons]
        detail = "↑ " + ", ".join(reasons) if reasons else _short(step.message or "")
    elif status == "succeeded" and step.output is not None:
        detail = "→ " + _short(step.output)
    return StepLines(f"{step.index} · {step.name}", step.tool, " · ".join(parts), detail)


def status_color(c: Palette, status: str) -> str:
    return {
        "pending": c.muted,
        "running": c.accent,
        "succeeded": c.ok,
        "failed": c.danger,
        "skipped": c.warn,
    }.get(status, c.muted)


class StepItem(QGraphicsItem):
    """A step's box; ``chain`` marks it as part of a highlighted dependency chain."""

    def __init__(
        self,
        step: StepView,
        rect: QRectF,
        fonts: PlanFonts,
        colors: Palette,
        on_hover: Callable[[int | None], None] | None = None,
    ) -> None:
        super().__init__()
        self.step = step
        self.on_hover = on_hover
        self.rect = QRectF(0, 0, rect.width(), rect.height())
        self.fonts, self.colors = fonts, colors
        self.chain: str | None = None
        """None, or the highlight colour role: "failed" (a failure's chain) or "focus"."""
        self.setPos(rect.x(), rect.y())
        self.setAcceptHoverEvents(True)
        self.setZValue(2)
        self.lines = step_lines(step)
        self.setToolTip(plain_tip(self._tooltip()))

    def _tooltip(self) -> str:
        s = self.step
        text = f"{s.index} · {s.name}  [{s.tool}]\n{self.lines.status}"
        if s.reasons:
            text += "\nUpstream: " + "; ".join(s.reasons)
        elif s.message:
            text += f"\n{s.message}"
        return text

    def set_chain(self, role: str | None) -> None:
        if role != self.chain:
            self.chain = role
            self.update()

    def hoverEnterEvent(self, event: QGraphicsSceneHoverEvent) -> None:
        if self.on_hover is not None:
            self.on_hover(self.step.index)
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event: QGraphicsSceneHoverEvent) -> None:
        if self.on_hover is not None:
            self.on_hover(None)
        super().hoverLeaveEvent(event)

    def boundingRect(self) -> QRectF:
        return self.rect.adjusted(-4, -4, 4, 4)

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        c = self.colors
        color = QColor(status_color(c, self.step.status))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        r = self.rect
        fill = QColor(c.tint(color.name(), 0.10 if self.step.status != "pending" else 0.0))
        if self.step.status == "pending":
            fill = QColor(c.panel)
        border = QColor(c.tint(color.name(), 0.55))
        width = 1.2
        if self.chain is not None:
            border = QColor(c.danger if self.chain == "failed" else c.accent)
            width = 2.6
        elif self.step.status == "running":
            border, width = color, 2.2
        painter.setPen(QPen(border, width))
        painter.setBrush(fill)
        painter.drawRoundedRect(r, 8, 8)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
        painter.drawRoundedRect(QRectF(r.x() + 1, r.y() + 1, 5, r.height() - 2), 2.5, 2.5)
        rows = (
            (self.fonts.title, self.lines.title, c.text, 8.0, 17.0),
            (self.fonts.tool, self.lines.tool, c.muted, 26.0, 15.0),
            (self.fonts.status, self.lines.status, color.name(), 44.0, 15.0),
            (self.fonts.detail, self.lines.detail, c.muted, 61.0, 15.0),
        )
        for font, text, ink, top, height in rows:
            if not text:
                continue
            painter.setFont(font)
            painter.setPen(QColor(ink))
            box = QRectF(PAD_X + 4, top, r.width() - 2 * PAD_X - 4, height)
            elided = QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideRight, box.width())
            painter.drawText(
                box, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), elided
            )
