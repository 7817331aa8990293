"""Opening a LangGraph server's assistant in the window (``stepwise open --server`` and
*File > Connect to Server...*): the run controller debugs it from then on, the status bar
says what the connection should be known for, and a thread picked opens at once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["connect_and_open", "open_remote"]


async def open_remote(window: Any, target: Any, thread: str | None = None) -> None:
    """Debug ``target`` (a ``RemoteTarget``) in ``window``; open ``thread`` when given."""
    from studio.run.saved_threads import open_in_window

    ctl = window.controller
    label = f"{target.assistant.label} on {target.client.display_url}"
    ctl.load_target(target, label)
    target.notice_handlers.append(window.show_message)
    window.show_message(f"Connected: {label}")
    if thread:
        await open_in_window(window, thread)


async def connect_and_open(
    window: Any,
    url: str,
    assistant: str | None = None,
    thread: str | None = None,
    headers: Sequence[str] = (),
) -> bool:
    """Connect to the server and open the assistant; a failure opens the error dialog (one
    line, no credential)."""
    from engine.remote import connect
    from engine.targets import TargetError

    try:
        target = await connect(url, assistant, headers=headers)
    except TargetError as exc:
        window.show_error("Could not connect to the server", str(exc))
        return False
    await open_remote(window, target, thread)
    return True
