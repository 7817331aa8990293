"""The **Store** dock: the agent's long-term memory, browsable, searchable, with what runs did.

Left, the namespaces as a tree (item counts); right, the items under the chosen namespace
(key, namespace, what the chosen run did to it, when it was last written) and the chosen item's
value as a JSON tree.  The search box keeps the items whose values hold a word of the query (a
store with a semantic index, ``index_config``, ranks them by similarity instead); the filter box
takes a JSON object (``{"theme": "dark"}``).  "Run" picks whose reads and writes are marked (R read, W
written, D deleted, tinted); "Only this run's items" hides the rest.

The source is the loaded agent's store (ours, or an attached app's LangGraph store), read on a
worker thread when it does I/O; with only a recorded session open, the items its runs wrote.
Everything shown comes from the agent and is plain text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QSplitter,
    QToolButton,
    QTreeView,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.errors import one_line
from engine.events import EventBase
from engine.targets import Capability
from studio.docks.store.support import BackgroundReader, marks_text, when_text
from studio.look.palette import colors
from studio.models.state_tree import StateTree
from studio.models.store_view import (
    DELETED,
    READ,
    WRITTEN,
    LiveStoreSource,
    NamespaceNode,
    RecordedStoreSource,
    StoreActivity,
    StoreRow,
    StoreSource,
    find_store,
    namespace_tree,
    parse_filter,
)
from studio.qtmodels.state_items import StateItemModel
from studio.widgets.dock_support import bind_to_hub
from studio.widgets.plain_text import plain_label, plain_tip

if TYPE_CHECKING:
    from studio.models.hub import Hub

__all__ = ["StoreDock"]

_ALL_RUNS = ""
_ROW = Qt.ItemDataRole.UserRole + 1


class StoreDock(QWidget):
    RELOAD_MS = 250
    """Writes seen in a live run reload the view at most this often."""

    def __init__(self, hub: Hub, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("StoreDock")
        self.hub = hub
        self.activity = StoreActivity()
        self.source: StoreSource | None = None
        self.rows: list[StoreRow] = []
        self.prefix: tuple[str, ...] = ()
        self.reads = 0
        """Completed reads (tests wait on it)."""
        self._gen = 0
        self.reads_done = 0
        """The generation of the newest read taken in (``settling``)."""
        self._recorded: RecordedStoreSource | None = None
        self._reader = BackgroundReader(self)
        self._reader.done.connect(self._on_read)
        self._reload_timer = QTimer(self)
        self._reload_timer.setSingleShot(True)
        self._reload_timer.setInterval(self.RELOAD_MS)
        self._reload_timer.timeout.connect(self.reload)
        self._build()
        bind_to_hub(
            self,
            hub,
            {
                "graph": lambda _d: self._on_graph(),
                "reset": self._on_reset,
                "events": self._on_events,
                "theme": lambda _n: self._paint_rows(),
            },
            catch_up=True,
        )
        self._on_graph()
        if hub.events:
            self._on_events(list(hub.events))

    # -- building ------------------------------------------------------------------------------

    def _build(self) -> None:
        self.source_label = plain_label(parent=self)
        self.source_label.setTextFormat(Qt.TextFormat.PlainText)
        self.search_edit = QLineEdit(self)
        self.search_edit.setPlaceholderText("Search values…")
        self.search_edit.setClearButtonEnabled(True)
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setPlaceholderText('Filter {"key": value}')
        self.filter_edit.setClearButtonEnabled(True)
        self.refresh_button = QToolButton(self)
        self.refresh_button.setText("⟳")
        self.refresh_button.setToolTip("Read the store again")
        self.run_combo = QComboBox(self)
        self.run_combo.setToolTip("Mark what this run read (R), wrote (W) and deleted (D)")
        self.run_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.run_combo.setMinimumContentsLength(12)
        self.only_touched = QCheckBox("Only its items", self)
        self.only_touched.setToolTip("Show only the items the chosen run read, wrote or deleted")
        self.error_label = plain_label(parent=self)
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setWordWrap(False)
        self.error_label.hide()

        self.ns_combo = QComboBox(self)
        self.ns_combo.setToolTip("The namespace whose items are listed")
        self.ns_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.ns_combo.setMinimumContentsLength(8)
        self.ns_combo.hide()
        self.ns_tree = QTreeWidget(self)
        self.ns_tree.setHeaderLabels(["Namespace"])
        self.ns_tree.setHeaderHidden(True)
        self.ns_tree.setRootIsDecorated(True)
        self.ns_tree.setUniformRowHeights(True)
        self.ns_tree.setIndentation(12)

        self.items = QTreeWidget(self)
        self.items.setHeaderLabels(["Key", "Namespace", "Run", "Updated"])
        self.items.setRootIsDecorated(False)
        self.items.setUniformRowHeights(True)
        self.items.setAlternatingRowColors(True)
        self.items.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.items.header()
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(36)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2, 3):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.items.headerItem().setToolTip(2, "R read · W written · D deleted (by the run chosen)")

        self.value_model = StateItemModel(self, self.hub.theme)
        self.value_view = QTreeView(self)
        self.value_view.setModel(self.value_model)
        self.value_view.setUniformRowHeights(True)
        value_header = self.value_view.header()
        value_header.setStretchLastSection(True)
        value_header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)

        right = QSplitter(Qt.Orientation.Vertical, self)
        right.addWidget(self.items)
        right.addWidget(self.value_view)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 2)
        right.setChildrenCollapsible(False)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.ns_tree)
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 3)
        split.setChildrenCollapsible(False)
        self.splitter = split

        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 0)
        bar.addWidget(self.search_edit, 3)
        bar.addWidget(self.filter_edit, 2)
        bar.addWidget(self.refresh_button)
        runs = QHBoxLayout()
        runs.setContentsMargins(6, 0, 6, 0)
        runs.addWidget(self.ns_combo, 1)
        runs.addWidget(plain_label("Run:", self))
        runs.addWidget(self.run_combo, 2)
        runs.addWidget(self.only_touched)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        lay.addLayout(bar)
        lay.addLayout(runs)
        lay.addWidget(self.error_label)
        lay.addWidget(split, 1)
        self.source_label.setContentsMargins(6, 0, 6, 4)
        lay.addWidget(self.source_label)

        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(200)
        self._search_timer.timeout.connect(self.reload)
        self.search_edit.textChanged.connect(lambda _t: self._search_timer.start())
        self.filter_edit.returnPressed.connect(self.reload)
        self.filter_edit.editingFinished.connect(self.reload)
        self.refresh_button.clicked.connect(self.reload)
        self.run_combo.currentIndexChanged.connect(lambda _i: self._on_run())
        self.only_touched.toggled.connect(lambda _on: self._show_rows())
        self.ns_tree.currentItemChanged.connect(self._on_namespace)
        self.ns_combo.activated.connect(self._on_namespace_choice)
        self.items.currentItemChanged.connect(self._on_item)
        self._refresh_runs()

    # -- hub -----------------------------------------------------------------------------------

    def _on_graph(self) -> None:
        graph = self.hub.graph
        target = self.hub.target
        store = find_store(graph) or find_store(target)  # a server's store hangs on its target
        if store is not None:
            self.source = LiveStoreSource(store)
            self._recorded = None
        elif target is None or Capability.RUN not in target.capabilities:  # a recording
            self._recorded = RecordedStoreSource(self.hub.events)
            self.source = self._recorded
        else:
            self.source = None
            self._recorded = None
        self.reload()

    def _on_reset(self) -> None:
        self.activity.clear()
        if self._recorded is not None:
            self._recorded.items.clear()
        self._refresh_runs()
        self.reload()

    def _on_events(self, batch: list[EventBase]) -> None:
        if not self.activity.add(batch):
            return
        self._refresh_runs()
        wrote = self._recorded.add(batch) if self._recorded is not None else True
        if wrote and not self._reload_timer.isActive():
            self._reload_timer.start()
        self._show_rows()

    # -- reading -------------------------------------------------------------------------------

    def reload(self) -> None:
        """Read the namespaces and the items under the chosen namespace (search and filter
        applied); off the UI thread when the store does I/O."""
        self._reload_timer.stop()
        source = self.source
        if source is None:
            self.source_label.setText(
                "This agent has no store (compile it with store=...)"
                if self.hub.graph is not None
                else "Nothing loaded"
            )
            self._apply([], [])
            return
        try:
            flt = parse_filter(self.filter_edit.text())
        except ValueError as exc:
            self._error(str(exc))
            return
        query = self.search_edit.text().strip() or None
        prefix = self.prefix
        self._gen += 1

        def read() -> tuple[list[tuple[str, ...]], list[StoreRow]]:
            return source.namespaces(), source.search(prefix, query, flt)

        self._reader.run(self._gen, read, source.blocking)

    @property
    def settling(self) -> bool:
        """Whether the dock still has a read to make or to take in (a reload is due, or the
        newest read has not come back): what it shows may change without a new event."""
        return self._reload_timer.isActive() or self.reads_done < self._gen

    def _on_read(self, gen: int, result: Any, error: BaseException | None) -> None:
        if gen != self._gen:
            return  # a newer read is on its way
        self.reads_done = gen
        self.reads += 1
        if error is not None:
            self._error(f"The store could not be read: {one_line(error)}")
            return
        namespaces, rows = result
        self._apply(namespaces, rows)

    def _error(self, text: str) -> None:
        self.error_label.setText(text)
        self.error_label.setStyleSheet(f"color: {colors(self.hub.theme).danger};")
        self.error_label.show()

    def _apply(self, namespaces: list[tuple[str, ...]], rows: list[StoreRow]) -> None:
        self.error_label.hide()
        self.rows = rows
        if self.source is not None:
            live = "live" if isinstance(self.source, LiveStoreSource) else "from the session"
            self.source_label.setText(
                f"{self.source.label} ({live}) · {len(namespaces)} namespace(s)"
            )
        self._fill_namespaces(namespaces)
        self._show_rows()

    def _fill_namespaces(self, namespaces: list[tuple[str, ...]]) -> None:
        counts: dict[tuple[str, ...], int] = {}
        for row in self.rows if not self.prefix else []:
            counts[row.namespace] = counts.get(row.namespace, 0) + 1
        tree = namespace_tree(namespaces, counts if counts else None)
        self.ns_tree.blockSignals(True)
        self.ns_tree.clear()
        top = QTreeWidgetItem([f"(all) · {tree.items}" if counts else "(all)"])
        top.setData(0, _ROW, ())
        self.ns_tree.addTopLevelItem(top)
        current = top

        def add(parent: QTreeWidgetItem, node: NamespaceNode) -> None:
            nonlocal current
            for child in node.children.values():
                item = QTreeWidgetItem(
                    [f"{child.label} · {child.items}" if counts else child.label]
                )
                item.setData(0, _ROW, child.path)
                item.setToolTip(0, "/".join(child.path))
                parent.addChild(item)
                if child.path == self.prefix:
                    current = item
                add(item, child)

        add(top, tree)
        self.ns_tree.expandAll()
        self.ns_tree.setCurrentItem(current)
        self.ns_tree.blockSignals(False)
        self.ns_combo.blockSignals(True)
        self.ns_combo.clear()
        stack = [(top, 0)]
        while stack:
            item, depth = stack.pop()
            self.ns_combo.addItem("   " * depth + item.text(0), item.data(0, _ROW))
            if item.data(0, _ROW) == self.prefix:
                self.ns_combo.setCurrentIndex(self.ns_combo.count() - 1)
            kids = (item.child(i) for i in reversed(range(item.childCount())))
            stack.extend((kid, depth + 1) for kid in kids if kid is not None)
        self.ns_combo.blockSignals(False)

    def _on_namespace_choice(self, index: int) -> None:
        path = self.ns_combo.itemData(index)
        self.prefix = tuple(path or ())
        self.reload()

    def _on_namespace(self, item: QTreeWidgetItem | None, _prev: object) -> None:
        if item is None:
            return
        path = item.data(0, _ROW)
        self.prefix = tuple(path or ())
        self.reload()

    # -- runs and rows -------------------------------------------------------------------------

    def selected_run(self) -> str | None:
        data = self.run_combo.currentData()
        return None if not data else str(data)

    def _refresh_runs(self) -> None:
        keep = self.run_combo.currentData()
        self.run_combo.blockSignals(True)
        self.run_combo.clear()
        self.run_combo.addItem("All runs", _ALL_RUNS)
        for run in self.activity.ordered():
            self.run_combo.addItem(f"Run {run.index} ({run.summary()})", run.run_id)
        index = self.run_combo.findData(keep) if keep else -1
        if index < 0 and self.activity.runs:  # the newest run by default
            index = self.run_combo.count() - 1
        self.run_combo.setCurrentIndex(max(index, 0))
        self.run_combo.setToolTip(plain_tip(self.run_combo.currentText()))
        self.run_combo.blockSignals(False)

    def _on_run(self) -> None:
        self.run_combo.setToolTip(plain_tip(self.run_combo.currentText()))
        self._show_rows()

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Narrow (a side dock on a laptop): the namespaces as a drop-down above the items
        instead of a tree beside them."""
        super().resizeEvent(event)
        narrow = self.width() < 560
        if self.ns_tree.isHidden() != narrow:
            self.ns_tree.setHidden(narrow)
            self.ns_combo.setVisible(narrow)

    def _show_rows(self) -> None:
        run = self.selected_run()
        touched = self.activity.touched(run)
        keep = self.current_address()
        self.items.blockSignals(True)
        self.items.clear()
        shown = [r for r in self.rows if not self.only_touched.isChecked() or r.address in touched]
        for row in shown:
            marks = self.activity.marks(row.address, run)
            item = QTreeWidgetItem(
                [row.key, "/".join(row.namespace), marks_text(marks), when_text(row.updated_at)]
            )
            item.setData(0, _ROW, row)
            item.setToolTip(2, ", ".join(sorted(marks)) if marks else "")
            self.items.addTopLevelItem(item)
        searching = bool(self.search_edit.text().strip() or self.filter_edit.text().strip())
        present = {r.address for r in self.rows}
        deleted = [
            a
            for a in sorted(touched)
            if not searching and DELETED in self.activity.marks(a, run) and a not in present
        ]
        for ns, key in deleted:  # gone from the store, but this run deleted them: say so
            if self.prefix and ns[: len(self.prefix)] != self.prefix:
                continue
            item = QTreeWidgetItem([key, "/".join(ns), "D", "deleted"])
            item.setData(0, _ROW, StoreRow(ns, key, None))
            self.items.addTopLevelItem(item)
        self.items.blockSignals(False)
        self._paint_rows()
        shown_items = self._top_items()
        target = next((it for it in shown_items if it.data(0, _ROW).address == keep), None)
        if target is None and shown_items:
            target = shown_items[0]
        if target is not None:
            self.items.setCurrentItem(target)
        else:
            self._on_item(None, None)

    def _paint_rows(self) -> None:
        c = colors(self.hub.theme)
        tones = {DELETED: c.danger, WRITTEN: c.amber, READ: c.violet}
        run = self.selected_run()
        for item in self._top_items():
            row: StoreRow = item.data(0, _ROW)
            marks = self.activity.marks(row.address, run)
            tone = next((tones[m] for m in (DELETED, WRITTEN, READ) if m in marks), None)
            for col in range(item.columnCount()):
                item.setBackground(col, QBrush(QColor(c.tint(tone, 0.16))) if tone else QBrush())
            if tone:
                item.setForeground(2, QBrush(QColor(tone)))
        self.value_model.set_theme(self.hub.theme)

    def _top_items(self) -> list[QTreeWidgetItem]:
        items = (self.items.topLevelItem(i) for i in range(self.items.topLevelItemCount()))
        return [it for it in items if it is not None]

    def current_address(self) -> tuple[tuple[str, ...], str] | None:
        item = self.items.currentItem()
        row = item.data(0, _ROW) if item is not None else None
        return row.address if isinstance(row, StoreRow) else None

    def _on_item(self, item: QTreeWidgetItem | None, _prev: object) -> None:
        row = item.data(0, _ROW) if item is not None else None
        value = row.value if isinstance(row, StoreRow) else None
        value = value if isinstance(value, dict) else {}
        self.value_model.set_tree(StateTree(value))
        self.value_view.expandToDepth(1)
        fm = self.value_view.fontMetrics()
        widest = max((fm.horizontalAdvance(str(k)) for k in value), default=40)
        width = min(widest + 48, max(120, self.value_view.width() * 2 // 5))
        self.value_view.header().resizeSection(0, width)
