"""The debug actions (toolbar, Debug menu, keys as in IDE debuggers) and when they are enabled.

The keys are application shortcuts: they work wherever the focus is, and a modal dialog (an
approval, an error) blocks them while it is up.

F5 run/continue, F6 pause, F10 step over, F11 step into, Shift+F11 step out, Shift+F5 stop,
Ctrl+Shift+F5 restart, F9 toggle the breakpoint on the selected graph node.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence

from engine.targets import Capabilities, Capability
from studio.look.theme import icon
from studio.widgets.plain_text import plain_tip

__all__ = ["DebugActions"]

NEEDS: dict[str, Capability] = {
    "pause": Capability.PAUSE_IN_NODE,
    "step_into": Capability.STEP_INTO_CALLS,
}
"""Actions only some targets can do (a server stops only between nodes)."""

_SPECS: tuple[tuple[str, str, str, str, str], ...] = (
    # attribute, text, key, icon, tip
    ("run", "Run", "F5", "run", "Run the agent, or continue when paused"),
    ("pause", "Pause", "F6", "pause", "Pause at the next event"),
    ("step_over", "Step Over", "F10", "step_over", "Run to the next node"),
    ("step_into", "Step Into", "F11", "step_into", "Run to the next event of any kind"),
    ("step_out", "Step Out", "Shift+F11", "step_out", "Run to the end of the current span"),
    ("stop", "Stop", "Shift+F5", "stop", "Stop the run (the last checkpoint stays intact)"),
    (
        "restart",
        "Restart",
        "Ctrl+Shift+F5",
        "restart",
        "Load the agent afresh and run it from the start",
    ),
    (
        "toggle_breakpoint",
        "Toggle Breakpoint",
        "F9",
        "breakpoint",
        "Break before the selected graph node",
    ),
)


class DebugActions(QObject):
    """Owns the QActions; ``update(status, paused, loaded)`` sets what is enabled."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.run: QAction
        self.pause: QAction
        self.step_over: QAction
        self.step_into: QAction
        self.step_out: QAction
        self.stop: QAction
        self.restart: QAction
        self.toggle_breakpoint: QAction
        self._tips: dict[str, str] = {}
        for attr, text, key, icon_name, tip in _SPECS:
            action = QAction(icon(icon_name), text, parent)
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
            self._tips[attr] = f"{text} ({key}): {tip}"
            action.setToolTip(plain_tip(self._tips[attr]))
            action.setStatusTip(tip)
            setattr(self, attr, action)

    @property
    def toolbar_actions(self) -> list[QAction]:
        return [
            self.run,
            self.pause,
            self.step_over,
            self.step_into,
            self.step_out,
            self.stop,
            self.restart,
        ]

    @property
    def all(self) -> list[QAction]:
        return [*self.toolbar_actions, self.toggle_breakpoint]

    def update(
        self,
        status: str,
        paused: bool,
        loaded: bool,
        busy: bool,
        capabilities: Capabilities | None = None,
    ) -> None:
        """Enable what makes sense now; what the target cannot do (``capabilities``) stays
        disabled, its tooltip saying why."""
        running = busy and not paused
        self.run.setText("Continue" if paused or status == "interrupted" else "Run")
        self.run.setEnabled(loaded and not running)
        self.pause.setEnabled(running and status == "running")
        self.step_over.setEnabled(loaded and not running)
        self.step_into.setEnabled(loaded and not running)
        self.step_out.setEnabled(paused)
        self.stop.setEnabled(busy)
        self.restart.setEnabled(loaded)
        self.toggle_breakpoint.setEnabled(loaded)
        for attr, cap in NEEDS.items():
            action: QAction = getattr(self, attr)
            why = capabilities.why_not(cap) if capabilities is not None else None
            if why:
                action.setEnabled(False)
            action.setToolTip(
                plain_tip(f"{self._tips[attr]} (not here: {why})" if why else self._tips[attr])
            )
