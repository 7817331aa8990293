"""The PySide6 reference-count guard: a long-lived process survives many void calls and emits."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import os, sys
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QObject, Signal
    from studio.app import qt_refcount

    class Pinger(QObject):
        ping = Signal()

    qt_refcount.protect()
    assert qt_refcount.protect() is False  # idempotent
    p = Pinger()
    for _ in range(300_000):  # far more than None's or True's own reference count
        p.setObjectName("x")
        p.ping.emit()
    print("alive", qt_refcount.affected())
    """
)


def test_many_void_calls_and_emits_do_not_kill_the_interpreter() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("alive")
