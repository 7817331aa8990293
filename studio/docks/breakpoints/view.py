"""The Breakpoints dock: list (enable/disable, hits, remove) and a one-line form to add one."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.targets import Capability
from studio.look.theme import icon
from studio.models.breakpoints import KINDS, NEEDS_TARGET, BreakpointsModel
from studio.models.hub import Hub
from studio.run.capabilities import can
from studio.widgets.plain_text import plain_label, plain_tip

__all__ = ["BreakpointsPanel"]

_ID_ROLE = Qt.ItemDataRole.UserRole


NEEDS_CAPABILITY = {
    "hook": Capability.PAUSE_IN_NODE,
    "wrapper": Capability.PAUSE_IN_NODE,
    "tool": Capability.PAUSE_IN_NODE,
    "state": Capability.CONDITIONAL_BREAKPOINTS,
}
"""Breakpoint kinds only some targets can stop at (the others: before / after a node)."""


class BreakpointsPanel(QWidget):
    """Key widgets are attributes (``tree``, ``kind_box``, ``target_box``, ``detail_box``,
    ``add_button``, ``remove_button``, ``error_label``) so tests can drive them."""

    def __init__(self, hub: Hub, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hub = hub
        self.model = BreakpointsModel(hub)
        self._filling = False

        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels(["Breakpoint", "Hits"])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.header().setStretchLastSection(False)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.itemChanged.connect(self._on_item_changed)
        self.tree.installEventFilter(self)

        self.kind_box = QComboBox(self)
        for info in KINDS:
            self.kind_box.addItem(info.label, info.kind)
        self.target_box = QComboBox(self)
        self.target_box.setEditable(True)
        target_edit = self.target_box.lineEdit()
        assert target_edit is not None  # an editable combo box has one
        self.target_edit = target_edit
        self.target_box.setMinimumContentsLength(10)
        self.detail_box = QComboBox(self)
        self.add_button = QPushButton("Add", self)
        self.remove_button = QPushButton("Remove", self)
        self.error_label = plain_label(parent=self)
        self.error_label.setObjectName("errorText")
        self.error_label.hide()

        form = QHBoxLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.setSpacing(4)
        form.addWidget(self.kind_box)
        form.addWidget(self.target_box, 1)
        form.addWidget(self.detail_box)
        form.addWidget(self.add_button)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addStretch(1)
        buttons.addWidget(self.remove_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addWidget(self.tree, 1)
        layout.addLayout(buttons)

        self.kind_box.currentIndexChanged.connect(self._on_kind_changed)
        self.add_button.clicked.connect(self.add_from_form)
        self.target_edit.returnPressed.connect(self.add_from_form)
        self.target_edit.textEdited.connect(self.error_label.hide)  # it was about
        self.detail_box.currentIndexChanged.connect(self.error_label.hide)  # the old text
        self.remove_button.clicked.connect(self.remove_selected)
        hub.subscribe("breakpoints", self.refresh)
        hub.subscribe("graph", lambda _g: self._on_kind_changed())
        hub.subscribe("status", self._on_status)
        self._on_kind_changed()
        self.refresh()

    # -- actions -----------------------------------------------------------------------------

    def add_from_form(self) -> bool:
        kind = self.kind_box.currentData()
        able, why = self._can_add(kind)
        if not able:
            self.error_label.setText(why)
            self.error_label.show()
            return False
        target = self.target_box.currentText() if kind in NEEDS_TARGET or kind == "state" else None
        detail = self.detail_box.currentData() if self.model.detail_choices(kind) else None
        try:
            self.model.add(kind, target, detail)
        except ValueError as exc:
            self.error_label.setText(str(exc))
            self.error_label.show()
            return False
        self.error_label.hide()
        if kind == "state":
            self.target_box.setEditText("")
        return True

    def remove_selected(self) -> None:
        for item in self.tree.selectedItems():
            self.model.remove(int(item.data(0, _ID_ROLE)))

    # -- view --------------------------------------------------------------------------------

    def refresh(self) -> None:
        self._filling = True
        try:
            self.tree.clear()
            for bp in self.model.rows():
                item = QTreeWidgetItem([bp.describe(), str(bp.hits)])
                item.setData(0, _ID_ROLE, bp.id)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(
                    0, Qt.CheckState.Checked if bp.enabled else Qt.CheckState.Unchecked
                )
                item.setIcon(0, icon("breakpoint" if bp.enabled else "breakpoint_off"))
                self.tree.addTopLevelItem(item)
        finally:
            self._filling = False
        self.remove_button.setEnabled(self.tree.topLevelItemCount() > 0)

    def _on_status(self, status: str) -> None:
        if status == "paused":
            self.refresh()  # a breakpoint was hit: its count changed
        elif status != "running":  # a run ended: the graphs it went through are offered
            self._refill_targets()

    def _refill_targets(self) -> None:
        kind = self.kind_box.currentData()
        if kind not in ("before_node", "after_node"):
            return
        text, choices = self.target_box.currentText(), self.model.choices(kind)
        if choices == [self.target_box.itemText(i) for i in range(self.target_box.count())]:
            return
        self.target_box.clear()
        self.target_box.addItems(choices)
        self.target_box.setEditText(text)  # what the user typed or picked stays

    def _on_item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        if self._filling or column != 0:
            return
        enabled = item.checkState(0) == Qt.CheckState.Checked
        self.model.set_enabled(int(item.data(0, _ID_ROLE)), enabled)

    def _on_kind_changed(self) -> None:
        kind = self.kind_box.currentData()
        info = next(k for k in KINDS if k.kind == kind)
        self.target_box.setVisible(info.target_label is not None)
        self.target_box.clear()
        self.target_box.addItems(self.model.choices(kind))
        if kind == "state":
            self.target_box.setEditText("")
            self.target_edit.setPlaceholderText("len(messages) > 6")
        elif info.target_label:
            self.target_edit.setPlaceholderText(info.target_label)
        details = self.model.detail_choices(kind)
        self.detail_box.clear()
        self.detail_box.addItem("any", None)
        for d in details:
            self.detail_box.addItem(d, d)
        self.detail_box.setVisible(bool(details))
        self.error_label.hide()
        able, why = self._can_add(kind)
        self.add_button.setEnabled(able)
        self.add_button.setToolTip(plain_tip(why))

    def _can_add(self, kind: str) -> tuple[bool, str]:
        """Can the target stop at breakpoints of this kind (a server stops only at nodes)?"""
        need = NEEDS_CAPABILITY.get(kind)
        if need is None or self.hub.target is None:
            return True, ""
        return can(self.hub, need)

    def eventFilter(self, watched: object, event: object) -> bool:
        if (
            watched is self.tree
            and isinstance(event, QKeyEvent)
            and event.type() == QKeyEvent.Type.KeyPress
            and event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace)
        ):
            self.remove_selected()
            return True
        return super().eventFilter(watched, event)  # type: ignore[arg-type]
