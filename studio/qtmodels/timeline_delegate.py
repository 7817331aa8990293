"""The Timeline's row painter: checkpoint rows, branch headers and the fold, with the lanes of
the branch graph (``TimelineDelegate``)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QSize,
    Qt,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from studio.look.palette import Palette, colors
from studio.models.timeline import Branch, CheckpointNode
from studio.qtmodels.timeline_fold import EarlierCheckpoints
from studio.qtmodels.timeline_items import ITEM_ROLE, MARKS, ROW_HEIGHT
from studio.widgets.pieces import Pieces
from studio.widgets.row_images import RowImages

__all__ = ["TimelineDelegate", "fork_chain"]

Index = QModelIndex | QPersistentModelIndex
_MARK_LABELS = {"divergence": "diverged", "replayed": "replayed"}


LANE = 16
"""Horizontal distance between the lanes of a branch and of the branches forked from it."""


def fork_chain(branch: Branch) -> list[CheckpointNode]:
    """The fork points above ``branch``, innermost first (empty for a root branch)."""
    out: list[CheckpointNode] = []
    b = branch
    while b.fork_point is not None:
        out.append(b.fork_point)
        b = b.fork_point.branch
    return out


class TimelineDelegate(QStyledItemDelegate):
    """Paints checkpoint rows and branch headers, with the lanes of the branch graph.

    The view has no indentation: the delegate places each branch in its own lane (one lane
    per fork level) and draws the lanes of the branches it was forked from through its rows,
    so the main line stays continuous past a fork's rows.
    """

    def __init__(self, parent: QWidget | None = None, theme: str = "light") -> None:
        super().__init__(parent)
        self.c: Palette = colors(theme)
        self.live_id: str | None = None
        """The newest checkpoint, tagged "live" while the run follows the tip."""
        self.collapsed: set[int] = set()
        """Ids of branches whose header is collapsed (drawn with ▸)."""
        self._fonts: dict[str, _Fonts] = {}
        """The fonts a row is drawn with, by the view font's key (made once, not per row)."""
        self.rows = RowImages()
        """Rows drawn, by their look."""
        self.tails = Pieces()
        """Checkpoint rows' parts after the step, by their look."""

    def _fonts_for(self, font: QFont) -> _Fonts:
        key = font.key()
        fonts = self._fonts.get(key)
        if fonts is None:
            fonts = self._fonts[key] = _Fonts(font)
        return fonts

    def set_theme(self, theme: str) -> None:
        self.c = colors(theme)
        self.rows.clear()
        self.tails.clear()

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        return QSize(200, ROW_HEIGHT)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        # A row is drawn once per look (its signature) into an image and copied from then on:
        # the row's own painting fills its whole rect, so the copy is the same pixels.
        item = index.data(ITEM_ROLE)
        r: QRect = option.rect  # type: ignore[attr-defined]
        state = option.state  # type: ignore[attr-defined]
        selected = bool(state & QStyle.StateFlag.State_Selected)
        hover = bool(state & QStyle.StateFlag.State_MouseOver)
        fonts = self._fonts_for(option.font)  # type: ignore[attr-defined]
        device = painter.device()
        ratio = device.devicePixelRatioF() if device is not None else 1.0
        key = (self._signature(item), selected, hover, id(fonts), r.width(), r.height(), ratio)
        image = self.rows.get(key)
        if image is None:
            image = self.rows.put(key, self._draw(item, r.size(), ratio, selected, hover, fonts))
        painter.drawImage(r.topLeft(), image)

    def _draw(
        self, item: Any, size: QSize, ratio: float, selected: bool, hover: bool, fonts: _Fonts
    ) -> QImage:
        image = QImage(
            round(size.width() * ratio), round(size.height() * ratio), QImage.Format.Format_RGB32
        )
        image.setDevicePixelRatio(ratio)
        painter = QPainter(image)
        try:
            self.paint_row(painter, QRect(QPoint(0, 0), size), item, selected, hover, fonts)
        finally:
            painter.end()
        return image

    def _signature(self, item: Any) -> tuple[Any, ...]:
        """Everything a row's pixels depend on besides its size, state and fonts."""
        if isinstance(item, Branch):
            chain = fork_chain(item)
            return (
                "branch",
                item.id,
                _lanes(chain),
                item.id in self.collapsed,
                item.title(),
                item.tip.step,
            )
        if isinstance(item, CheckpointNode):
            b = item.branch
            return (
                "node",
                b.id,
                _lanes(fork_chain(b)),
                item.index == 0,
                item.index == len(b.nodes) - 1,
                item.source,
                item.step,
                tuple(m.kind for m in item.markers),
                item.checkpoint_id == self.live_id,
                tuple(item.writers),
                None if item.next is None else tuple(item.next),
            )
        if isinstance(item, EarlierCheckpoints):
            return ("earlier", item.count, item.open)
        return ("none",)

    def paint_row(
        self,
        painter: QPainter,
        r: QRect,
        item: Any,
        selected: bool,
        hover: bool,
        fonts: _Fonts,
    ) -> None:
        """Draw ``item``'s row in ``r`` (what ``paint`` copies), nothing outside it: the lanes'
        2 px pens stop at the row's edges instead of leaving half a pixel on the neighbours."""
        c = self.c
        painter.save()
        painter.setClipRect(r)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fill = QColor(c.selection if selected else (c.tint(c.accent, 0.05) if hover else c.panel))
        painter.fillRect(r, fill)
        if isinstance(item, Branch):
            self._paint_branch(painter, r, item, fonts)
        elif isinstance(item, CheckpointNode):
            self._paint_node(painter, r, item, fonts, fill)
        elif isinstance(item, EarlierCheckpoints):
            self._paint_earlier(painter, r, item, fonts)
        painter.restore()

    def _paint_earlier(
        self, p: QPainter, r: QRect, item: EarlierCheckpoints, fonts: _Fonts
    ) -> None:
        """The fold: the main line's lane going on, and its title in the muted colour."""
        x = r.left() + 8
        p.setPen(QPen(QColor(self.c.branch(0)), 2, Qt.PenStyle.DotLine))
        p.drawLine(x, r.top(), x, r.bottom() + 1)
        p.setFont(fonts.bold)
        p.setPen(QColor(self.c.muted))
        text = f"{'▾' if item.open else '▸'}  {item.title()}"
        p.drawText(r.adjusted(x - r.left() + 10, 0, -6, 0), Qt.AlignmentFlag.AlignVCenter, text)

    def _through_lanes(self, p: QPainter, r: QRect, chain: list[CheckpointNode]) -> None:
        """The lanes of the enclosing branches that continue below this row."""
        depth = len(chain)
        for k, fork_point in enumerate(chain):
            parent_branch = fork_point.branch
            if fork_point.index < len(parent_branch.nodes) - 1:
                x = r.left() + 8 + (depth - 1 - k) * LANE
                p.setPen(QPen(QColor(self.c.branch(parent_branch.id)), 2))
                p.drawLine(x, r.top(), x, r.bottom() + 1)

    def _paint_branch(self, p: QPainter, r: QRect, b: Branch, fonts: _Fonts) -> None:
        chain = fork_chain(b)
        self._through_lanes(p, r, chain)
        depth = len(chain)
        color = QColor(self.c.branch(b.id))
        x = r.left() + 8 + depth * LANE
        cy = r.center().y()
        if depth:  # the fork: a curve from the parent's lane into this branch's lane
            px = x - LANE
            path = QPainterPath()
            path.moveTo(px, r.top())
            path.cubicTo(px, cy, x, cy - 2, x, r.bottom() + 1)
            p.setPen(QPen(color, 2))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawPath(path)
        p.setFont(fonts.bold)
        p.setPen(color)
        arrow = "▸" if b.id in self.collapsed else "▾"
        tip = b.tip
        text = f"{arrow}  {b.title()}  ·  tip step {tip.step}"
        p.drawText(r.adjusted(x - r.left() + 10, 0, -6, 0), Qt.AlignmentFlag.AlignVCenter, text)

    def _paint_node(
        self, p: QPainter, r: QRect, n: CheckpointNode, fonts: _Fonts, fill: QColor
    ) -> None:
        c = self.c
        chain = fork_chain(n.branch)
        self._through_lanes(p, r, chain)
        depth = len(chain)
        lane = QColor(c.branch(n.branch.id))
        cy = r.center().y()
        lx = r.left() + 8 + depth * LANE
        # the lane: a line through the row, a dot on it (hollow for fork/update checkpoints)
        p.setPen(QPen(lane, 2))
        first, last = n.index == 0, n.index == len(n.branch.nodes) - 1
        top = r.top() if not (first and depth == 0) else cy
        p.drawLine(lx, top, lx, r.bottom() + 1 if not last else cy)
        p.setBrush(QColor(c.panel) if n.source in ("fork", "update") else lane)
        p.drawEllipse(lx - 4, cy - 4, 8, 8)
        x = r.left() + 8 + (depth + 1) * LANE
        # step
        p.setFont(fonts.mono)
        p.setPen(QColor(c.muted))
        step = "?" if n.step is None else str(n.step)
        p.drawText(
            QRect(x, r.top(), 30, r.height()),
            Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight,
            step,
        )
        x += 36
        # what follows the step (chip, writers and next, markers, the live tag) depends on
        # none of the row's own numbers: drawn once per look, copied into every row showing it
        who = (
            ", ".join(n.writers)
            if n.writers
            else ("copy of step " + _parent_step(n) if n.source == "fork" else "")
        )
        nxt = "?" if n.next is None else (", ".join(n.next) if n.next else "end")
        live = n.checkpoint_id == self.live_id
        kinds = tuple(m.kind for m in n.markers)
        tail = QRect(x, r.top(), r.right() + 1 - x, r.height())
        key = (
            n.source,
            who,
            nxt,
            live,
            kinds,
            tail.width(),
            tail.height(),
            r.center().y() - r.top(),
        )
        self.tails.draw(
            p,
            tail,
            fill,
            (key, id(fonts), id(c)),
            lambda tp, tr: self._paint_tail(tp, tr, n.source, who, nxt, live, kinds, fonts),
        )

    def _paint_tail(
        self,
        p: QPainter,
        r: QRect,
        source: str,
        who: str,
        nxt: str,
        live: bool,
        kinds: tuple[str, ...],
        fonts: _Fonts,
    ) -> None:
        """A checkpoint row from its source chip (at ``r``'s left) to its right end."""
        c = self.c
        cy = r.center().y()
        x = r.left()
        font, fm = fonts.font, fonts.metrics
        # source chip
        small = fonts.small
        src = QColor(c.source(source))
        w = fonts.small_metrics.horizontalAdvance(source) + 10
        chip = QRect(x, cy - 8, w, 16)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(c.tint(src.name(), 0.16)))
        p.drawRoundedRect(chip, 4, 4)
        p.setFont(small)
        p.setPen(src)
        p.drawText(chip, Qt.AlignmentFlag.AlignCenter, source)
        x += max(w, 46) + 8
        # markers (right side)
        right = r.right() - 6
        p.setFont(font)
        for kind in reversed(kinds):
            color = QColor(
                {
                    "divergence": c.amber,
                    "interrupt": c.violet,
                    "error": c.danger,
                    "replayed": c.accent,
                }[kind]
            )
            label = f"{MARKS[kind]} {_MARK_LABELS.get(kind, kind)}"
            mw = fm.horizontalAdvance(label) + 12
            box = QRect(right - mw, cy - 9, mw, 18)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor(c.tint(color.name(), 0.18)))
            p.drawRoundedRect(box, 4, 4)
            p.setPen(color)
            p.drawText(box, Qt.AlignmentFlag.AlignCenter, label)
            right -= mw + 4
        if live:
            label = "● live"
            mw = fm.horizontalAdvance(label) + 8
            p.setPen(QColor(c.ok))
            p.drawText(
                QRect(right - mw, r.top(), mw, r.height()), Qt.AlignmentFlag.AlignVCenter, label
            )
            right -= mw + 4
        # writers → next
        avail = max(0, right - x - 4)
        p.setFont(font)
        p.setPen(QColor(c.text))
        who_text = fm.elidedText(who, Qt.TextElideMode.ElideRight, int(avail * 0.55)) if who else ""
        if who_text:
            p.drawText(
                QRect(x, r.top(), avail, r.height()), Qt.AlignmentFlag.AlignVCenter, who_text
            )
            x += fm.horizontalAdvance(who_text) + 6
        p.setPen(QColor(c.muted))
        arrow = f"→ {nxt}"
        p.drawText(
            QRect(x, r.top(), max(0, right - x), r.height()),
            Qt.AlignmentFlag.AlignVCenter,
            fm.elidedText(arrow, Qt.TextElideMode.ElideRight, max(0, right - x)),
        )


class _Fonts:
    """The fonts of a row for one view font: the text, its bold, the step's monospace, the
    source chip's small bold, and the metrics of those that are measured."""

    def __init__(self, font: QFont) -> None:
        self.font = QFont(font)
        self.metrics = QFontMetrics(self.font)
        self.bold = QFont(font)
        self.bold.setBold(True)
        self.mono = QFont(font)
        self.mono.setFamilies(["DejaVu Sans Mono", "Menlo", "Consolas", "monospace"])
        self.mono.setPointSizeF(max(7.0, font.pointSizeF() - 0.5))
        self.small = QFont(font)
        self.small.setPointSizeF(max(7.0, font.pointSizeF() - 1.5))
        self.small.setBold(True)
        self.small_metrics = QFontMetrics(self.small)


def _lanes(chain: list[CheckpointNode]) -> tuple[tuple[int, bool], ...]:
    """What ``_through_lanes`` draws for a row below ``chain``: each lane and whether it goes on."""
    return tuple((fp.branch.id, fp.index < len(fp.branch.nodes) - 1) for fp in chain)


def _parent_step(n: CheckpointNode) -> str:
    return "?" if n.step is None else str(n.step - 1)
