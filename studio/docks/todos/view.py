"""The Todos dock: ``state["todos"]`` as a board of three columns, live and at any checkpoint.

``TodoBoardDock(hub)`` subscribes itself to the hub.  Following the live tip it updates from
``state.updated`` events as ``write_todos`` runs; when a checkpoint is selected on the timeline
it shows that checkpoint's list.  Cards changed since the previous checkpoint are highlighted
(new, status changed, reworded, moved) and removed todos are listed under the board.  An agent
without a ``todos`` key (or a thread that has none yet) gets a short explanation instead.

When no run is live (the run is interrupted, done, failed or stopped) and the live tip is
shown, "Edit todos" opens the editor; applying it calls
``graph.aupdate_state(config, todos_update(values, todos), as_node=<the tip's writer>)`` and
then ``hub.checkpoints_changed()``.  A run paused at a breakpoint keeps its state in memory, so
it cannot be edited from here (stop at an interrupt instead).
"""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QBoxLayout,
    QFrame,
    QHBoxLayout,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from engine.events import CheckpointSaved, EventBase, StateUpdated
from engine.targets import Capability
from studio.docks.todos.editor import TodoEditor
from studio.look.palette import Palette, colors
from studio.models.hub import Hub
from studio.models.snapshot_reader import SnapshotReader
from studio.models.todos import (
    STATUS_TITLES,
    STATUSES,
    BoardState,
    TodoCard,
    normalise_todos,
    tip_writer,
    todos_update,
)
from studio.run.capabilities import can
from studio.widgets.dock_support import bind_state_dock
from studio.widgets.plain_text import plain_label, plain_tip

__all__ = ["EDITABLE_STATUSES", "TodoBoardDock"]

EDITABLE_STATUSES = frozenset({"interrupted", "done", "error", "cancelled"})
_CHANGE_TEXT = {"added": "new", "reworded": "reworded", "moved": "moved"}


def _style(c: Palette) -> str:
    dots = {"pending": c.muted, "in_progress": c.accent, "completed": c.ok}
    changes = {"added": c.ok, "status": c.accent, "reworded": c.violet, "moved": c.warn}
    rules = [
        f"TodoBoardDock {{ background: {c.window}; }}",
        f"QLabel {{ color: {c.text}; }}",
        f"QLabel#Muted, QLabel#Info {{ color: {c.muted}; }}",
        f"QLabel#Title {{ font-size: 14px; font-weight: 600; color: {c.text}; }}",
        f"QFrame#Column {{ background: {c.alt}; border: 1px solid {c.border}; border-radius: 8px; }}",
        f"QLabel#ColumnTitle {{ font-weight: 600; color: {c.text}; }}",
        f"QLabel#Count {{ color: {c.muted}; background: {c.panel}; border: 1px solid {c.border};"
        " border-radius: 8px; padding: 0 6px; }",
        f"QFrame#Card {{ background: {c.panel}; border: 1px solid {c.border}; border-radius: 6px; }}",
        f'QLabel#CardText[done="true"] {{ color: {c.muted}; }}',
        f"QLabel#Removed {{ color: {c.muted}; }}",
        f"QLabel#Error {{ color: {c.danger}; }}",
        f"QPushButton#Primary {{ background: {c.ok}; color: white; border: 1px solid {c.ok};"
        " border-radius: 6px; padding: 5px 14px; font-weight: 600; }",
        f"QPushButton#Primary:disabled {{ background: {c.alt}; color: {c.muted};"
        f" border-color: {c.border}; }}",
        "QScrollArea { background: transparent; border: none; }",
    ]
    for status, dot in dots.items():
        rules.append(f'QLabel#Dot[status="{status}"] {{ color: {dot}; }}')
    for change, color in changes.items():
        rules.append(
            f'QFrame#Card[change="{change}"] {{ border: 1px solid {c.tint(color, 0.55)};'
            f" border-left: 3px solid {color}; background: {c.tint(color, 0.07)}; }}"
        )
        rules.append(
            f'QLabel#Badge[change="{change}"] {{ color: {color}; font-size: 10px;'
            " font-weight: 700; }"
        )
    return "\n".join(rules)


