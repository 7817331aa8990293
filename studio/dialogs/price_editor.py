"""The price list editor of the Settings dialog: one row per model, prices per 1M tokens.

A table (Model, Input, Output, Cached input, Cache write) filled from the current prices; rows
can be edited, added and removed, and "Built-in prices" puts the shipped list back.  Empty
cached / cache-write cells mean "no price" (a call that used such tokens then has an unknown
cost).  ``rows()`` reads the table back, ``error()`` says in one line what is wrong with it
(a price that is not a number, a model named twice), ``overrides()`` is what Settings keeps.
Everything typed is plain text.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.models.pricing import PRICE_FIELDS, Price, PriceTable, normalize, overrides_from
from studio.widgets.plain_text import plain_label, plain_tip

__all__ = ["PriceEditor"]

_HEADERS = ("Model", "Input", "Output", "Cached input", "Cache write")


class PriceEditor(QWidget):
    """Key widgets: ``table``, ``add_button``, ``remove_button``, ``builtin_button``,
    ``note``."""

    def __init__(
        self, current: PriceTable, builtin: PriceTable, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.builtin = builtin
        self.table = QTableWidget(0, len(_HEADERS), self)
        self.table.setHorizontalHeaderLabels(list(_HEADERS))
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in range(1, len(_HEADERS)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.add_button = QPushButton("Add model", self)
        self.remove_button = QPushButton("Remove", self)
        self.builtin_button = QPushButton("Built-in prices", self)
        self.builtin_button.setToolTip(
            plain_tip(f"Put back the prices shipped with Stepwise (taken {builtin.taken or '?'})")
        )
        self.note = plain_label(parent=self)
        self.note.setObjectName("muted")
        self.note.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        buttons.addWidget(self.builtin_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.note)
        self.add_button.clicked.connect(self.add_row)
        self.remove_button.clicked.connect(self.remove_selected)
        self.builtin_button.clicked.connect(lambda: self.fill(self.builtin))
        self.table.itemChanged.connect(lambda _i: self._show_state())
        self.fill(current)

    # -- filling ---------------------------------------------------------------------------------

    def fill(self, table: PriceTable) -> None:
        self.table.blockSignals(True)
        try:
            self.table.setRowCount(0)
            for name, price, _edited in table.rows():
                self._append(name, price)
        finally:
            self.table.blockSignals(False)
        self._show_state()

    def _append(self, name: str, price: Price | None) -> int:
        row = self.table.rowCount()
        self.table.insertRow(row)
        values = [name]
        for key in PRICE_FIELDS:
            value = getattr(price, key) if price is not None else None
            values.append("" if value is None else f"{value:g}")
        for col, text in enumerate(values):
            self.table.setItem(row, col, QTableWidgetItem(text))
        return row

    def add_row(self) -> None:
        row = self._append("", None)
        self.table.setCurrentCell(row, 0)
        item = self.table.item(row, 0)
        if item is not None:
            self.table.editItem(item)

    def remove_selected(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True)
        for row in rows:
            self.table.removeRow(row)
        self._show_state()

    # -- reading ---------------------------------------------------------------------------------

    def _cell(self, row: int, col: int) -> str:
        item = self.table.item(row, col)
        return item.text().strip() if item is not None else ""

    def rows(self) -> list[tuple[str, Price | None]]:
        """(model, price) of every row with a name; a row whose prices do not read is None."""
        out: list[tuple[str, Price | None]] = []
        for row in range(self.table.rowCount()):
            name = self._cell(row, 0)
            if name:
                out.append((name, self._price(row)))
        return out

    def _price(self, row: int) -> Price | None:
        values: list[float | None] = []
        for col in range(1, len(_HEADERS)):
            text = self._cell(row, col).removeprefix("$")
            if not text:
                values.append(None)
                continue
            try:
                value = float(text)
            except ValueError:
                return None
            if value < 0 or value != value:  # negative or NaN
                return None
            values.append(value)
        inp, out, cached, write = values
        if inp is None or out is None:
            return None
        old = self.builtin.price(self._cell(row, 0))
        limit = old.max_input_tokens if old is not None else None
        return Price(inp, out, cached, write, limit)

    def error(self) -> str | None:
        """What is wrong with the table, in one line (None: nothing)."""
        seen: set[str] = set()
        for row in range(self.table.rowCount()):
            name = self._cell(row, 0)
            if not name:
                if any(self._cell(row, c) for c in range(1, len(_HEADERS))):
                    return f"Row {row + 1} has prices but no model name"
                continue
            key = normalize(name)
            if key in seen:
                return f"{name} is listed twice"
            seen.add(key)
            if self._price(row) is None:
                return (
                    f"{name}: input and output need a price (a number of dollars per 1M "
                    "tokens); cached input and cache write may be left empty"
                )
        return None

    def overrides(self) -> dict[str, Any]:
        return overrides_from(self.rows(), self.builtin)

    def _show_state(self) -> None:
        problem = self.error()
        if problem:
            self.note.setObjectName("errorText")
            self.note.setText(problem)
        else:
            self.note.setObjectName("muted")
            self.note.setText(
                f"US dollars per 1M tokens. Built-in list prices taken {self.builtin.taken or '?'}; "
                "a model not listed has an unknown cost, shown as ?."
            )
        self.note.style().unpolish(self.note)
        self.note.style().polish(self.note)
