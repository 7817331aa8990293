"""The Timeline dock's menus: a checkpoint's context menu and the Compare menu."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QMenu

from studio.models.timeline import Branch, CheckpointNode
from studio.qtmodels.timeline_items import ITEM_ROLE

if TYPE_CHECKING:
    from studio.docks.timeline.view import TimelineDock

__all__ = ["fill_compare_menu", "show_timeline_menu", "timeline_menu"]


def fill_compare_menu(
    dock: TimelineDock, menu: QMenu | None = None, node: CheckpointNode | None = None
) -> None:
    """The Compare menu of ``node`` (default: the selection, else the tip)."""
    menu = menu or dock.compare_menu
    menu.clear()
    node = node or dock._target()
    if node is None:
        return
    parent = dock.timeline.parent(node)
    act = menu.addAction("Diff with parent")
    if parent is not None:
        ids = (parent.checkpoint_id, node.checkpoint_id)
        act.triggered.connect(lambda: dock.diffRequested.emit(*ids))
    act.setEnabled(parent is not None)
    menu.addAction(
        f"Mark step {node.step} for comparison",
        lambda: setattr(dock, "marked", node.checkpoint_id),
    )
    marked = dock.timeline.get(dock.marked)
    if marked is not None and marked is not node:
        menu.addAction(
            f"Diff with marked (step {marked.step}, {marked.branch.name})",
            lambda: dock.diffRequested.emit(marked.checkpoint_id, node.checkpoint_id),
        )
    others = [b for b in dock.timeline.branches if b is not node.branch and b.nodes]
    if others:
        menu.addSeparator()
        for b in others:
            menu.addAction(
                f"Compare {node.branch.name} with {b.name}…",
                lambda b=b: dock.open_compare(node.branch.tip.checkpoint_id, b.tip.checkpoint_id),
            )


def show_timeline_menu(dock: TimelineDock, pos: QPoint) -> None:
    """The context menu of the checkpoint or branch at ``pos`` (viewport coordinates)."""
    menu = timeline_menu(dock, dock.view.indexAt(pos).data(ITEM_ROLE))
    if not menu.isEmpty():
        menu.popup(dock.view.viewport().mapToGlobal(pos))


def timeline_menu(dock: TimelineDock, item: object) -> QMenu:
    """The context menu of ``item``, a checkpoint or branch of the Timeline (selected)."""
    menu = QMenu(dock)
    if isinstance(item, Branch):
        item = item.tip
    if isinstance(item, CheckpointNode):
        if dock.hub.selected_checkpoint != item.checkpoint_id:
            dock.hub.select_checkpoint(item.checkpoint_id)
        cid = item.checkpoint_id
        run = menu.addAction("▶ Resume from here", lambda: dock.resumeRequested.emit(cid))
        run.setEnabled(dock.resume_button.isEnabled())
        run.setToolTip(dock.resume_button.toolTip())
        rerun = menu.addAction(
            "⟲ Re-run from here with replay", lambda: dock.rerunRequested.emit(cid)
        )
        rerun.setEnabled(dock.rerun_button.isEnabled())
        rerun.setToolTip(dock.rerun_button.toolTip())
        edit = menu.addAction("✎ Edit state…", lambda: dock.open_edit_dialog(cid))
        edit.setEnabled(dock.edit_button.isEnabled())
        run_id = item.record.run_id
        if run_id and _left_in_file(dock, cid):
            menu.addAction(
                "☰ Show this run's events (left in the file)…",
                lambda: dock.runEventsRequested.emit(run_id, cid),
            )
        menu.addSeparator()
        fill_compare_menu(dock, menu.addMenu("⇆ Compare"), item)
        menu.addSeparator()
        copy = QAction("Copy checkpoint id", menu)
        copy.triggered.connect(lambda: QGuiApplication.clipboard().setText(cid))
        menu.addAction(copy)
    return menu


def _left_in_file(dock: TimelineDock, checkpoint_id: str) -> bool:
    """Is ``checkpoint_id`` one of a long session's checkpoints whose events were not loaded
    (an older run's, or one in the middle of a run cut at the load limit)?"""
    hub = dock.hub
    return hub.older_runs is not None and checkpoint_id not in hub.saved