def _todos_of(snapshot: Any) -> Any:
    values = getattr(snapshot, "values", None)
    return values.get("todos") if isinstance(values, dict) else None


class CardWidget(QFrame):
    """One todo card; its ``change`` property drives the highlight."""

    def __init__(self, card: TodoCard) -> None:
        super().__init__()
        self.card = card
        self.setObjectName("Card")
        self.setProperty("change", card.change or "")
        box = QVBoxLayout(self)
        box.setContentsMargins(10, 7, 10, 8)
        box.setSpacing(3)
        top = QHBoxLayout()
        number = plain_label(f"#{card.index + 1}")
        number.setObjectName("Muted")
        top.addWidget(number)
        top.addStretch(1)
        # parented at once: a parentless label made visible would flash up as its own
        # top-level window and steal focus from the main window
        self.badge = plain_label(self._badge_text(), self)
        self.badge.setObjectName("Badge")
        self.badge.setProperty("change", card.change or "")
        top.addWidget(self.badge)
        self.badge.setVisible(card.change is not None)
        box.addLayout(top)
        self.text = plain_label(("✓ " if card.status == "completed" else "") + card.content)
        self.text.setObjectName("CardText")
        self.text.setProperty("done", "true" if card.status == "completed" else "false")
        self.text.setWordWrap(True)
        box.addWidget(self.text)
        if card.change == "reworded" and card.before:
            was = plain_label(f"was: {card.before}")
            was.setObjectName("Muted")
            was.setWordWrap(True)
            box.addWidget(was)

    def _badge_text(self) -> str:
        card = self.card
        if card.change == "status":
            return f"{STATUS_TITLES.get(card.before or '', card.before)} → {STATUS_TITLES[card.status]}".upper()
        return _CHANGE_TEXT.get(card.change or "", "").upper()


class TodoColumn(QFrame):
    def __init__(self, status: str) -> None:
        super().__init__()
        self.status = status
        self.setObjectName("Column")
        box = QVBoxLayout(self)
        box.setContentsMargins(8, 8, 8, 8)
        box.setSpacing(6)
        head = QHBoxLayout()
        dot = plain_label("●")
        dot.setObjectName("Dot")
        dot.setProperty("status", status)
        title = plain_label(STATUS_TITLES[status])
        title.setObjectName("ColumnTitle")
        self.count_label = plain_label("0")
        self.count_label.setObjectName("Count")
        head.addWidget(dot)
        head.addWidget(title)
        head.addStretch(1)
        head.addWidget(self.count_label)
        box.addLayout(head)
        self._cards_box = QVBoxLayout()
        self._cards_box.setSpacing(6)
        box.addLayout(self._cards_box)
        box.addStretch(1)
        self.cards: list[CardWidget] = []

    def set_cards(self, cards: list[TodoCard]) -> None:
        for widget in self.cards:
            self._cards_box.removeWidget(widget)
            widget.deleteLater()
        self.cards = [CardWidget(card) for card in cards]
        for widget in self.cards:
            self._cards_box.addWidget(widget)
        self.count_label.setText(str(len(cards)))


