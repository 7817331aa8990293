"""``TranscriptModel``: a list model over a ``Transcript`` (practice 4: a thin adapter).

It keeps the *live* transcript fed by events at all times and shows either it or a
checkpoint's messages (``show_messages``); switching back to live is one reset.  Changes of
the transcript shown arrive as row ranges and become ``beginInsertRows``/``endInsertRows``,
``beginRemoveRows``/``endRemoveRows`` and ``dataChanged``: nothing is rebuilt on append.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from engine.events import EventBase
from studio.models.transcript import Entry, Transcript
from studio.widgets.plain_text import plain_tip

__all__ = ["TranscriptModel"]

Index = QModelIndex | QPersistentModelIndex
_ROLE_NAMES = {"human": "User", "ai": "Assistant", "tool": "Tool", "system": "System"}


class _Forward:
    """Relays one transcript's changes to the model while that transcript is shown."""

    def __init__(self, model: TranscriptModel, transcript: Transcript) -> None:
        self.model = model
        self.transcript = transcript

    def _on(self) -> bool:
        return self.model.transcript is self.transcript

    def before_insert(self, first: int, last: int) -> None:
        if self._on():
            self.model.beginInsertRows(QModelIndex(), first, last)

    def after_insert(self) -> None:
        if self._on():
            self.model.endInsertRows()

    def before_remove(self, first: int, last: int) -> None:
        if self._on():
            self.model.beginRemoveRows(QModelIndex(), first, last)

    def after_remove(self) -> None:
        if self._on():
            self.model.endRemoveRows()

    def changed(self, first: int, last: int) -> None:
        if self._on():
            self.model.dataChanged.emit(self.model.index(first), self.model.index(last))


class TranscriptModel(QAbstractListModel):
    EntryRole = Qt.ItemDataRole.UserRole + 1
    """The ``Entry`` of a row."""
    RoleRole = Qt.ItemDataRole.UserRole + 2
    """``human`` / ``ai`` / ``tool`` / ``system``."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.live = Transcript()
        self.live.listener = _Forward(self, self.live)
        self._snapshot = Transcript()
        self._snapshot.listener = _Forward(self, self._snapshot)
        self.transcript: Transcript = self.live
        """The transcript shown: ``live`` or a checkpoint's."""

    @property
    def showing_live(self) -> bool:
        return self.transcript is self.live

    def apply(self, events: Iterable[EventBase]) -> None:
        self.live.apply(events)

    def clear(self) -> None:
        self.beginResetModel()
        self.live = Transcript()
        self.live.listener = _Forward(self, self.live)
        self.transcript = self.live
        self.endResetModel()

    def show_live(self) -> None:
        if self.transcript is not self.live:
            self.beginResetModel()
            self.transcript = self.live
            self.endResetModel()

    def show_messages(self, messages: Iterable[Any]) -> None:
        """Show these messages (a checkpoint's) instead of the live conversation."""
        if self.transcript is self._snapshot:
            self._snapshot.set_messages(messages)  # small diffs between nearby checkpoints
            return
        self.beginResetModel()
        self._snapshot = Transcript()
        self._snapshot.set_messages(messages)
        self._snapshot.listener = _Forward(self, self._snapshot)
        self.transcript = self._snapshot
        self.endResetModel()

    def entry(self, row: int) -> Entry:
        return self.transcript[row]

    # -- QAbstractListModel --------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.transcript)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.transcript):
            return None
        entry = self.transcript[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{_ROLE_NAMES.get(entry.role, entry.role)}: {plain_text(entry)}"
        if role == self.EntryRole:
            return entry
        if role == self.RoleRole:
            return entry.role
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tip(entry.id) if entry.id else None
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable


def plain_text(entry: Entry) -> str:
    """The entry as plain text: its content, then ``→ tool(args)`` lines for tool calls."""
    lines = [entry.text] if entry.text else []
    for call in entry.tool_calls:
        lines.append(f"→ {call.get('name')}({call.get('args')})")
    for chunk in entry.chunks.values():
        lines.append(f"→ {chunk.get('name')}({chunk.get('args')}…")
    return "\n".join(lines)
