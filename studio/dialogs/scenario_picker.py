"""Pickers: a built-in scenario (name + one-line description), or one graph of an agent file."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.app.scenarios import Scenario
from studio.widgets.plain_text import plain_label, plain_tip

__all__ = ["GraphPicker", "ScenarioPicker"]

_DATA = Qt.ItemDataRole.UserRole


class _ListPicker(QDialog):
    """A titled list with OK/Cancel; double-click or Return picks.  ``list_widget``,
    ``ok_button`` and ``cancel_button`` are attributes."""

    _ROW_WIDTH = 620

    def __init__(self, title: str, intro: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumSize(self._ROW_WIDTH + 40, 420)
        self._texts: list[str] = []
        label = plain_label(intro, self)
        label.setObjectName("muted")
        label.setWordWrap(True)
        self.list_widget = QListWidget(self)
        self.list_widget.setAlternatingRowColors(True)
        self.list_widget.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, parent=self
        )
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Open")
        self.cancel_button = buttons.button(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.list_widget.itemDoubleClicked.connect(lambda _i: self.accept())
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(self.list_widget, 1)
        layout.addWidget(buttons)

    def _add(self, text: str, data: object, tooltip: str = "") -> None:
        """A row: the first line of ``text`` in bold, the rest (a description) underneath."""
        item = QListWidgetItem(text)
        item.setData(_DATA, data)
        item.setToolTip(plain_tip(tooltip))
        title, _, rest = text.partition("\n")
        row = QWidget()
        box = QVBoxLayout(row)
        box.setContentsMargins(8, 6, 8, 6)
        box.setSpacing(2)
        name = plain_label(title, row)
        name.setObjectName("pickerTitle")
        box.addWidget(name)
        if rest:
            description = plain_label(rest, row)
            description.setObjectName("muted")
            description.setWordWrap(True)
            box.addWidget(description)
        row.setFixedWidth(self._ROW_WIDTH)
        row.adjustSize()
        item.setSizeHint(QSize(self._ROW_WIDTH, row.sizeHint().height()))
        item.setText("")  # the row widget shows it; the item keeps the data
        item.setData(Qt.ItemDataRole.AccessibleTextRole, text)
        self.list_widget.addItem(item)
        self.list_widget.setItemWidget(item, row)
        self._texts.append(text)
        if self.list_widget.count() == 1:
            self.list_widget.setCurrentRow(0)

    def texts(self) -> list[str]:
        """Each row's text: name, then the description on the next line."""
        return list(self._texts)

    def _chosen(self) -> object | None:
        item = self.list_widget.currentItem()
        return None if item is None else item.data(_DATA)


class ScenarioPicker(_ListPicker):
    """The built-in scenarios, each with its one-line description."""

    def __init__(
        self, scenarios: list[Scenario], current: str | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(
            "Open a scenario", "Built-in scenarios run offline on the scripted model.", parent
        )
        for s in scenarios:
            self._add(f"{s.name}\n{s.description or '(no description)'}", s.name, str(s.path))
            if s.name == current:
                self.list_widget.setCurrentRow(self.list_widget.count() - 1)
        self._scenarios = {s.name: s for s in scenarios}

    def chosen(self) -> Scenario | None:
        name = self._chosen()
        return self._scenarios.get(str(name)) if name is not None else None


class GraphPicker(_ListPicker):
    """The compiled graphs an agent file defines (or a project's graph ids): pick one to debug.
    ``what`` says where they come from (``agent.py defines 2 compiled graphs``)."""

    def __init__(self, what: str, names: list[str], parent: QWidget | None = None) -> None:
        super().__init__("Pick a graph", f"{what}. Which one?", parent)
        for name in names:
            self._add(name, name)

    def chosen(self) -> str | None:
        name = self._chosen()
        return None if name is None else str(name)