class TodoBoardDock(QWidget):
    """The Todos dock (see the module docstring).  ``applied`` fires after an edit is written."""

    applied = Signal()
    applyFailed = Signal(str)

    def __init__(self, hub: Hub, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hub = hub
        self.state = BoardState()
        self.checkpoint_id: str | None = None
        """The checkpoint shown (None: the live tip)."""
        self.task: asyncio.Task[None] | None = None
        self.reader = SnapshotReader(hub, self._loaded, with_parent=True)
        self._changed_in_step = False
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(8)
        head = QHBoxLayout()
        self.info_label = plain_label()
        self.info_label.setObjectName("Info")
        self.info_label.setWordWrap(True)
        self.edit_button = QPushButton("Edit todos…")
        self.edit_button.clicked.connect(self.start_editing)
        head.addWidget(self.info_label, 1)
        head.addWidget(self.edit_button)
        layout.addLayout(head)

        self.pages = QStackedWidget()
        self.explanation_label = plain_label()
        self.explanation_label.setObjectName("Muted")
        self.explanation_label.setWordWrap(True)
        self.explanation_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.pages.addWidget(self.explanation_label)
        board = QWidget()
        board_box = QVBoxLayout(board)
        board_box.setContentsMargins(0, 0, 0, 0)
        self.columns_row = columns_row = QHBoxLayout()
        columns_row.setSpacing(8)
        self.columns = {status: TodoColumn(status) for status in STATUSES}
        for column in self.columns.values():
            columns_row.addWidget(column, 1)
        board_box.addLayout(columns_row, 1)
        self.removed_label = plain_label()
        self.removed_label.setObjectName("Removed")
        self.removed_label.setWordWrap(True)
        board_box.addWidget(self.removed_label)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(board)
        self.pages.addWidget(scroll)
        self.editor = TodoEditor()
        self.editor.applyRequested.connect(self.apply_edits)
        self.editor.discardRequested.connect(self.stop_editing)
        self.pages.addWidget(self.editor)
        layout.addWidget(self.pages, 1)

        self._unsubscribe = bind_state_dock(self, self, hub)
        self.set_theme(hub.theme)
        self.reload()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Side by side where the three columns fit the dock's width, else one above the
        other (a narrow dock scrolls down its board, not sideways through it)."""
        row = self.columns_row
        wanted = sum(c.minimumSizeHint().width() for c in self.columns.values())
        box = self.layout()
        sides = box.contentsMargins().left() + box.contentsMargins().right() if box else 0
        room = self.width() - sides - 2 * row.spacing() - 4  # 4: the scroll area's frame
        direction = (
            QBoxLayout.Direction.LeftToRight if room >= wanted else QBoxLayout.Direction.TopToBottom
        )
        if row.direction() != direction:
            row.setDirection(direction)

    # -- what is shown -------------------------------------------------------------------

    def set_theme(self, name: str) -> None:
        self.setStyleSheet(_style(colors(name)))

    @property
    def has_todo_channel(self) -> bool:
        target = self.hub.target
        if target is None or Capability.RUN not in target.capabilities:  # a recording: trust it
            return self.state.todos is not None
        return "todos" in target.state_keys()

    @property
    def editing(self) -> bool:
        return self.pages.currentWidget() is self.editor

    def reload(self) -> asyncio.Task[None] | None:
        """Show the selected checkpoint (or the live tip) with its changes since its parent;
        read on the running loop when there is one (the task is returned)."""
        self.checkpoint_id = self.hub.selected_checkpoint
        return self.reader.read(self.checkpoint_id)

    def _loaded(self, snapshot: Any, parent: Any) -> None:
        if isinstance(snapshot, Exception):  # e.g. a checkpoint of a branch being written
            self.info_label.setText(f"Cannot read this checkpoint: {snapshot}")
            return
        todos = _todos_of(snapshot)
        previous = _todos_of(parent)
        if parent is not None and previous is None and todos is not None:
            previous = []  # the list is new at this checkpoint
        self._changed_in_step = False
        self._show(BoardState.of(todos, previous))

    def _on_reset(self) -> None:
        self.stop_editing()
        self._show(BoardState())

    def _on_events(self, batch: list[EventBase]) -> None:
        """Live: a ``todos`` change shows with its highlights until the next checkpoint that
        does not change the list (highlights are changes since the previous checkpoint)."""
        if self.hub.selected_checkpoint is not None:
            return
        if any(e.kind == "run.started" and not e.ns for e in batch):
            # a run may start on another branch (a fork, a replay): its todos are those of
            # the checkpoint it starts from, not the ones shown so far
            self.reload()
            return
        state = self.state
        for event in batch:
            if event.ns or (event.thread_id and event.thread_id != self.hub.thread_id):
                continue
            if isinstance(event, CheckpointSaved):
                if not self._changed_in_step and state.changed:
                    state = BoardState.of(state.todos, state.todos)
                self._changed_in_step = False
                continue
            if not isinstance(event, StateUpdated):
                continue
            for change in event.changes:
                if change.get("channel") != "todos":
                    continue
                self._changed_in_step = True
                if change.get("op") == "clear":
                    state = BoardState()
                else:
                    state = BoardState.of(change.get("value"), state.todos or [])
        if state is not self.state:
            self._show(state)

    def _show(self, state: BoardState) -> None:
        self.state = state
        for status, column in self.columns.items():
            column.set_cards(state.column(status))
        removed = ", ".join(f"“{t['content']}”" for t in state.removed)
        self.removed_label.setText(f"Removed since the previous checkpoint: {removed}")
        self.removed_label.setVisible(bool(state.removed))
        if not self.editing:
            self.pages.setCurrentIndex(1 if state.todos else 0)
        self.explanation_label.setText(self._explanation())
        self._refresh_controls()

    def _explanation(self) -> str:
        if self.hub.target is None and self.state.todos is None:
            return "Load an agent to see its todo list."
        if not self.has_todo_channel:
            return (
                "This agent keeps no todo list.\n\nAgents built with TodoListMiddleware plan "
                "their work with the write_todos tool; their todos appear here as a board."
            )
        if self.state.todos == []:
            return "The todo list is empty at this point."
        return "No todos yet: the agent has not called write_todos at this point."

    def _refresh_controls(self) -> None:
        state = self.state
        where = "Live" if self.checkpoint_id is None else f"Checkpoint {self.checkpoint_id[-8:]}"
        if state.todos is None:
            self.info_label.setText(where)
        else:
            done = len(state.column("completed"))
            text = f"{where} · {done} of {len(state.todos)} done"
            if state.changed:
                text += f" · {state.changed} change{'s' if state.changed > 1 else ''} since the previous checkpoint"
            self.info_label.setText(text)
        can, why = self.can_edit()
        self.edit_button.setEnabled(can and not self.editing)
        self.edit_button.setToolTip(plain_tip(why))
        self.edit_button.setVisible(self.has_todo_channel)

    # -- editing ---------------------------------------------------------------------------

    def can_edit(self) -> tuple[bool, str]:
        """Whether the list can be edited now, and why not."""
        hub = self.hub
        editable, why = can(hub, Capability.EDIT_STATE)
        if not editable:
            return False, why
        if not self.has_todo_channel:
            return False, "This agent has no todo list"
        if hub.status not in EDITABLE_STATUSES:
            return False, (
                "Edit when no run is live: at an interrupt, or after the run ended "
                "(a run paused at a breakpoint keeps its own copy of the state)"
            )
        if self.checkpoint_id is not None:
            return False, "Select the latest checkpoint (the live tip) to edit the todo list"
        return True, "Edit the todo list; the model sees it on its next turn"

    def start_editing(self) -> None:
        can, why = self.can_edit()
        if not can:
            raise RuntimeError(why)
        self.editor.start(normalise_todos(self.state.todos))
        self.pages.setCurrentWidget(self.editor)
        self._refresh_controls()

    def stop_editing(self) -> None:
        if self.editing:
            self.pages.setCurrentIndex(1 if self.state.todos else 0)
        self._refresh_controls()

    def apply_edits(self) -> asyncio.Task[None]:
        """Write the editor's list to the run (a task on the running loop)."""
        self.task = asyncio.ensure_future(self._apply(self.editor.draft.result()))
        return self.task

    async def _apply(self, todos: list[dict[str, str]]) -> None:
        target, thread = self.hub.target, self.hub.thread_id
        self.editor.apply_button.setEnabled(False)
        try:
            if target is None:
                raise RuntimeError("no agent is loaded")
            snapshot = await target.state(thread)
            if snapshot is None:
                raise RuntimeError("the thread has no checkpoint yet")
            update = todos_update(snapshot.values, todos)
            as_node = tip_writer(self.hub.events, snapshot)
            await target.update_state(thread, update, as_node=as_node)
        except Exception as exc:
            message = f"Could not apply the todo list: {exc}"
            self.editor.show_error(message)
            self.editor.apply_button.setEnabled(True)
            self.applyFailed.emit(message)
            return
        self.stop_editing()
        self.hub.checkpoints_changed()  # every dock re-reads, this one too
        if self.reader.task is not None:
            await self.reader.task
        self.applied.emit()
