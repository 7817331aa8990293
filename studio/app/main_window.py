"""The main window: graph in the middle, docks around it, debug toolbar, input bar, status bar.

``MainWindow(hub, controller, settings)`` wires the run controller (``studio.run.controller``) to the
views.  Everything that can fail is shown (``error_dialog``), never swallowed.  Loading is
split from painting: ``app.main`` shows the window first and loads the scenario right after.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QShowEvent
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QToolBar, QWidget

from engine.errors import one_line
from engine.events import EventBase
from engine.loader import AgentLoadError
from studio.app import dock_registry as docks
from studio.app.actions import DebugActions
from studio.app.input_bar import InputBar
from studio.app.menus import build_menus
from studio.app.run_commands import RunCommands
from studio.app.scenarios import Scenario, builtin_scenarios
from studio.app.settings_store import (
    StudioSettings,
    apply_model_env,
    settings_model,
    settings_prices,
)
from studio.app.status_bar import RunStatusBar, StatusTips
from studio.dialogs.errors import ErrorDialog
from studio.docks.breakpoints.view import BreakpointsPanel
from studio.docks.graph.panel import GraphPanel
from studio.look.theme import apply_theme, icon
from studio.models.hub import Hub
from studio.models.window_fit import PREFERRED
from studio.run.controller import FIRST_MESSAGE_HINT, STAY, NeedsInput, RunController
from studio.run.reload_on_save import ReloadOnSave
from studio.widgets.cost_status import CostStatus
from studio.widgets.steady_slot import steady
from studio.widgets.window_layout import WindowLayout

if TYPE_CHECKING:
    from types import ModuleType

    from studio.dialogs.otel_export import LiveOtel
    from studio.dialogs.scenario_picker import GraphPicker
    from studio.docks.graph.view import GraphView
    from studio.models.breakpoints import BreakpointsModel
    from studio.models.timeline import TimelineModel

__all__ = ["MainWindow"]


class MainWindow(RunCommands, WindowLayout, QMainWindow):
    def __init__(
        self,
        hub: Hub | None = None,
        controller: RunController | None = None,
        settings: StudioSettings | None = None,
        *,
        save_settings: bool = True,
    ) -> None:
        super().__init__()
        self.hub = hub or Hub()
        self.controller = controller or RunController(self.hub)
        self.settings = settings or StudioSettings.load()
        self.save_settings = save_settings
        self.scenarios: list[Scenario] = builtin_scenarios()
        self.error_dialog: ErrorDialog | None = None
        self.live_otel: LiveOtel | None = None
        self.graph_picker: GraphPicker | None = None
        """The open 'Pick a graph' dialog of ``open_agent_file``."""
        """The live OpenTelemetry export (File > Export > OpenTelemetry), if one is on."""
        self.docks: dict[str, QDockWidget] = {}
        self.run_windows: list[QWidget] = []
        """The open windows of runs a long session left in the file (``show_run_events``)."""
        self._sized = False
        self.setWindowTitle("Stepwise")
        self.setWindowIcon(icon("app"))
        self.resize(*PREFERRED)  # ``open_on_screen`` fits it to the screen it opens on
        self.setDockNestingEnabled(True)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.BottomDockWidgetArea)

        self.graph_panel = GraphPanel(self.hub, self)
        self.setCentralWidget(self.graph_panel)
        self.actions_ = DebugActions(self)
        self.status = RunStatusBar(self.hub, self)
        self.installEventFilter(StatusTips(self.status))  # tips in the note: the row stays
        self.setStatusBar(self.status)
        self.cost_status = CostStatus(self.hub, self.status)
        self.status.add_field(self.cost_status)
        self.input_bar = InputBar(self.hub, self)
        self._build_toolbars()
        self._build_docks()
        self.menus = build_menus(self, self)  # the window implements ``MenuCommands``
        self.reloader = ReloadOnSave(self)
        self._connect()
        self.hub.set_theme(self.settings.theme)
        if self.settings.prices:
            self.hub.set_prices(settings_prices(self.settings))
        self._install_interrupt_handler()
        self._refresh()

    # -- building ------------------------------------------------------------------------------

    def _build_toolbars(self) -> None:
        bar = QToolBar("Debug", self)
        bar.setObjectName("debugToolbar")
        bar.setMovable(False)
        # The buttons sit in a toolbar of their own, in a SteadySlot: Run, Pause, Step and Stop
        # change at every start and end of a run, and each change re-lays out the toolbar that
        # holds them; a toolbar of the main window then re-lays out the whole window (every
        # dock's title measured again: a tenth of the studio's time per agent turn).
        buttons = QToolBar("Debug", bar)
        buttons.setObjectName("debugButtons")
        buttons.setIconSize(QSize(18, 18))
        buttons.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for action in self.actions_.toolbar_actions:
            buttons.addAction(action)
        bar.addWidget(steady(buttons))
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
        self.debug_toolbar = buttons
        self.addActions(self.actions_.all)  # keys work wherever the focus is in the window
        bottom = QToolBar("Input", self)
        bottom.setObjectName("inputToolbar")
        bottom.setMovable(False)
        bottom.addWidget(self.input_bar)
        self.addToolBar(Qt.ToolBarArea.BottomToolBarArea, bottom)

    def _add_dock(
        self, key: str, title: str, widget: QWidget, area: Qt.DockWidgetArea
    ) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock_{key}")
        # The content paints its own background (the window's colour, as before): a change
        # inside it repaints the content only, not the dock's frame and title bar under it
        # (Qt paints the parents of a widget that is not opaque; a live run changes some dock
        # several times a turn).
        widget.setAutoFillBackground(True)
        dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
        )
        self.addDockWidget(area, dock)
        self.docks[key] = dock
        return dock

    def _build_docks(self) -> None:
        self.breakpoints_panel = BreakpointsPanel(self.hub, self)
        self._anchors: dict[str, QDockWidget] = {}
        self.wire_optional_docks()
        # beside Messages, Todos and Plan: the Events dock keeps its whole height (a laptop)
        right = Qt.DockWidgetArea.RightDockWidgetArea
        dock = self._add_dock("breakpoints", "Breakpoints", self.breakpoints_panel, right)
        self._place(dock, "right")
        for key in (
            "events",
            "timeline",
            "state",
            "messages",
        ):  # the tab to see first in each group
            if key in self.docks:
                self.docks[key].raise_()

    def wire_optional_docks(self) -> list[str]:
        """Create the registry's docks that are not wired yet (``studio.app.dock_registry``)."""
        added: list[str] = []
        for spec in docks.DOCKS:
            if spec.key in self.docks:
                continue
            widget = spec.load()(self.hub, self)  # type: ignore[call-arg]
            dock = self._add_dock(spec.key, spec.title, widget, spec.area)
            self._wire_dock(spec.key, widget)
            self._place(dock, spec.group)
            added.append(spec.key)
        if hasattr(self, "menus"):
            self.menus.refresh_docks()
        return added

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._sized:
            self._sized = True
            if not self.restore_state():
                QTimer.singleShot(0, self.apply_default_sizes)

    def _wire_dock(self, key: str, widget: QWidget) -> None:
        """Connect a dock's requests to the run controller (runs belong to it)."""
        resume = getattr(widget, "resumeRequested", None)
        if resume is not None:
            resume.connect(self.resume_from)
        edited = getattr(widget, "editApplied", None)
        if edited is not None:
            edited.connect(self.controller.state_edited)
        rerun = getattr(widget, "rerunRequested", None)
        timeline = getattr(widget, "timeline", None)
        if rerun is not None and timeline is not None:
            rerun.connect(lambda cid, t=timeline: self.rerun_from(cid, t))
        retry = getattr(widget, "retryRequested", None)
        if key == "plan" and retry is not None:
            retry.connect(self.retry_plan_steps)
        diff = getattr(widget, "diffRequested", None)
        if diff is not None:
            diff.connect(self.show_diff)
        run_events = getattr(widget, "runEventsRequested", None)
        if run_events is not None:
            run_events.connect(self.show_run_events)
        playground = getattr(widget, "playgroundRequested", None)
        if playground is not None:
            playground.connect(self.open_playground)
        filter_node = getattr(widget, "filter_node", None)
        if key == "events" and filter_node is not None:
            self.hub.subscribe("focus", filter_node)  # a click on a graph node filters the log

    def show_run_events(self, run_id: str, checkpoint_id: str) -> None:
        """The events of a run the open session left in the file, in a window of their own."""
        opened = getattr(self, "opened_session", None)
        if opened is None:
            return
        from studio.dialogs.run_events import RunEventsWindow

        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)  # up to 50,000 events: ~1 s
        try:
            window = RunEventsWindow(
                opened.path,
                run_id,
                checkpoint_id,
                prices=self.hub.prices,
                travel=self.hub.select_checkpoint,
                parent=self,
            )
        except Exception as exc:
            QApplication.restoreOverrideCursor()
            self.show_error("The run's events could not be read", one_line(exc))
            return
        QApplication.restoreOverrideCursor()
        kept = self.run_windows
        kept.append(window)
        window.finished.connect(lambda _result: kept.remove(window) if window in kept else None)
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # its events go with it
        window.show()

    def resume_from(self, checkpoint_id: str) -> None:
        try:
            self.controller.resume_from(checkpoint_id)
        except RuntimeError as exc:
            self.status.show_message(str(exc))

    def rerun_from(self, checkpoint_id: str, timeline: TimelineModel) -> None:
        """ "Re-run from here with replay": recorded model responses until the run diverges."""
        if self.controller.target is None and getattr(self, "opened_session", None) is not None:
            from studio.history.offline_rerun import rerun_recorded

            rerun_recorded(self, checkpoint_id, timeline)
            return
        try:
            self.controller.rerun_with_replay(checkpoint_id, timeline)
        except (RuntimeError, KeyError) as exc:
            self.status.show_message(str(exc).strip("'\""))

    def retry_plan_steps(self, chain: list[int]) -> None:
        """The Plan dock's retry: from the checkpoint shown there (a fork when it is a past one,
        selected on the Timeline), else from the latest state."""
        selected = self.hub.selected_checkpoint
        try:
            self.controller.retry_plan_steps(chain, selected)
        except RuntimeError as exc:
            self.status.show_message(str(exc))
            return
        where = "a fork of the selected checkpoint" if selected else "the latest state"
        self.status.show_message(f"Retrying plan steps {chain} from {where}")

    def show_diff(self, base_id: str, target_id: str) -> None:
        dock = self.docks.get("diff")
        if dock is None:
            return
        dock.widget().set_pair(base_id, target_id)  # type: ignore[attr-defined]
        dock.show()
        dock.raise_()

    def open_playground(self, event: EventBase) -> Any:
        """The what-if playground on a model call (a window of its own; never blocks)."""
        from studio.dialogs.playground import PlaygroundDialog

        try:
            dialog = PlaygroundDialog(
                self.hub,
                self.controller,
                event,
                settings_model=lambda: settings_model(self.settings),
                parent=self,
            )
        except ValueError as exc:
            self.status.show_message(str(exc))
            return None
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.playground = dialog
        dialog.show()
        return dialog

    def _on_event_selected(self, event: EventBase | None) -> None:
        """An event picked in any view: select the graph node it belongs to."""
        node = getattr(event, "node", None)  # the events that belong to a node declare it
        if isinstance(node, str) and node in self.graph_panel.state.graph.nodes:
            self.graph_panel.view.select_node(node)

    def _connect(self) -> None:
        a, ctl = self.actions_, self.controller
        a.run.triggered.connect(self.run_or_continue)
        a.pause.triggered.connect(ctl.pause)
        a.step_over.triggered.connect(lambda: self._step("step_over"))
        a.step_into.triggered.connect(lambda: self._step("step_into"))
        a.step_out.triggered.connect(lambda: self._step("step_out"))
        a.stop.triggered.connect(ctl.stop)
        a.restart.triggered.connect(self.restart)
        a.toggle_breakpoint.triggered.connect(self.toggle_breakpoint)
        self.graph_panel.runTo.connect(lambda _node: self.run_to_here())
        self.input_bar.send_button.clicked.connect(self.send_message)
        self.input_bar.new_thread_button.clicked.connect(self.new_thread)
        self.input_bar.thread_box.activated.connect(
            lambda _i: self.switch_thread(self.input_bar.thread_box.currentText())
        )
        for topic in ("shown_status", "graph", "thread"):
            self.hub.subscribe(topic, lambda *_a: self._refresh())
        self.hub.subscribe("status", self._on_status)
        self.hub.subscribe("theme", self._apply_theme)
        self.hub.subscribe("event", self._on_event_selected)
        ctl.on_problem.append(self._on_problem)
        ctl.model_source = lambda: settings_model(self.settings)
        ctl.on_idle.append(self._refresh)

    def _on_problem(self, exc: BaseException) -> None:
        if isinstance(exc, NeedsInput):  # not an error: the agent waits for its first message
            self._ask_for_input(str(exc))
        elif isinstance(exc, AgentLoadError):
            self.show_error("The agent could not be loaded", str(exc))
        else:
            self.show_error("Something went wrong", one_line(exc))

    def _install_interrupt_handler(self) -> None:
        try:
            from studio.run.interrupts import handle_interrupt, run_input
        except ImportError:
            return

        async def handler(interrupts: list[Any]) -> Any:
            answer = await handle_interrupt(self.hub, interrupts, self)
            return STAY if answer is None else run_input(answer)

        self.controller.interrupt_handler = handler

    # -- state shown ----------------------------------------------------------------------------

    def _refresh(self) -> None:
        ctl = self.controller
        target = ctl.target
        status = self.hub.shown_status
        self.actions_.update(
            status,
            ctl.debugger.paused,
            target is not None,
            ctl.busy,
            target.capabilities if target is not None else None,
        )
        label = self.hub.source_label
        self.setWindowTitle(f"{label} - Stepwise" if label else "Stepwise")
        self.input_bar.set_threads(ctl.threads, self.hub.thread_id)
        if status == "error" and ctl.last_error:
            self.status.show_message(ctl.last_error)
        elif status == "interrupted" and ctl.interrupt_handler is None:
            self.status.show_message("Interrupted: no dialog to answer it is installed")
        elif status == "idle" and ctl.target is not None and ctl.needs_input:
            self.status.show_message(FIRST_MESSAGE_HINT)
        elif status in ("running", "idle"):
            self.status.show_message("")

    def _on_status(self, status: str) -> None:
        if status == "running":  # a run starts: the last note goes at once, as it always did
            self.status.show_message("")

    def _apply_theme(self, name: str) -> None:
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, name)

    def show_message(self, text: str) -> None:
        """A passing note in the status bar."""
        self.status.show_message(text)

    @property
    def graph_view(self) -> GraphView:
        return self.graph_panel.view

    @property
    def breakpoints(self) -> BreakpointsModel:
        return self.breakpoints_panel.model

    def show_error(self, title: str, message: str, details: str | None = None) -> ErrorDialog:
        """Show a problem in a window-modal dialog (not blocking: returns at once)."""
        if self.error_dialog is not None:
            self.error_dialog.close()
        self.error_dialog = ErrorDialog(title, message, details, self)
        self.error_dialog.open()
        self.status.show_message(message)
        return self.error_dialog

    # -- loading -------------------------------------------------------------------------------

    def load_spec(
        self, spec: str, label: str | None = None, module: ModuleType | None = None
    ) -> bool:
        """Load ``file.py:attr``; a broken file opens the error dialog with the one-line reason.
        ``module``: the file, already imported by ``open_agent_file`` (not run twice)."""
        apply_model_env(self.settings)
        try:
            self.controller.load(spec, label, module)
        except AgentLoadError as exc:
            self.show_error("The agent could not be loaded", str(exc))
            return False
        except Exception as exc:  # recording, drawing: still one line
            self.show_error("The agent could not be loaded", f"{type(exc).__name__}: {exc}")
            return False
        self.settings.add_recent(spec)
        self.menus.refresh_recent()
        self.menus.refresh_faults()
        self.reloader.watch(spec)
        notices = getattr(self.controller.graph, "notices", list)()
        self.status.show_message(f"Loaded {label or spec}" + "".join(f"; {n}" for n in notices))
        return True

    def load_scenario(self, name: str) -> bool:
        found = next((s for s in self.scenarios if s.name == name), None)
        if found is None:
            self.show_error("No such scenario", f"There is no built-in scenario named {name!r}")
            return False
        return self.load_spec(found.spec, label=found.name)

    def open_agent_file(self, path: str) -> asyncio.Future[bool]:
        """Load a graph from a ``.py`` file or a LangGraph project, asking which when there
        are several (``studio.app.open_agent``)."""
        from studio.app.open_agent import open_agent_file

        return open_agent_file(self, path)

    def open_session(self, path: str) -> bool:
        """Show a recorded session (``studio.history.replay``): every view as it was live."""
        from studio.history.replay import open_session_into

        self.reloader.stop()
        self.controller.unload()
        try:
            self.opened_session = open_session_into(self.hub, path)
        except Exception as exc:
            self.show_error("The session could not be opened", one_line(exc))
            self._refresh()
            return False
        self.settings.add_recent(str(path))
        self.menus.refresh_recent()
        self._refresh()
        return True

    def new_thread(self) -> None:
        self.switch_thread(self.controller.new_thread())

    def switch_thread(self, thread_id: str) -> None:
        try:
            self.controller.switch_thread(thread_id)
        except RuntimeError as exc:
            self.status.show_message(str(exc))
        self._refresh()

    def closeEvent(self, event: QCloseEvent) -> None:
        live = self.live_otel
        if live is not None:  # send what the live export still holds
            live.close()
            self.live_otel = None
        self.controller.close()
        if self.save_settings:
            self.settings.layout = self.save_layout()
            self.settings.save()
        super().closeEvent(event)
