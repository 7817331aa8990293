"""The Timeline dock's side of the fold of old checkpoints (``studio.qtmodels.timeline_fold``):
a click opens or closes it, a folded checkpoint being selected opens it, and its row shows
whether it is open."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import QTreeView

from studio.qtmodels.timeline_fold import EarlierCheckpoints
from studio.qtmodels.timeline_items import TimelineItemModel

__all__ = ["FoldRow"]


class FoldRow:
    def __init__(
        self, view: QTreeView, model: TimelineItemModel, after_move: Callable[[], None]
    ) -> None:
        self.view = view
        self.model = model
        view.expanded.connect(lambda index: self._shown(index, True))
        view.collapsed.connect(lambda index: self._shown(index, False))
        model.folded.connect(after_move)

    @property
    def moving(self) -> bool:
        """Rows are being moved into the fold: what the view hears meanwhile is not new."""
        return self.model.fold.moving

    def toggle(self, index: QModelIndex) -> bool:
        """Open or close the fold if ``index`` is its row (True: it was)."""
        if not isinstance(self.model.item(index), EarlierCheckpoints):
            return False
        self.view.setExpanded(index, not self.view.isExpanded(index))
        return True

    def reveal(self, index: QModelIndex) -> None:
        """Open the fold if it holds ``index``."""
        fold, up = self.model.fold_index(), index.parent()
        while fold.isValid() and up.isValid():
            if up == fold:
                self.view.expand(fold)
                return
            up = up.parent()

    def _shown(self, index: QModelIndex, shown: bool) -> None:
        item = self.model.item(index)
        if isinstance(item, EarlierCheckpoints):
            item.open = shown
            self.view.update(index)
