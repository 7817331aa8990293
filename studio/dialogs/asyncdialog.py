"""Await a dialog under qasync: ``open()`` it (window-modal) and await its ``finished`` code.

No nested ``exec()`` loop: the engine's tasks and the rest of the window keep running while a
dialog is up, and tests can ``click()`` a button then check the awaited result.
"""

from __future__ import annotations

import asyncio

from PySide6.QtWidgets import QDialog

__all__ = ["show_dialog"]


def show_dialog(dialog: QDialog) -> asyncio.Future[int]:
    """Open ``dialog`` and return a future of its result code (``QDialog.DialogCode``)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = asyncio.get_event_loop()
    future: asyncio.Future[int] = loop.create_future()

    def done(code: int) -> None:
        if not future.done():
            future.set_result(int(code))

    dialog.finished.connect(done)
    future.add_done_callback(lambda f: dialog.close() if f.cancelled() else None)
    dialog.open()
    return future
