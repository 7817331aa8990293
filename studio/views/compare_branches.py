"""Compare Branches: two checkpoints (usually branch tips) side by side.

The messages after the shared history are lined up by position (changed pairs tinted amber,
one-sided messages green on their side), then the diff of the two final states.  Two
pickers choose the checkpoints (every branch tip, plus the two given); ⇄ swaps them.
``comparison`` is the shown ``studio.timetravel.BranchComparison``.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from studio.models.timeline import CheckpointNode, TimelineModel
from studio.palette import Palette, colors
from studio.timetravel import BranchComparison, compare_branches
from studio.views.tt_html import diff_html, esc, message_card, page
from studio.widgets.plain_text import plain_label

__all__ = ["CompareBranchesDialog", "comparison_html"]


def _title(node: CheckpointNode) -> str:
    return f"{node.branch.name} · step {node.step} · {node.source}"


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
        hub: Any,
        timeline: TimelineModel,
        left_id: str,
        right_id: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.hub = hub
        self.timeline = timeline
        self.comparison: BranchComparison | None = None
        self.setWindowTitle("Compare branches")
        self.resize(980, 680)
        self.left_combo = QComboBox()
        self.right_combo = QComboBox()
        choices: list[CheckpointNode] = []
        for node in [*(timeline.get(i) for i in (left_id, right_id)), *timeline.tips()]:
            if node is not None and node not in choices:
                choices.append(node)
        for combo in (self.left_combo, self.right_combo):
            for node in choices:
                combo.addItem(_title(node), node.checkpoint_id)
        self.left_combo.setCurrentIndex(self.left_combo.findData(left_id))
        self.right_combo.setCurrentIndex(self.right_combo.findData(right_id))
        self.swap_button = QToolButton()
        self.swap_button.setText("⇄")
        self.swap_button.setToolTip("Swap left and right")
        self.swap_button.clicked.connect(self.swap)
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        top = QHBoxLayout()
        top.addWidget(plain_label("Left:"))
        top.addWidget(self.left_combo, 1)
        top.addWidget(self.swap_button)
        top.addWidget(plain_label("Right:"))
        top.addWidget(self.right_combo, 1)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.browser, 1)
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
        c = colors(getattr(self.hub, "theme", "light"))
        left, right = self.left_combo.currentData(), self.right_combo.currentData()
        if not left or not right:
            return None

        def values(cid: str) -> dict[str, Any]:
            snap = self.hub.snapshot(cid)
            return dict(snap.values) if snap is not None else {}

        self.comparison = compare_branches(values, self.timeline, left, right)
        self.browser.setHtml(page(comparison_html(self.comparison, c), c))
        return self.comparison
