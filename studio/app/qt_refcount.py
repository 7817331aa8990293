"""Guard against PySide6 builds that drop references to ``None``/``True`` on Python < 3.12.

PySide6 6.12 (as installed here, on CPython 3.11) returns ``None`` from void calls
(``widget.setToolTip(...)``, ``model.beginInsertRows(...)``, ``QVariant()`` data) and ``True``
from ``signal.emit(...)`` without taking a reference: fine on 3.12+, where those objects are
immortal, but on 3.11 every such call decrements their reference count.  A live studio makes
thousands of these calls per second, and once a count reaches zero the interpreter aborts
("Fatal Python error: none_dealloc").

``protect()`` probes for the bug (a few void calls and emits on a throwaway QObject) and, only
when it is present, adds 2**40 references to ``None``, ``True`` and ``False``: what 3.12 makes
of them anyway.  Idempotent and cheap; ``studio.app.main`` calls it once at start-up (and the studio tests'
session fixture does the same).  ``pyproject.toml`` pins PySide6 below 6.12, so with a normal
install this is a no-op; it stays as a guard for anyone running an affected build.
"""

from __future__ import annotations

import ctypes
import sys

__all__ = ["affected", "protect"]

_EXTRA = 1 << 40
_state: dict[str, bool] = {}


def affected() -> bool:
    """Whether this PySide6 build loses references to ``None`` or ``True``."""
    if "affected" not in _state:
        from PySide6.QtCore import QObject, Signal

        class _Probe(QObject):
            ping = Signal()

        probe = _Probe()
        none0, true0 = sys.getrefcount(None), sys.getrefcount(True)
        for _ in range(16):
            probe.setObjectName("probe")
            probe.ping.emit()
        lost = sys.getrefcount(None) < none0 or sys.getrefcount(True) < true0
        _state["affected"] = lost and sys.version_info < (3, 12)
    return _state["affected"]


def protect() -> bool:
    """Make ``None``/``True``/``False`` effectively immortal if needed; True if it did."""
    if _state.get("protected") or not affected():
        return False
    for obj in (None, True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += _EXTRA
    _state["protected"] = True
    return True
