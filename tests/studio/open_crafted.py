"""Open a crafted session (``crafted_text``) in the real studio window, in a child process with
an address-space limit: a label that renders the crafted text as HTML reads /dev/zero as an
image, and the limit turns that into a quick crash instead of a machine out of memory.

    python -m tests.studio.open_crafted session FILE.stepwise LIMIT_BYTES
    python -m tests.studio.open_crafted live tests/studio/crafted_text.py:agent LIMIT_BYTES

``live`` runs the crafted graph in the window first.  Then: selects every checkpoint, raises every dock, shows every tooltip the window and its views
carry, paints the whole window, and prints one ``PROBLEM`` line per problem, then ``checked N``.
"""

from __future__ import annotations

import asyncio
import html
import os
import resource
import sys
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _problems(window: Any, crafted: tuple[str, ...]) -> tuple[list[str], int]:
    from PySide6.QtCore import QModelIndex, QPoint, Qt
    from PySide6.QtGui import Qt as QtGui
    from PySide6.QtWidgets import QAbstractItemView, QGraphicsView, QLabel, QToolTip, QWidget

    problems: list[str] = []
    checked = 0

    escaped = tuple(html.escape(c, quote=False) for c in crafted)

    def check_tip(where: str, tip: Any) -> None:
        nonlocal checked
        if not isinstance(tip, str) or not any(c in tip for c in (*crafted, *escaped)):
            return
        checked += 1
        if os.environ.get("CRAFTED_VERBOSE"):
            print(f"tip {where}: {tip[:60]!r}", flush=True)
        if QtGui.mightBeRichText(tip) and any(c in tip for c in crafted):
            problems.append(f"{where}: tooltip shown as rich text: {tip[:80]!r}")
        else:
            QToolTip.showText(QPoint(10, 10), tip)  # lays the tip out, as hovering would
            QToolTip.hideText()

    for label in window.findChildren(QLabel):
        text = label.text()
        if any(c in text for c in crafted):
            checked += 1
            if os.environ.get("CRAFTED_VERBOSE"):
                print(f"label {type(label).__name__}: {text[:60]!r}", flush=True)
            fmt = label.textFormat()
            if fmt != Qt.TextFormat.PlainText and (
                fmt == Qt.TextFormat.RichText or QtGui.mightBeRichText(text)
            ):
                problems.append(f"{label.objectName() or type(label).__name__}: {text[:80]!r}")
        check_tip(f"label {label.objectName()}", label.toolTip())
    for widget in window.findChildren(QWidget):
        check_tip(type(widget).__name__, widget.toolTip())
    for view in window.findChildren(QAbstractItemView):
        model = view.model()
        if model is None:
            continue
        stack = [QModelIndex()]
        while stack:
            parent = stack.pop()
            while model.canFetchMore(parent):
                model.fetchMore(parent)
            if os.environ.get("CRAFTED_VERBOSE"):
                print(f"model {type(model).__name__} rows {model.rowCount(parent)}", flush=True)
            try:
                columns = model.columnCount(parent)
            except TypeError:  # a list model
                columns = 1
            for r in range(min(model.rowCount(parent), 500)):
                for c in range(columns):
                    index = model.index(r, c, parent)
                    check_tip(type(model).__name__, model.data(index, Qt.ItemDataRole.ToolTipRole))
                stack.append(model.index(r, 0, parent))
    for gv in window.findChildren(QGraphicsView):
        scene = gv.scene()
        for item in scene.items() if scene is not None else ():
            check_tip(type(item).__name__, item.toolTip())
    return problems, checked


async def _drive(window: Any, crafted: tuple[str, ...], live: bool) -> None:
    hub = window.hub
    if live:
        window.actions_.run.trigger()
        while not (hub.status == "done" and window.actions_.run.isEnabled()):
            await asyncio.sleep(0.01)
        window.grab()
    records = await hub.target.checkpoints(hub.thread_id)
    checkpoints = [None, *(r.checkpoint_id for r in records)]
    problems: list[str] = []
    checked = 0
    for cid in checkpoints:
        hub.select_checkpoint(cid)
        while not hub.snapshots.idle:  # the docks read the checkpoint in tasks on the loop
            await asyncio.sleep(0.005)
        await asyncio.sleep(0.01)  # the loop handles Qt's events meanwhile (never a nested
        # processEvents inside a task: it would step other tasks inside this one)
        for dock in window.docks.values():
            dock.show()
            dock.raise_()
            await asyncio.sleep(0)
            window.grab()  # lays out and paints whatever the dock shows now
        found, n = _problems(window, crafted)
        problems += found
        checked += n
    for line in dict.fromkeys(problems):
        print(f"PROBLEM {line}", flush=True)
    print(f"checked {checked}", flush=True)
    window.close()


def main() -> int:
    mode, target, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import qasync
    from PySide6.QtWidgets import QApplication

    from studio.app.entry import _run, parse_args
    from tests.studio.crafted_text import CRAFTED

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)

    async def driver(window: Any) -> None:
        try:
            await _drive(window, CRAFTED, live=mode == "live")
        except BaseException as exc:
            print(f"driver failed: {type(exc).__name__}: {exc}", flush=True)
            raise
        finally:
            app.quit()  # also when a tooltip window is still around

    command = "open" if mode == "live" else "session"
    return qasync.run(_run(parse_args([command, target]), driver))


if __name__ == "__main__":
    sys.exit(main())
