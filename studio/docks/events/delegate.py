"""The Events tree's cell painter: what ``QStyledItemDelegate`` draws, without redoing it.

The stock delegate asks the model for about seven roles per cell and lays the text out two or
three times (its size, its elision, the drawing) on every paint: about 0.15 ms a cell, most of
a live log's repaint.  ``EventCellDelegate`` keeps, per cell, what the model answered (text,
colours, font, icon, alignment) and the text laid out for the cell's width, and paints them
the way the style does (background brush, icon in the style's decoration rect, the elided
text where the style puts it).  A cell is asked again only when the model says it changed
(``dataChanged``, a reset); the cache is bounded.

A cell is painted this way from its first paint on: reading its roles straight from the model
and laying its text out costs less than the stock painter's one paint (its roles asked through
Qt, the style sheet's rules matched, the text laid out two or three times), and every repaint
after that (scrolling back, resizing, a dock shown again, a row expanded above) costs a
fraction of it.

Cells the style draws differently (selected, hovered, focused, disabled, being edited) go to
the stock painter, so what a user sees stays exactly the style's.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from typing import Any

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPointF,
    QRect,
    QSize,
    Qt,
)
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QIcon,
    QPainter,
    QPalette,
    QTextLayout,
    QTextOption,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
)

__all__ = ["CellLook", "EventCellDelegate"]

Index = QModelIndex | QPersistentModelIndex
_R = Qt.ItemDataRole
_SF = QStyle.StateFlag
_STOCK_STATES = (
    _SF.State_Selected | _SF.State_MouseOver | _SF.State_HasFocus | _SF.State_Editing
).value
"""States the style paints with more than the cell's own look: left to the stock painter (as
plain ints: an operation on a Python enum flag makes a new enum member, a few us each)."""
_ENABLED, _ACTIVE = _SF.State_Enabled.value, _SF.State_Active.value
_DISPLAY, _FOREGROUND, _BACKGROUND = (
    int(_R.DisplayRole),
    int(_R.ForegroundRole),
    int(_R.BackgroundRole),
)
_FONT, _DECORATION, _ALIGNMENT = int(_R.FontRole), int(_R.DecorationRole), int(_R.TextAlignmentRole)
_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
_FOCUS_MARGIN = QStyle.PixelMetric.PM_FocusFrameHMargin
_LIMIT = 4000
"""Cells kept; past it the older half is dropped."""


@dataclass
class CellLook:
    """What the model says about one cell, and its text laid out per width."""

    text: str
    foreground: QBrush | None
    background: QBrush | None
    font: QFont | None
    icon: QIcon | None
    alignment: Qt.AlignmentFlag
    stock: bool = False
    """Drawn by the stock painter (text of several lines)."""
    font_key: str = ""
    """``font.key()`` of ``font`` ("" without one)."""
    pen: QColor | None = None
    """``foreground``'s colour, the text's pen."""


class EventCellDelegate(QStyledItemDelegate):
    def __init__(self, view: QAbstractItemView) -> None:
        super().__init__(view)
        self._view = view
        self._looks: dict[tuple[int, int], CellLook] = {}
        self._rects: dict[tuple[Any, ...], tuple[QRect, QRect]] = {}
        self._texts: dict[tuple[Any, ...], tuple[QTextLayout, QPointF, bool]] = {}
        """Texts laid out, shared by the cells that show them: (text, font, width, alignment,
        direction) -> (layout, offset in the text rect, whether it overflows even elided)."""
        self._margin: int | None = None
        self._hints: dict[tuple[int, int], tuple[tuple[str, int, int], QSize]] = {}
        """The stock size hint of cells, with the font and decoration size it is for: the tree
        view lays its rows out after every batch of rows and asks the first row's cells each
        time (uniform row heights), a read of every role and a text layout per cell."""
        self.model: Any = None
        self.stock_paints = 0
        """Cells handed to the stock painter (for tests and diagnostics)."""
        view.installEventFilter(self)

    def bind(self, model: Any) -> None:
        """Read cells of ``model`` (call after ``view.setModel``)."""
        self.model = model
        model.dataChanged.connect(self._on_changed)
        for signal in (model.modelReset, model.layoutChanged):
            signal.connect(self.forget)

    def forget(self, *_: Any) -> None:
        self._hints.clear()
        self._looks.clear()
        self._rects.clear()
        self._texts.clear()
        self._margin = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (
            QEvent.Type.FontChange,
            QEvent.Type.StyleChange,
            QEvent.Type.PaletteChange,
        ):
            self.forget()
        return False

    def _on_changed(self, top_left: QModelIndex, bottom_right: QModelIndex, *_: Any) -> None:
        looks, hints = self._looks, self._hints
        if not looks and not hints:
            return
        parent = top_left.parent()
        if not parent.isValid() and bottom_right.row() > top_left.row():
            # several top-level rows: the model's "everything changed" (prices, palette)
            self.forget()
            return
        # the rows' ids read off the tree (one call, where an index per row is a call into Qt
        # and back into the model's ``index``)
        for uid in self.model.uids(parent, top_left.row(), bottom_right.row()):
            for col in range(top_left.column(), bottom_right.column() + 1):
                looks.pop((uid, col), None)
                hints.pop((uid, col), None)

    # -- the cell's look ------------------------------------------------------------------------

    def look(self, index: Index) -> CellLook:
        key = (index.internalId(), index.column())
        look = self._looks.get(key)
        if look is None:
            if len(self._looks) >= _LIMIT:
                for old in list(islice(self._looks, _LIMIT // 2)):
                    del self._looks[old]
            look = self._looks[key] = _read(self.model, index)
        return look

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        deco = option.decorationSize
        key = (index.internalId(), index.column())
        shape = (option.font.key(), deco.width(), deco.height())
        found = self._hints.get(key)
        if found is None or found[0] != shape:
            if len(self._hints) >= _LIMIT:
                self._hints.clear()
            found = self._hints[key] = (shape, super().sizeHint(option, index))
        return QSize(found[1])

    # -- painting -------------------------------------------------------------------------------

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        state: int = option.state.value
        if state & _STOCK_STATES or not state & _ENABLED:
            self.stock_paints += 1
            super().paint(painter, option, index)
            return
        look = self._looks.get((index.internalId(), index.column()))
        if look is None:
            look = self.look(index)
        if look.stock:
            self.stock_paints += 1
            super().paint(painter, option, index)
            return
        rect: QRect = option.rect
        icon_rect, text_rect = self._layout_rects(option, look.icon is not None)
        x, y = rect.x(), rect.y()
        if look.background is not None:
            origin = painter.brushOrigin()
            painter.setBrushOrigin(rect.topLeft())
            painter.fillRect(rect, look.background)
            painter.setBrushOrigin(origin)
        if look.icon is not None:
            look.icon.paint(painter, icon_rect.translated(x, y), option.decorationAlignment)
        if not look.text:
            return
        direction = option.direction
        text_key = (look.text, look.font_key, text_rect.width(), look.alignment, direction)
        laid = self._texts.get(text_key)
        if laid is None:
            if len(self._texts) >= _LIMIT:
                for old in list(islice(self._texts, _LIMIT // 2)):
                    del self._texts[old]
            laid = self._texts[text_key] = self._lay_out(look, option, text_rect)
        layout, offset, clip = laid
        if look.pen is not None:
            painter.setPen(look.pen)
        else:
            group = QPalette.ColorGroup.Normal
            if not state & _ACTIVE:
                group = QPalette.ColorGroup.Inactive
            painter.setPen(option.palette.color(group, QPalette.ColorRole.Text))
        at = QPointF(x + text_rect.x() + offset.x(), y + text_rect.y() + offset.y())
        if clip:
            painter.save()
            painter.setClipRect(rect)
            layout.draw(painter, at)
            painter.restore()
        else:
            layout.draw(painter, at)

    def _layout_rects(self, option: QStyleOptionViewItem, has_icon: bool) -> tuple[QRect, QRect]:
        """The style's decoration and text rects for a cell of this size, relative to it."""
        rect: QRect = option.rect
        deco = option.decorationSize
        key = (rect.width(), rect.height(), has_icon, deco.width(), deco.height())
        found = self._rects.get(key)
        if found is None:
            opt = QStyleOptionViewItem(option)
            opt.rect = QRect(0, 0, rect.width(), rect.height())
            features = opt.features | QStyleOptionViewItem.ViewItemFeature.HasDisplay
            if has_icon:
                features |= QStyleOptionViewItem.ViewItemFeature.HasDecoration
                opt.icon = QIcon()
            opt.features = features
            opt.text = "x"
            style = self._view.style()
            found = self._rects[key] = (
                style.subElementRect(QStyle.SubElement.SE_ItemViewItemDecoration, opt, self._view),
                style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, self._view),
            )
        return found

    def _lay_out(
        self, look: CellLook, option: QStyleOptionViewItem, text_rect: QRect
    ) -> tuple[QTextLayout, QPointF, bool]:
        """The text elided to ``text_rect`` and laid out where the style draws it (as
        ``QCommonStyle`` does: the full text's height centres it, the elided text is drawn)."""
        font = look.font.resolve(option.font) if look.font is not None else option.font
        if self._margin is None:
            style = self._view.style()
            self._margin = style.pixelMetric(_FOCUS_MARGIN, None, self._view) + 1
        margin = self._margin
        inner = text_rect.adjusted(margin, 0, -margin, 0)
        width = inner.width()
        direction = option.direction
        text_option = QTextOption()
        text_option.setWrapMode(QTextOption.WrapMode.ManualWrap)
        text_option.setTextDirection(direction)
        text_option.setAlignment(QStyle.visualAlignment(direction, look.alignment))
        full = _one_line(look.text, font, text_option, width)
        line = full.lineAt(0)
        height = QSize(width, round(line.height()))
        placed = QStyle.alignedRect(
            Qt.LayoutDirection.LayoutDirectionAuto, look.alignment, height, inner
        )
        shown, natural = full, line.naturalTextWidth()
        if natural > width:
            elided = QFontMetrics(font).elidedText(look.text, option.textElideMode, width)
            shown = _one_line(elided, font, text_option, width)
            natural = shown.lineAt(0).naturalTextWidth()
        return shown, QPointF(margin, placed.y() - text_rect.y()), natural > width


