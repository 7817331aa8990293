"""What the Events tree's cells show (``EventTreeModel.data``): the row summary and its
columns, colours, icons, tooltips and cost, the fold's own row and a cut run's gap.

``EventLook`` is the presentation part of ``studio.qtmodels.event_tree.EventTreeModel`` (the
structure: rows, indexes and the fold, is ``studio.qtmodels.event_index``; inserts are
``event_tree``'s).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QFont, QIcon

from engine.events import SuperstepStarted
from studio.look.tones import Tones
from studio.models.event_row import Row
from studio.models.event_summary import duration_text, field
from studio.models.event_tree import EventTree
from studio.models.pricing import PriceTable, Spend, spend_text, spend_tooltip
from studio.models.usage_ledger import UsageLedger
from studio.qtmodels.event_cells import draw_gap_icon, draw_icon, row_tooltip
from studio.qtmodels.event_fold import GROUP_ID, RootFold
from studio.qtmodels.event_gap import GAP_ID, GapSlot
from studio.widgets.plain_tip import plain_tip

__all__ = ["EventLook"]

Index = QModelIndex | QPersistentModelIndex
_POINT_MUTED = frozenset({"state", "checkpoint"})
_GAP_ICON = ("<gap>", 0)
"""The gap row's icon among the cached ones (no event family is spelt so)."""
# roles as plain ints: ``data`` runs for every role of every painted cell
_R = Qt.ItemDataRole
_DISPLAY, _FOREGROUND, _BACKGROUND = (
    int(_R.DisplayRole),
    int(_R.ForegroundRole),
    int(_R.BackgroundRole),
)
_DECORATION, _TOOLTIP, _FONT = int(_R.DecorationRole), int(_R.ToolTipRole), int(_R.FontRole)
_ALIGNMENT = int(_R.TextAlignmentRole)
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class EventLook:
    COLUMNS = ("Event", "Node", "Time", "Duration", "Cost")
    COST = 4
    RowRole = Qt.ItemDataRole.UserRole + 1
    """The ``Row`` behind an index."""
    SeqRole = Qt.ItemDataRole.UserRole + 2
    FailedRole = Qt.ItemDataRole.UserRole + 3
    """2 = this row failed, 1 = something below it failed, 0 = neither."""
    _ROLES = frozenset(
        {_DISPLAY, _FOREGROUND, _BACKGROUND, _DECORATION, _TOOLTIP, _FONT, _ALIGNMENT}
        | {int(RowRole), int(SeqRole), int(FailedRole)}
    )
    """The roles ``data`` answers."""

    tree: EventTree
    usage: UsageLedger
    prices: PriceTable
    fold: RootFold
    gap: GapSlot
    _tones: Tones
    _icons: dict[tuple[str, int], QIcon]
    _bold: QFont
    _italic: QFont

    def spend(self, row: Row) -> Spend | None:
        """What the model calls in ``row``'s span cost (None: no call in it)."""
        usage = self.usage.span(row.event.span_id) if row.is_span else None
        return self.prices.spend(usage) if usage is not None else None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # Hot: a painted cell asks for about seven roles; those not answered leave at once.
        if role not in self._ROLES or not index.isValid():
            return None
        uid = index.internalId()
        if uid >= GROUP_ID:  # a row of no event
            if uid == GAP_ID:
                return self._gap_data(index.column(), role)
            return self._fold_data(index.column(), role)
        row = self.tree.rows[uid]
        col = index.column()
        if role == _DISPLAY:
            return self._text(row, col)
        if role == _FOREGROUND:
            return self._foreground(row, col)
        if role == _BACKGROUND:
            if row.loop:
                return QBrush(self._tones.interrupted_fill)
            return QBrush(self._tones.failed_fill) if row.failed else None
        if role == _DECORATION:
            return self._icon(row) if col == 0 else None
        if role == _FONT:
            bold = col == 0 and (row.kind == "run.started" or row.loop)
            return self._bold if bold else None
        if role == _ALIGNMENT:
            return _RIGHT if col >= 2 else None
        if role == _TOOLTIP:
            return self._cost_tooltip(row) if col == self.COST else plain_tip(row_tooltip(row))
        if role == self.RowRole:
            return row
        if role == self.SeqRole:
            return row.seq
        return 2 if row.failed else 1 if row.contains_failure else 0  # FailedRole

    # -- presentation --------------------------------------------------------------------------

    def _fold_data(self, col: int, role: int) -> Any:
        """What the fold's own row shows: how many rows it holds, and whether one failed."""
        fold = self.fold
        if role == _DISPLAY:
            return fold.label if col == 0 else ""
        if role == _FOREGROUND:
            return QBrush(self._tones.failed if fold.failed == 2 else self._tones.muted)
        if role == _DECORATION and col == 0:
            return self._icon_for("run", True, 2 if fold.failed else 0)
        if role == _TOOLTIP and col == 0:
            return plain_tip(
                f"{fold.label} of this session, folded so the log stays quick to update; "
                "open the row to see them."
            )
        if role == self.FailedRole:
            return fold.failed
        return None

    def _gap_data(self, col: int, role: int) -> Any:
        """What the gap's row shows: the events of a cut run left in the file, muted and
        slanted (a place, not an event)."""
        gap = self.gap.gap
        if gap is None:
            return None
        if role == _DISPLAY:
            return gap.label if col == 0 else ""
        if role == _FOREGROUND:
            return QBrush(self._tones.muted)
        if role == _FONT:
            return self._italic
        if role == _DECORATION and col == 0:
            icon = self._icons.get(_GAP_ICON)
            if icon is None:
                icon = self._icons[_GAP_ICON] = draw_gap_icon(self._tones)
            return icon
        if role == _TOOLTIP:
            return plain_tip(gap.note)
        if role == self.FailedRole:
            return 0
        return None

    def _text(self, row: Row, col: int) -> str:
        if col == 0:
            note = row.pause_note()
            return f"{note} {row.summary()}" if note else row.summary()
        if col == 1:
            if isinstance(row.event, SuperstepStarted):
                tasks = row.event.tasks or []
                names = dict.fromkeys(str(field(t, "node", "?")) for t in tasks)
                return ", ".join(names)
            return row.node or ""
        if col == 2:
            return f"+{self.tree.offset_s(row):.3f} s"
        if col == self.COST:
            spend = self.spend(row)
            return spend_text(spend) if spend is not None else ""
        if row.is_open:
            return "…"
        active = duration_text(row.duration_ms())
        if row.paused_ms >= 1.0:  # active time first; the time spent at a breakpoint apart
            return f"{active} (+{duration_text(row.paused_ms)} paused)"
        return active

    def _foreground(self, row: Row, col: int) -> Any:
        t = self._tones
        if row.failed or row.loop:
            return QBrush(t.failed)
        if row.interrupted:
            return QBrush(t.interrupted)
        if col > 0 or row.family in _POINT_MUTED:
            return QBrush(t.muted)
        return None

    def _cost_tooltip(self, row: Row) -> str | None:
        spend = self.spend(row)
        if spend is None:
            return None
        return plain_tip(spend_tooltip(spend, self.prices))

    def _icon(self, row: Row) -> QIcon:
        state = 3 if row.failed else 4 if row.interrupted else 2 if row.contains_failure else 0
        if state == 0 and row.is_open:
            state = 1
        return self._icon_for(row.family, row.is_span, state)

    def _icon_for(self, family: str, is_span: bool, state: int) -> QIcon:
        key = (family if is_span else "point:" + family, state)
        icon = self._icons.get(key)
        if icon is None:
            icon = self._icons[key] = draw_icon(self._tones, family, is_span, state)
        return icon
