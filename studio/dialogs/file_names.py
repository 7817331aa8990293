"""File dialogs that show whole file names: session files are named ``<date>-<time>-<agent>``
and a name cut in the middle hides exactly what tells them apart.

``show_full_names(dialog)`` (a non-native ``QFileDialog``) lists files in the detail view with
the name column as wide as the longest name, elides at the end if the dialog is narrower
still, gives every name its full text as a tooltip, and sizes the dialog to the screen.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QIdentityProxyModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QFileDialog, QHeaderView, QTreeView

from studio.widgets.screen_fit import screen_room

__all__ = ["NameTips", "show_full_names"]


class NameTips(QIdentityProxyModel):
    """The file system model with each name's full text as its tooltip."""

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = 0) -> Any:
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 0:
            return super().data(index, Qt.ItemDataRole.DisplayRole)
        return super().data(index, role)


def show_full_names(dialog: QFileDialog) -> None:
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setViewMode(QFileDialog.ViewMode.Detail)
    dialog.setProxyModel(NameTips(dialog))
    for view in dialog.findChildren(QAbstractItemView):
        view.setTextElideMode(Qt.TextElideMode.ElideRight)
    for tree in dialog.findChildren(QTreeView):
        header = tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
    room = screen_room(dialog)
    dialog.resize(min(room.width(), 980), min(room.height(), 600))
