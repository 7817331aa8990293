"""Compare Branches: two checkpoints (branch tips, or the ends of two runs) side by side.

"Steps": what each node did on each side, lined up by node (``studio.models.run_alignment``):
the shared history reads "same", a node that did something else is tinted amber, steps only
one side made are green on their side.  "Messages & state": the messages after the shared
history lined up by position, then the diff of the two final states.  Two pickers choose
the checkpoints (every branch tip, the last checkpoint of every run, plus the two given); ⇄
swaps them.  ``comparison`` is the shown ``studio.history.timetravel.BranchComparison`` and
``steps`` the aligned steps.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.docks.diff.html import diff_html, esc, message_card, page
from studio.history.timetravel import BranchComparison, compare_branches
from studio.look.palette import Palette, colors
from studio.models.branch_events import branch_events
from studio.models.hub import Hub
from studio.models.run_alignment import AlignedStep, NodeStep, align_steps, node_steps
from studio.models.snapshot_reader import SnapshotReader
from studio.models.timeline import CheckpointNode, TimelineModel
from studio.widgets.plain_text import plain_label

__all__ = ["CompareBranchesDialog", "comparison_html"]


def _title(node: CheckpointNode) -> str:
    return f"{node.branch.name} · step {node.step} · {node.source}"


def _run_ends(hub: Hub, timeline: TimelineModel) -> list[tuple[str, CheckpointNode]]:
    """(label, checkpoint) of the last root checkpoint each run saved, runs in order."""
    last: dict[str, str] = {}
    for ev in hub.events:
        if ev.kind == "checkpoint.saved" and not ev.ns and ev.checkpoint_id:
            if ev.run_id.startswith("update-"):
                continue
            last[ev.run_id] = ev.checkpoint_id
    out = []
    for i, cid in enumerate(last.values(), 1):
        node = timeline.get(cid)
        if node is not None:
            out.append((f"Run {i} end · {_title(node)}", node))
    return out


def _cell(step: NodeStep | None) -> list[str]:
    if step is None:
        return ["—", ""]
    if step.status == "edited":  # update_state: no time spent running
        return [f"{step.node} (state edit)", step.did]
    ms = step.duration_ms
    took = f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.0f} ms"
    status = "" if step.status == "ok" else f" [{step.status}]"
    return [f"{step.node}{status}  ({took})", step.did]


def comparison_html(cmp: BranchComparison, c: Palette) -> str:
    left_color, right_color = c.branch(cmp.left.branch.id), c.branch(cmp.right.branch.id)
    anc = cmp.ancestor
    intro = (
        f"Split after <b>step {anc.step}</b> ({esc(anc.branch.name)}) · "
        if anc is not None
        else "No common history · "
    )
    intro += (
        f"{cmp.shared} shared message{'s' if cmp.shared != 1 else ''} · {cmp.differences} differing"
    )
    head = (
        f'<p style="color:{c.muted}">{intro}</p>'
        '<table width="100%" cellspacing="6" cellpadding="0">'
        f'<tr><td width="50%" style="color:{left_color}; font-weight:700">{esc(_title(cmp.left))}</td>'
        f'<td width="50%" style="color:{right_color}; font-weight:700">{esc(_title(cmp.right))}</td></tr>'
    )
    rows = []
    for row in cmp.rows:
        cells = []
        for msg, side_only in ((row.left, "left_only"), (row.right, "right_only")):
            if msg is None:
                cells.append(f'<td width="50%" style="color:{c.muted}; padding:8px">—</td>')
                continue
            if row.status == "changed":
                bar, bg = c.amber, c.tint(c.amber, 0.08)
            elif row.status == side_only:
                bar, bg = c.ok, c.tint(c.ok, 0.07)
            else:
                bar, bg = None, None
            cells.append(
                f'<td width="50%" valign="top">{message_card(msg, c, bar=bar, bg=bg)}</td>'
            )
        rows.append(f"<tr>{''.join(cells)}</tr>")
    if not rows:
        rows.append(
            f'<tr><td colspan="2" style="color:{c.muted}">The branches have the same messages.</td></tr>'
        )
    final = diff_html(cmp.state, c, title="Final state: left → right")
    return head + "".join(rows) + "</table><hr/>" + final


class CompareBranchesDialog(QDialog):
    def __init__(
        self,
        hub: Hub,
        timeline: TimelineModel,
        left_id: str,
        right_id: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.hub = hub
        self.timeline = timeline
        self.comparison: BranchComparison | None = None
        self.reader = SnapshotReader(hub, self._loaded)
        """Reads the two checkpoints compared (the window never waits for them)."""
        self._pair: tuple[str, str] = ("", "")
        self.setWindowTitle("Compare branches and runs")
        self.resize(980, 680)
        screen = self.screen().availableGeometry() if self.screen() else None
        if screen is not None:  # within a laptop's screen
            self.resize(min(1100, int(screen.width() * 0.94)), min(720, int(screen.height() * 0.9)))
        self.left_combo = QComboBox()
        self.right_combo = QComboBox()
        self.steps: list[AlignedStep] = []
        choices: list[tuple[str, CheckpointNode]] = []
        ends = {node.checkpoint_id: label for label, node in _run_ends(hub, timeline)}
        seen: set[str] = set()
        given = [timeline.get(i) for i in (left_id, right_id)]
        for node in [
            *(n for n in given if n is not None),
            *timeline.tips(),
            *(n for _l, n in _run_ends(hub, timeline)),
        ]:
            if node.checkpoint_id not in seen:
                seen.add(node.checkpoint_id)
                choices.append((ends.get(node.checkpoint_id) or _title(node), node))
        for combo in (self.left_combo, self.right_combo):
            for label, node in choices:
                combo.addItem(label, node.checkpoint_id)
        self.left_combo.setCurrentIndex(self.left_combo.findData(left_id))
        self.right_combo.setCurrentIndex(self.right_combo.findData(right_id))
        self.swap_button = QToolButton()
        self.swap_button.setText("⇄")
        self.swap_button.setToolTip("Swap left and right")
        self.swap_button.clicked.connect(self.swap)
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.steps_view = QTreeWidget()
        self.steps_view.setObjectName("alignedSteps")
        self.steps_view.setHeaderLabels(["Step", "Left", "What it did", "Right", "What it did"])
        self.steps_view.setRootIsDecorated(False)
        self.steps_view.setUniformRowHeights(True)
        self.steps_view.setWordWrap(False)
        header = self.steps_view.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        for col in (1, 3):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        for col in (2, 4):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)
        self.steps_summary = plain_label()
        self.steps_summary.setTextFormat(Qt.TextFormat.PlainText)
        steps_tab = QWidget()
        steps_lay = QVBoxLayout(steps_tab)
        steps_lay.setContentsMargins(0, 4, 0, 0)
        steps_lay.addWidget(self.steps_summary)
        steps_lay.addWidget(self.steps_view, 1)
        self.tabs = QTabWidget()
        self.tabs.addTab(steps_tab, "Steps")
        self.tabs.addTab(self.browser, "Messages && state")
        top = QHBoxLayout()
        top.addWidget(plain_label("Left:"))
        top.addWidget(self.left_combo, 1)
        top.addWidget(self.swap_button)
        top.addWidget(plain_label("Right:"))
        top.addWidget(self.right_combo, 1)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.tabs, 1)
        self.left_combo.currentIndexChanged.connect(lambda _i: self.refresh())
        self.right_combo.currentIndexChanged.connect(lambda _i: self.refresh())
        self.refresh()

    def swap(self) -> None:
        left, right = self.left_combo.currentIndex(), self.right_combo.currentIndex()
        self.left_combo.blockSignals(True)
        self.left_combo.setCurrentIndex(right)
        self.left_combo.blockSignals(False)
        self.right_combo.setCurrentIndex(left)

    def refresh(self) -> BranchComparison | None:
        """Compare the two checkpoints picked, read through the reader (the comparison when
        read at once, with no loop running; else it shows when read)."""
        left, right = self.left_combo.currentData(), self.right_combo.currentData()
        if not left or not right:
            return None
        self._pair = (left, right)
        task = self.reader.read(left, base=right)
        return self.comparison if task is None else None

    def _loaded(self, left_snap: Any, right_snap: Any) -> None:
        c = colors(self.hub.theme)
        left, right = self._pair
        read = {left: left_snap, right: right_snap}
        failed = next((s for s in read.values() if isinstance(s, BaseException)), None)
        if failed is not None:
            self.comparison = None
            self.browser.setHtml(page(f"<p>Cannot read the state: {esc(str(failed))}</p>", c))
            return

        def values(cid: str) -> dict[str, Any]:
            snap = read.get(cid)
            return dict(snap.values) if snap is not None else {}

        self.comparison = compare_branches(values, self.timeline, left, right)
        self.browser.setHtml(page(comparison_html(self.comparison, c), c))
        self._show_steps(left, right, c)

    def _branch_steps(self, checkpoint_id: str) -> list[NodeStep]:
        def parent_of(cid: str) -> str | None:
            node = self.timeline.get(cid)
            return node.parent_id if node is not None else None

        every = list(self.hub.events)
        kept = {id(e) for e in branch_events(every, checkpoint_id, parent_of)}
        path = {n.checkpoint_id for n in self.timeline.lineage(checkpoint_id)}
        # state edits (update_state: a fork's new answer) made the checkpoints on the path too
        events = [
            e
            for e in every
            if id(e) in kept or (e.run_id.startswith("update-") and e.checkpoint_id in path)
        ]
        return node_steps(events)

    def _show_steps(self, left: str, right: str, c: Palette) -> None:
        self.steps = align_steps(self._branch_steps(left), self._branch_steps(right))
        tones = {"changed": c.amber, "left_only": c.ok, "right_only": c.ok}
        self.steps_view.clear()
        for row in self.steps:
            step = row.left.step if row.left is not None else row.right.step if row.right else None
            item = QTreeWidgetItem(
                ["" if step is None else str(step), *_cell(row.left), *_cell(row.right)]
            )
            tone = tones.get(row.status)
            if tone is not None:
                cols = (
                    (1, 2)
                    if row.status == "left_only"
                    else (3, 4)
                    if row.status == "right_only"
                    else (1, 2, 3, 4)
                )
                for col in cols:
                    item.setBackground(col, QBrush(QColor(c.tint(tone, 0.14))))
            if row.status == "same":
                for col in range(5):
                    item.setForeground(col, QBrush(QColor(c.muted)))
            item.setData(0, Qt.ItemDataRole.UserRole, row.status)
            self.steps_view.addTopLevelItem(item)
        same = sum(1 for r in self.steps if r.status == "same")
        differ = len(self.steps) - same
        self.steps_summary.setText(
            f"{len(self.steps)} node step(s) lined up: {same} the same (grey), {differ} "
            "differing (amber: the node did something else; green: only that side)"
        )
