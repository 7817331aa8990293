"""``FramePacer``: while a run streams, the window is painted at most once per frame.

Every batch of events, every change of status and every dock's own follow-up (a zero-timer
scroll, a deferred scroll-bar range) asks Qt to repaint; Qt paints at the next pass of its event
loop, so a run that hands the loop back often is painted several times in a few milliseconds,
each pass repainting the same viewports.  While pacing is on, the window's repaint request
(``QEvent.UpdateRequest``) is held when the last paint pass is less than ``interval_ms`` old and
sent again when the frame is due: everything asked for in between is painted in one pass, none
of it is lost (Qt keeps the dirty regions until the pass), and the window shows what changed at
most ``interval_ms`` late.

Pacing is turned off when the run stops streaming (done, paused, interrupted): a request held
then is sent at once, so the run's last batch is on screen without waiting for a frame.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QWidget

__all__ = ["FRAME_MS", "FramePacer"]

FRAME_MS = 33
"""One frame at 30 frames a second."""

_UPDATE_REQUEST = QEvent.Type.UpdateRequest


class FramePacer(QObject):
    """Paints ``window`` at most once per ``interval_ms`` while ``pacing`` (module doc)."""

    def __init__(self, window: QWidget, interval_ms: int = FRAME_MS) -> None:
        super().__init__(window)
        self._window = window
        self.interval = interval_ms / 1000
        self.pacing = False
        self.held = 0
        """Repaint requests held back since the window was created (for tests)."""
        self._waiting = False
        self._last = float("-inf")
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._send)
        window.installEventFilter(self)

    def set_pacing(self, on: bool) -> None:
        """Pace the window's paint passes (a run streams) or not (a request held is sent now)."""
        self.pacing = on
        if not on:
            self._send()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is not self._window or event.type() != _UPDATE_REQUEST:
            return False
        now = time.monotonic()
        if self.pacing:
            wait = self._last + self.interval - now
            if wait > 0.001:
                self.held += 1
                self._waiting = True
                if not self._timer.isActive():
                    self._timer.start(max(1, round(wait * 1000)))
                return True
        self._waiting = False
        self._timer.stop()
        self._last = now
        return False

    def _send(self) -> None:
        self._timer.stop()
        if self._waiting:
            self._waiting = False
            QCoreApplication.postEvent(
                self._window, QEvent(_UPDATE_REQUEST), Qt.EventPriority.LowEventPriority.value
            )
