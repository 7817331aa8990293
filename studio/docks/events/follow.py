"""Follow mode of the Events dock: keep the path to the newest event open, and only that.

``FollowPath`` expands the rows leading to the newest visible event, collapses again the rows it
expanded itself once the path leaves them (never a row the user opened), and scrolls to the end.
Rows the user expands or collapses are the user's from then on.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import QTreeView

from studio.models.event_row import Row
from studio.qtmodels.event_tree import EventTreeModel

__all__ = ["FollowPath"]


class FollowPath:
    def __init__(self, view: QTreeView, model: EventTreeModel) -> None:
        self.view = view
        self.model = model
        self.auto: set[Row] = set()
        """Rows expanded by following (collapsed again when the path leaves them)."""
        self.expanding = False
        """Expanding on our own: the view's expanded/collapsed signals are not the user's."""
        view.expanded.connect(self._on_expanded)
        view.collapsed.connect(self._on_collapsed)

    def forget(self) -> None:
        self.auto.clear()

    def follow(self) -> None:
        """Open the path to the newest visible row, close what following opened before, and
        scroll to the end."""
        tree = self.model.tree
        if not tree.rows:
            return
        target: Row | None = tree.rows[-1]
        while target is not None and target is not tree.root and not tree.is_visible(target):
            target = target.parent
        if target is None or target is tree.root:
            return
        path = tree.ancestors(target)
        if tree.children(target):
            path.append(target)
        keep = set(path)
        self.expanding = True
        try:
            for r in path:
                idx = self.model.index_of(r)
                if idx.isValid() and not self.view.isExpanded(idx):
                    self.view.expand(idx)
                    self.auto.add(r)
            for r in [r for r in self.auto if r not in keep]:
                self.auto.discard(r)
                idx = self.model.index_of(r)
                if idx.isValid():
                    self.view.collapse(idx)
        finally:
            self.expanding = False
        self.view.scrollToBottom()

    def expand_above(self, index: QModelIndex) -> None:
        """Expand every ancestor of ``index`` (to select it)."""
        parent = index.parent()
        self.expanding = True
        try:
            while parent.isValid():
                self.view.expand(parent)
                parent = parent.parent()
        finally:
            self.expanding = False

    def _on_expanded(self, index: QModelIndex) -> None:
        if self.model.canFetchMore(index):
            self.model.fetchMore(index)
        if not self.expanding:
            row = self.model.row_at(index)
            self.auto.discard(row)  # type: ignore[arg-type]

    def _on_collapsed(self, index: QModelIndex) -> None:
        if not self.expanding:
            self.auto.discard(self.model.row_at(index))  # type: ignore[arg-type]
