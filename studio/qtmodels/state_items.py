"""The State dock's Qt item model over a lazy ``StateTree`` (columns: key, value, type).

A node's children are built when the view first asks for them (expanding ``messages``), and
row data is computed only for the rows on screen, so a 10,000-message list expands in
milliseconds.  (Incremental ``fetchMore`` was tried first; inserting rows from it crashed
PySide6 6.12 when the view expanded a node, and building all children at once is fast enough.)
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSize,
    Qt,
)
from PySide6.QtGui import QColor, QFont, QFontMetrics

from studio.look.palette import Palette, colors
from studio.models.state_tree import Path, StateNode, StateTree
from studio.widgets.plain_text import plain_tip

__all__ = ["NODE_ROLE", "StateItemModel"]

NODE_ROLE = Qt.ItemDataRole.UserRole + 1
Index = QModelIndex | QPersistentModelIndex
_HEADERS = ("Key", "Value", "Type")


class StateItemModel(QAbstractItemModel):
    def __init__(self, parent: QObject | None = None, theme: str = "light") -> None:
        super().__init__(parent)
        self.tree = StateTree({})
        self.c: Palette = colors(theme)
        self.highlight: set[int] = set()
        """``id()`` of nodes matching the current search."""
        self._mono = QFont("DejaVu Sans Mono")
        self._mono.setStyleHint(QFont.StyleHint.Monospace)
        self._bold = QFont()
        self._bold.setBold(True)
        # one height for every row (the view's rows are uniform): tall enough for the mono
        # values, fallback CJK glyphs and descenders ("_" vanished in the default height)
        lines = [QFontMetrics(f).height() for f in (self._mono, self._bold, QFont())]
        self._row_size = QSize(-1, max(lines) + 4)

    def set_tree(self, tree: StateTree) -> None:
        self.beginResetModel()
        self.tree = tree
        self.highlight = set()
        self.endResetModel()

    def set_theme(self, theme: str) -> None:
        self.c = colors(theme)
        self.layoutChanged.emit()

    def node(self, index: Index) -> StateNode:
        return index.internalPointer() if index.isValid() else self.tree.root  # type: ignore[no-any-return]

    def index_of(self, node: StateNode, column: int = 0) -> QModelIndex:
        if node.parent is None:
            return QModelIndex()
        return self.createIndex(node.row, column, node)

    def index_for_path(self, path: Path) -> QModelIndex:
        """The index of the node at ``path`` (building the nodes on the way)."""
        node = self.tree.root
        idx = QModelIndex()
        for key in path:
            child = node.child(key)
            if child is None:
                return QModelIndex()
            node = child
            idx = self.createIndex(child.row, 0, child)
        return idx

    # -- QAbstractItemModel ------------------------------------------------------------------

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:
        node = self.node(parent)
        if row < 0 or row >= node.child_count() or not 0 <= column < 3:
            return QModelIndex()
        return self.createIndex(row, column, node.children()[row])

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QModelIndex()
        parent = self.node(index).parent
        return QModelIndex() if parent is None or parent.parent is None else self.index_of(parent)

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        return self.node(parent).child_count()

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 3

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:
        if parent.isValid() and parent.column() != 0:
            return False
        return self.node(parent).has_children()

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return _HEADERS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node = self.node(index)
        col = index.column()
        if role == NODE_ROLE:
            return node
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return node.display_key()
            if col == 1:
                return node.preview(120)
            return node.type_label()
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == 1 and node.child_count() == 0:
                text = node.to_json()
                return plain_tip(text if len(text) < 2000 else text[:2000] + "…")
            return plain_tip(node.path_text())
        if role == Qt.ItemDataRole.ForegroundRole:
            return QColor(self._color(node, col))
        if role == Qt.ItemDataRole.SizeHintRole:
            return self._row_size
        if role == Qt.ItemDataRole.FontRole:
            if id(node) in self.highlight and col == 0:
                return self._bold
            return self._mono if col == 1 else None
        if role == Qt.ItemDataRole.BackgroundRole and id(node) in self.highlight:
            return QColor(self.c.tint(self.c.amber, 0.22))
        return None

    def _color(self, node: StateNode, col: int) -> str:
        c = self.c
        if col == 2:
            return c.muted
        if col == 0:
            return c.text
        kind = node.kind
        if kind == "message":
            return c.role(getattr(node.value, "type", ""))
        return {
            "string": c.ok if not c.dark else "#a5d6ff",
            "number": c.accent,
            "bool": c.violet,
            "null": c.muted,
        }.get(kind, c.muted)

    # No ``flags`` override: Qt's own answers the same (enabled and selectable, nothing for an
    # invalid index) without a call into Python for every row laid out and every cell painted.