def _read(model: Any, index: Index) -> CellLook:
    """The model's roles for a cell, asked once, as ``QStyledItemDelegate.initStyleOption``
    asks them (straight from the model: no trip through Qt per role)."""
    data = model.data
    text = data(index, _DISPLAY)
    fg = data(index, _FOREGROUND)
    bg = data(index, _BACKGROUND)
    font = data(index, _FONT)
    icon = data(index, _DECORATION)
    align = data(index, _ALIGNMENT)
    text = "" if text is None else str(text)
    font = font if isinstance(font, QFont) else None
    fg = fg if isinstance(fg, QBrush) else None
    return CellLook(
        text=text,
        foreground=fg,
        background=bg if isinstance(bg, QBrush) and bg.style() != Qt.BrushStyle.NoBrush else None,
        font=font,
        icon=icon if isinstance(icon, QIcon) and not icon.isNull() else None,
        alignment=Qt.AlignmentFlag(align) if align is not None else _LEFT,
        stock="\n" in text or "\r" in text,
        font_key=font.key() if font is not None else "",
        pen=fg.color() if fg is not None else None,
    )


def _one_line(text: str, font: QFont, text_option: QTextOption, width: int) -> QTextLayout:
    layout = QTextLayout(text, font)
    layout.setTextOption(text_option)
    layout.beginLayout()
    layout.createLine().setLineWidth(width)
    layout.endLayout()
    return layout
