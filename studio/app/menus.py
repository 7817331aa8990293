"""The main window's menus: File (scenarios, agent files, recent, sessions, settings), Debug,
Faults, View.  File dialogs are opened with ``open()`` and answer through signals (no nested
event loops).  The menus act on the window through ``MenuCommands`` (``studio.app.menu_commands``)
and use the ``QMainWindow`` itself only for its menu bar and as the parent of their dialogs."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtCore import QSignalBlocker
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMenu

from studio.app.settings_store import settings_prices
from studio.dialogs.asyncdialog import show_dialog
from studio.dialogs.file_names import show_full_names
from studio.look.theme import icon
from studio.widgets.plain_text import plain_tip

if TYPE_CHECKING:
    from studio.app.menu_commands import MenuCommands

__all__ = ["WindowMenus", "build_menus"]


FAILURE_TIP = "Pause where a model call, a tool call or a node fails, once per failure"
FAILURE_NODE_ONLY = (
    "Pauses where a node fails; a model or tool call that fails inside a node that carries on "
    "is shown but is no stop"
)
LOOP_TIP = (
    "Pause when the run loops: the same tool call 3 times, or 3 model answers in a row "
    "made only of failing tool calls"
)


class WindowMenus:
    def __init__(self, commands: MenuCommands, window: QMainWindow) -> None:
        self.commands = commands
        self.window = window
        bar = window.menuBar()
        self.file = bar.addMenu("&File")
        self.debug = bar.addMenu("&Debug")
        self.faults = bar.addMenu("F&aults")
        self.view = bar.addMenu("&View")
        self.help = bar.addMenu("&Help")
        self.file_dialog: QFileDialog | None = None
        self.thread_opening: asyncio.Future[None] | None = None
        """Opening the saved thread chosen last (the task, kept until it is done)."""
        self.server_opening: asyncio.Future[None] | None = None
        """Opening the server's assistant chosen last (File > Connect to Server...)."""
        self.joining: asyncio.Task[None] | None = None
        """Watching the run joined last (Debug > Join the Run on This Thread)."""
        self._build_file()
        self._build_debug()
        self._build_view()
        self.shortcuts_action = self.help.addAction("Keyboard Shortcuts", self.show_shortcuts)
        self.docs_action = self.help.addAction("Documentation", self.show_docs)
        self.docs_action.setShortcut(QKeySequence.StandardKey.HelpContents)
        self.help.addSeparator()
        self.about_action = self.help.addAction("About Stepwise", self.show_about)
        self.refresh_faults()
        commands.hub.subscribe("graph", lambda _g: self.refresh_faults())
        commands.hub.subscribe("status", self._on_status)

    # -- File -----------------------------------------------------------------------------------

    def _build_file(self) -> None:
        w, m = self.commands, self.file
        self.open_scenario = m.addAction("Open &Scenario...", self.pick_scenario)
        self.open_scenario.setShortcut(QKeySequence("Ctrl+Shift+O"))
        self.scenarios_menu = m.addMenu("Scenarios")
        for s in w.scenarios:
            action = self.scenarios_menu.addAction(
                f"{s.name}  —  {s.description}" if s.description else s.name
            )
            action.triggered.connect(lambda _c=False, name=s.name: w.load_scenario(name))
        self.open_agent = m.addAction("&Open Agent File...", self.choose_agent_file)
        self.open_agent.setShortcut(QKeySequence.StandardKey.Open)
        self.recent_menu = m.addMenu("Open &Recent")
        m.addSeparator()
        self.open_session_action = m.addAction("Open Session...", self.choose_session_file)
        self.open_session_action.setShortcut(QKeySequence("Ctrl+Alt+O"))
        self.connect_action = m.addAction("Connect to Ser&ver...", self.choose_server)
        self.connect_action.setShortcut(QKeySequence("Ctrl+Alt+V"))
        self.open_thread_action = m.addAction("Open Saved &Thread...", self.choose_saved_thread)
        self.open_thread_action.setShortcut(QKeySequence("Ctrl+Alt+T"))
        self.save_session_action = m.addAction("Save Session As...", self.choose_save_path)
        self.save_session_action.setShortcut(QKeySequence("Ctrl+Shift+S"))
        self.export_menu = m.addMenu("Export")
        self.export_otel_action = self.export_menu.addAction(
            "OpenTelemetry...", self.open_otel_export
        )
        m.addSeparator()
        self.settings_action = m.addAction("Settings...", self.open_settings)
        self.settings_action.setShortcut(QKeySequence("Ctrl+,"))
        m.addSeparator()
        quit_action = m.addAction("Quit", w.close)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        self.refresh_recent()

    def refresh_recent(self) -> None:
        self.recent_menu.clear()
        for item in self.commands.settings.recent:
            action = self.recent_menu.addAction(item)
            action.triggered.connect(lambda _c=False, spec=item: self.open_recent(spec))
        self.recent_menu.setEnabled(bool(self.commands.settings.recent))

    def open_recent(self, item: str) -> None:
        if item.endswith(".stepwise"):
            self.commands.open_session(item)
        else:
            self.commands.load_spec(item)

    def pick_scenario(self) -> asyncio.Future[int]:
        from studio.dialogs.scenario_picker import ScenarioPicker

        self.scenario_picker = ScenarioPicker(
            self.commands.scenarios, self.commands.controller.label, self.window
        )

        def done(code: asyncio.Future[int]) -> None:
            chosen = self.scenario_picker.chosen()
            if code.result() and chosen is not None:
                self.commands.load_scenario(chosen.name)

        future = show_dialog(self.scenario_picker)
        future.add_done_callback(done)
        return future

    def _file_dialog(self, title: str, name_filter: str, save: bool = False) -> QFileDialog:
        dialog = QFileDialog(self.window, title)
        dialog.setNameFilter(name_filter)
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        if save:
            dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
            dialog.setDefaultSuffix("stepwise")
        else:
            dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        show_full_names(dialog)
        self.file_dialog = dialog
        return dialog

    def choose_agent_file(self) -> None:
        dialog = self._file_dialog(
            "Open an agent file", "Agent files and LangGraph projects (*.py langgraph.json)"
        )
        dialog.fileSelected.connect(self.commands.open_agent_file)
        dialog.open()

    def choose_session_file(self) -> None:
        """Starts in the folder the studio records into (where the runs just made are)."""
        dialog = self._file_dialog("Open a session", "Stepwise sessions (*.stepwise)")
        folder = self.commands.controller.recordings_folder()
        folder.mkdir(parents=True, exist_ok=True)
        dialog.setDirectory(str(folder))
        dialog.fileSelected.connect(self.commands.open_session)
        dialog.open()

    def choose_server(self) -> asyncio.Future[int]:
        """Pick a LangGraph server's assistant and thread, and debug it."""
        from studio.dialogs.connect_server import ConnectServerDialog
        from studio.run.remote_open import open_remote

        self.server_dialog = ConnectServerDialog(self.window, self.commands.settings.theme)

        def done(code: asyncio.Future[int]) -> None:
            dialog = self.server_dialog
            if code.result() and dialog.target is not None:
                self.server_opening = asyncio.ensure_future(
                    open_remote(self.commands, dialog.target, dialog.chosen_thread)
                )

        future = show_dialog(self.server_dialog)
        future.add_done_callback(done)
        return future

    def choose_saved_thread(self) -> asyncio.Future[int] | None:
        """Pick a thread the checkpointer holds (another database in attach mode) and open it."""
        from studio.dialogs.saved_thread import OpenThreadDialog

        ctl = self.commands.controller
        if ctl.target is None:
            self.commands.show_error(
                "No agent is loaded", "Open the agent file first: threads are its"
            )
            return None
        if ctl.fixed_target is not None:  # a server: its thread browser
            return self.choose_server()
        self.thread_dialog = OpenThreadDialog(ctl, self.window, self.commands.settings.theme)

        def done(code: asyncio.Future[int]) -> None:
            if code.result():
                url, thread = self.thread_dialog.chosen()
                self.thread_opening = asyncio.ensure_future(
                    self.open_thread(url, thread, self.thread_dialog.saver)
                )

        future = show_dialog(self.thread_dialog)
        future.add_done_callback(done)
        return future

    async def open_thread(self, url: str, thread: str, saver: object = None) -> None:
        """Open ``thread``; on the checkpointer ``url`` names when it is not the current one
        (the agent is loaded again on it: attach mode only)."""
        from dataclasses import replace

        from studio.run.saved_threads import open_in_window

        ctl = self.commands.controller
        if url and url != (ctl.attach.checkpointer or ""):
            if not ctl.spec:
                self.commands.show_error(
                    "The thread could not be opened",
                    "Another checkpointer needs the agent loaded from its file",
                )
                return
            ctl.attach = replace(ctl.attach, checkpointer=url)
            ctl._saver = saver
            if not self.commands.load_spec(ctl.spec, ctl.label):
                return
        await open_in_window(self.commands, thread)

    def choose_save_path(self) -> None:
        dialog = self._file_dialog(
            "Save the session as", "Stepwise sessions (*.stepwise)", save=True
        )
        dialog.fileSelected.connect(self.save_session)
        dialog.open()

    def save_session(self, path: str) -> None:
        from pathlib import Path

        try:
            self.commands.controller.save_session_as(Path(path))
        except Exception as exc:
            self.commands.show_error(
                "The session could not be saved", f"{type(exc).__name__}: {exc}"
            )
            return
        self.commands.show_message(f"Session saved to {path}")

    def open_otel_export(self) -> asyncio.Future[int]:
        from studio.dialogs.otel_export import OtelExportDialog

        self.otel_dialog = OtelExportDialog(self.commands, self.window)
        return show_dialog(self.otel_dialog)

    def open_settings(self) -> asyncio.Future[int]:
        from studio.dialogs.settings import SettingsDialog

        self.settings_dialog = SettingsDialog(self.commands.settings, self.window)

        def done(code: asyncio.Future[int]) -> None:
            if not code.result():
                return
            self.commands.settings = self.settings_dialog.values(self.commands.settings)
            self.commands.hub.set_theme(self.commands.settings.theme)
            self.commands.hub.set_prices(settings_prices(self.commands.settings))
            self.theme_actions[self.commands.settings.theme].setChecked(True)
            if self.commands.save_settings:
                self.commands.settings.save()

        future = show_dialog(self.settings_dialog)
        future.add_done_callback(done)
        return future

    # -- Debug and Faults -----------------------------------------------------------------------

    def _build_debug(self) -> None:
        a, m = self.commands.actions_, self.debug
        for action in a.toolbar_actions:
            m.addAction(action)
            if action is a.pause or action is a.step_out:
                m.addSeparator()
        m.setToolTipsVisible(True)
        self.join_action = m.addAction("&Join the Run on This Thread", self.join_run)
        self.join_action.setStatusTip("Watch the run another client has going on this thread")
        self.configurable_action = m.addAction("Run &Configuration...", self.edit_configurable)
        self.configurable_action.setStatusTip(
            'The app\'s own config["configurable"] keys (a user_id...) for the runs to come'
        )
        self.run_input_action = m.addAction("Run with &Input...", self.run_with_input)
        self.run_input_action.setStatusTip(
            "The input and the context the runs start with: change them, then run"
        )
        m.addSeparator()
        m.addAction(a.toggle_breakpoint)
        model = self.commands.breakpoints
        self.break_on_failure = m.addAction("Break on Any Failure")
        self.break_on_interrupt = m.addAction("Break on Interrupts")
        self.break_on_loop = m.addAction("Break on Loop")
        self.break_on_failure.setToolTip(plain_tip(FAILURE_TIP))
        self.break_on_loop.setToolTip(plain_tip(LOOP_TIP))
        for action, kind in self._break_toggles():
            action.setCheckable(True)  # a toggle: one breakpoint, on or off
            action.toggled.connect(lambda on, k=kind: model.set_on(k, on))
        clear = m.addAction("Remove All Breakpoints")
        clear.triggered.connect(model.clear)
        self.commands.hub.subscribe("breakpoints", self._sync_break_toggles)

    def _break_toggles(self) -> tuple[tuple[QAction, str], ...]:
        return (
            (self.break_on_failure, "failure"),
            (self.break_on_interrupt, "interrupt"),
            (self.break_on_loop, "loop"),
        )

    def _sync_break_toggles(self, *_args: object) -> None:
        """The toggles follow the breakpoints (added or removed in the Breakpoints dock too)."""
        model = self.commands.breakpoints
        for action, kind in self._break_toggles():
            on = model.is_on(kind)
            if action.isChecked() != on:
                blocker = QSignalBlocker(action)
                action.setChecked(on)
                del blocker

    def edit_configurable(self) -> asyncio.Future[int]:
        """Edit the app's ``configurable`` keys the next runs get (``ConfigurableDialog``)."""
        from studio.dialogs.configurable import ConfigurableDialog

        ctl = self.commands.controller
        self.configurable_dialog = ConfigurableDialog(
            ctl.configurable, self.window, self.commands.settings.theme
        )

        def done(code: asyncio.Future[int]) -> None:
            value = self.configurable_dialog.value
            if code.result() and value is not None:
                ctl.configurable = value or None
                keys = ", ".join(value) or "none"
                self.commands.show_message(f"Run configuration: {keys}")

        future = show_dialog(self.configurable_dialog)
        future.add_done_callback(done)
        return future

    def run_with_input(self) -> asyncio.Future[int] | None:
        """The run input form, filled with what the graph was given (to change it), then Run."""
        from studio.dialogs.input_form import ask_run_input

        future = ask_run_input(self.window, change=True)
        if future is None:
            self.commands.show_message(
                "This graph takes no input form: type its first message in the input bar"
            )
        return future

    def join_run(self) -> None:
        """Watch the run another client started on the current thread (a server's)."""
        ctl = self.commands.controller
        try:
            self.joining = ctl.join()
        except RuntimeError as exc:
            self.commands.show_error("Cannot join a run", str(exc))

    def refresh_faults(self) -> None:
        ctl, m = self.commands.controller, self.faults
        joins = ctl.can_join
        self.join_action.setEnabled(joins)
        self.join_action.setToolTip(
            plain_tip(
                "Watch the run another client has going on this thread"
                if joins
                else "Only runs on a LangGraph server can be joined (File > Connect to Server...)"
            )
        )
        m.clear()
        self.model_timeout = m.addAction(icon("fault"), "Next Model Call Times Out")
        self.model_timeout.triggered.connect(self._inject_model_timeout)
        m.addSeparator()
        tools = m.addMenu("Next Tool Call Fails")
        self.tool_fault_actions: dict[str | None, QAction] = {}
        self._tool_names = ctl.tool_names()
        for name in [None, *self._tool_names]:
            action = tools.addAction("Any tool" if name is None else name)
            action.triggered.connect(lambda _c=False, tool=name: self._inject_tool_error(tool))
            self.tool_fault_actions[name] = action
        from engine.targets import Capability
        from studio.run.capabilities import can

        m.setToolTipsVisible(True)
        # a loop is seen at tool calls inside a node: a target that stops only between nodes
        # (a server) cannot pause there.  A failure it can stop at only where a node fails (the
        # server run ends there); a failed call inside a node that carries on goes by
        hub = self.commands.hub
        inside, why_not = can(hub, Capability.PAUSE_IN_NODE)
        offered = inside or hub.target is None
        self.break_on_loop.setEnabled(offered)
        self.break_on_loop.setToolTip(plain_tip(LOOP_TIP if offered else why_not))
        self.break_on_failure.setToolTip(
            plain_tip(FAILURE_TIP if offered else f"{FAILURE_NODE_ONLY}: {why_not}")
        )
        ok, why = can(self.commands.hub, Capability.FAULT_INJECTION)  # a recording takes none
        for action in (self.model_timeout, tools.menuAction()):
            action.setEnabled(ok)
            action.setToolTip(plain_tip(why))

    def _on_status(self, status: str) -> None:
        """A run ended: the tools it called that the graph does not list (a sub-agent's) are
        offered too."""
        if (
            status not in ("running", "paused")
            and self._tool_names != self.commands.controller.tool_names()
        ):
            self.refresh_faults()

    def _inject_model_timeout(self) -> None:
        self.commands.controller.inject_model_timeout()
        self.commands.show_message("Armed: the next model call raises TimeoutError")

    def _inject_tool_error(self, tool: str | None) -> None:
        self.commands.controller.inject_tool_error(tool)
        self.commands.show_message(f"Armed: the next call of {tool or 'any tool'} raises OSError")

    def show_shortcuts(self) -> asyncio.Future[int]:
        from studio.dialogs.shortcuts import ShortcutsDialog

        debug = list(self.commands.actions_.all)
        menus = [
            a
            for m in self.window.menuBar().findChildren(QMenu)
            for a in m.actions()
            if a not in debug  # the Debug menu shows the debugger's own actions: listed once
        ]
        self.shortcuts_dialog = ShortcutsDialog(
            [("Debugging", debug), ("Files, views and zoom", menus)], self.window
        )
        return show_dialog(self.shortcuts_dialog)

    def show_about(self) -> asyncio.Future[int]:
        from studio.dialogs.about import AboutDialog

        self.about_dialog = AboutDialog(self.window)
        return show_dialog(self.about_dialog)

    def show_docs(self) -> asyncio.Future[int]:
        from studio.dialogs.about import DocsDialog

        self.docs_dialog = DocsDialog(self.window)
        return show_dialog(self.docs_dialog)

    # -- View ---------------------------------------------------------------------------------

    def _build_view(self) -> None:
        w, m = self.commands, self.view
        view = w.graph_view
        fit = m.addAction("Fit Graph", view.fit)
        fit.setShortcut(QKeySequence("Ctrl+0"))
        m.addAction("Zoom In", view.zoom_in).setShortcut(QKeySequence.StandardKey.ZoomIn)
        m.addAction("Zoom Out", view.zoom_out).setShortcut(QKeySequence.StandardKey.ZoomOut)
        m.addAction("Export Graph as PNG...", lambda: self._export("png"))
        m.addAction("Export Graph as SVG...", lambda: self._export("svg"))
        m.addSeparator()
        self.docks_menu = m.addMenu("Docks")
        self.refresh_docks()
        theme = m.addMenu("Theme")
        group = QActionGroup(theme)
        self.theme_actions: dict[str, QAction] = {}
        for name in ("light", "dark"):
            action = theme.addAction(name.capitalize())
            action.setCheckable(True)
            action.setChecked(w.settings.theme == name)
            group.addAction(action)
            action.triggered.connect(lambda _c=False, n=name: self.set_theme(n))
            self.theme_actions[name] = action

    def refresh_docks(self) -> None:
        self.docks_menu.clear()
        for dock in self.commands.docks.values():
            self.docks_menu.addAction(dock.toggleViewAction())

    def set_theme(self, name: str) -> None:
        self.commands.settings.theme = name
        self.commands.hub.set_theme(name)

    def _export(self, fmt: str) -> None:
        dialog = self._file_dialog(
            f"Export the graph as {fmt.upper()}", f"{fmt.upper()} images (*.{fmt})", save=True
        )
        dialog.setDefaultSuffix(fmt)
        view = self.commands.graph_view
        dialog.fileSelected.connect(view.export_png if fmt == "png" else view.export_svg)
        dialog.open()


def build_menus(commands: MenuCommands, window: QMainWindow) -> WindowMenus:
    return WindowMenus(commands, window)
