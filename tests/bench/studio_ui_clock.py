"""Where the studio's UI thread spends its CPU time: painting, layout, the docks' model updates,
and the rest (the run itself: engine, debugger, recorder on the loop; the event loop).

``UiClock`` watches every Qt event the application delivers (an application event filter) and
charges the UI thread's CPU time (``time.thread_time``) from one delivery to the next to the
kind of the earlier one: a paint pass is a run of ``Paint`` deliveries, so its time lands in
"paint"; ``LayoutRequest``/``Resize``/``Move`` and the main window's dock animations land in
"layout".  The hub's deliveries to the docks (``Hub.publish``) are timed whole as "model
updates" (any Qt event sent inside one is not charged twice).  Whatever is left of the thread's
CPU time is "run and other".  It costs a Python call per Qt event, so it is measured in turns
of its own, after the timed ones.

It also counts paint passes: ``UpdateRequest`` deliveries to a top-level window (each is one
sync of that window's backing store: the widgets marked dirty since the last one are painted).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget

__all__ = ["UiClock"]

_E = QEvent.Type
_PAINT = frozenset({_E.Paint, _E.UpdateRequest, _E.UpdateLater})
_LAYOUT = frozenset(
    {
        _E.LayoutRequest,
        _E.Resize,
        _E.Move,
        # QMainWindow lays its docks out through zero-length geometry animations
        _E.ChildAdded,
        _E.ChildRemoved,
        _E.DeferredDelete,
        _E.DynamicPropertyChange,
    }
)
KINDS = ("paint", "layout", "model updates", "run and other")


def _is_window(obj: QObject) -> bool:
    return isinstance(obj, QWidget) and obj.isWindow()


class UiClock(QObject):
    def __init__(self, app: QObject, hub: Any) -> None:
        super().__init__()
        self.spent: defaultdict[str, float] = defaultdict(float)
        self.total = 0.0
        self._kind: str | None = None
        self._since = 0.0
        self._in_publish = 0
        self._on = False
        self._start = 0.0
        self.passes = 0
        """Paint passes (``UpdateRequest`` to a top-level window) while measuring."""
        app.installEventFilter(self)
        publish: Callable[..., None] = hub.publish

        def timed_publish(topic: str, *args: Any) -> None:
            if not self._on or self._in_publish:
                publish(topic, *args)
                return
            self._charge()
            self._in_publish += 1
            t0 = time.thread_time()
            try:
                publish(topic, *args)
            finally:
                self._in_publish -= 1
                now = time.thread_time()
                self.spent["model updates"] += now - t0
                self._kind, self._since = None, now

        hub.publish = timed_publish

    def _charge(self) -> float:
        now = time.thread_time()
        if self._kind is not None:
            self.spent[self._kind] += now - self._since
        return now

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if self._on and not self._in_publish:
            now = self._charge()
            kind = event.type()
            self._kind = "paint" if kind in _PAINT else "layout" if kind in _LAYOUT else None
            self._since = now
        if self._on and event.type() == _E.UpdateRequest and _is_window(watched):
            self.passes += 1
        return False

    @contextmanager
    def measuring(self) -> Iterator[None]:
        self._kind, self._on = None, True
        start = time.thread_time()
        try:
            yield
        finally:
            self._charge()
            self._on, self._kind = False, None
            self.total += time.thread_time() - start

    def breakdown(self, turns: int) -> dict[str, float]:
        """ms of UI-thread CPU per turn, by kind (``KINDS``) and in all (``"total"``); paint
        passes per turn (``"passes"``)."""
        known = sum(self.spent[k] for k in KINDS[:3])
        out = {k: self.spent[k] / turns * 1e3 for k in KINDS[:3]}
        out["run and other"] = max(0.0, self.total - known) / turns * 1e3
        out["total"] = self.total / turns * 1e3
        out["passes"] = self.passes / turns
        return out
