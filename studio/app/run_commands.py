"""The window's run commands (``MainWindow`` mixes them in): Run / Continue, the steps,
Restart, Send, F9, and what each does when the graph still needs its input (the chat box's
text, or the input form) or the run has ended (a step asks before it starts a new run).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, cast

from studio.app.settings_store import apply_model_env
from studio.dialogs.asyncdialog import show_dialog
from studio.run.controller import NeedsInput

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from studio.app.input_bar import InputBar
    from studio.app.settings_store import StudioSettings
    from studio.app.status_bar import RunStatusBar
    from studio.docks.graph.panel import GraphPanel
    from studio.models.hub import Hub
    from studio.run.controller import RunController

__all__ = ["RunCommands"]


class RunCommands:
    """Run commands of the main window (which owns the attributes below)."""

    controller: RunController
    hub: Hub
    settings: StudioSettings
    status: RunStatusBar
    input_bar: InputBar
    graph_panel: GraphPanel
    confirm_dialog: Any

    def _typed_first_message(self) -> bool:
        """Run / Step on an agent waiting for its first message: the text typed in the input
        bar is that message (as if Send was pressed)."""
        ctl = self.controller
        text = self.input_bar.message_edit.text()
        return not ctl.busy and ctl.needs_input and bool(text.strip())

    def run_or_continue(self) -> None:
        if self._typed_first_message():
            self.send_message()
            return
        thread, ended = self.hub.thread_id, self.controller.would_restart
        failed = ended and self.controller.status == "error"
        try:
            self.controller.run_or_continue()
        except NeedsInput as exc:
            self._ask_for_input(str(exc))
            return
        if ended:  # F5 after the run ended starts over on a new thread: say so, and how to retry
            retry = (
                " (to retry its failed step there, pick its last checkpoint on the Timeline"
                " and ▶ Resume)"
                if failed
                else ""
            )
            self._note_once_started(f"A new run on a new thread; {thread} is kept{retry}")

    def _note_once_started(self, note: str) -> None:
        """Show ``note`` in the status bar once the run just launched stops (its start clears
        the bar); a run that fails keeps its error there instead."""

        def on_status(status: str) -> None:
            if status in ("paused", "done", "error", "cancelled", "interrupted"):
                unsubscribe()
                if status != "error":
                    self.status.show_message(note)

        unsubscribe = self.hub.subscribe("status", on_status)

    def _step(self, command: str) -> None:
        if self._typed_first_message():
            text = self.input_bar.message_edit.text()
            try:
                self.controller.step_with_input(command, text)
            except NeedsInput as exc:
                self._ask_for_input(str(exc))
                return
            self.input_bar.take_text()
            return
        if self.controller.would_restart:
            self.confirm_new_run(command)
            return
        try:
            self.controller.step(command)
        except NeedsInput as exc:
            self._ask_for_input(str(exc))

    def confirm_new_run(self, command: str) -> asyncio.Future[int]:
        """A step after the run ended starts a new run on a new thread: ask first, say so."""
        from studio.dialogs.confirm import ConfirmDialog

        thread = self.hub.thread_id
        name = {"step_into": "Step Into", "step_over": "Step Over"}.get(command, "Step Out")
        self.confirm_dialog = dialog = ConfirmDialog(
            "Start a new run?",
            f"The run on {thread} has ended. {name} starts the agent again on a new thread "
            f"and pauses at its first step; {thread} and its history stay in the Thread list.",
            "Start a new run",
            cast("QWidget", self),  # the main window
        )

        def answered(code: asyncio.Future[int]) -> None:
            if code.result() != dialog.DialogCode.Accepted:
                self.status.show_message(f"Nothing started: {thread} has ended")
                return
            note = f"A new run on a new thread, paused at its first step; {thread} is kept"

            def on_status(status: str) -> None:
                if status in ("paused", "done", "error", "cancelled", "interrupted"):
                    unsubscribe()
                    self.status.show_message(note)  # after the start cleared the bar

            unsubscribe = self.hub.subscribe("status", on_status)
            try:
                self.controller.step(command)
            except NeedsInput as exc:
                unsubscribe()
                self._ask_for_input(str(exc))

        future = show_dialog(dialog)
        future.add_done_callback(answered)
        return future

    def toggle_breakpoint(self) -> None:
        """F9: the breakpoint before the node selected in the graph."""
        if not self.graph_panel.toggle_selected_breakpoint():
            self.status.show_message(
                "Click a node in the graph first, then F9 toggles its breakpoint"
            )

    def run_to_here(self) -> None:
        """ "Run to here" on a graph node (its one-shot breakpoint is set): continue a paused
        run, start one otherwise (F5); a run going on stops there when it gets there."""
        ctl = self.controller
        if ctl.busy and not ctl.debugger.paused:
            return
        self.run_or_continue()

    def restart(self) -> None:
        apply_model_env(self.settings)
        try:
            self.controller.restart()
        except NeedsInput as exc:
            self._ask_for_input(str(exc))

    def send_message(self) -> None:
        text = self.input_bar.message_edit.text()
        try:
            self.controller.send_message(text)
        except (NeedsInput, RuntimeError) as exc:
            self._ask_for_input(str(exc))
            return
        self.input_bar.take_text()

    def _ask_for_input(self, why: str) -> None:
        self.status.show_message(why)
        if self.controller.missing_run_input():  # not a chat message: the input form
            from studio.dialogs.input_form import ask_run_input

            ask_run_input(self)
            return
        self.input_bar.message_edit.setFocus()
