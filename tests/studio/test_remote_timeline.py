"""A long thread on a real ``langgraph dev`` server in the studio: the Timeline lists it page by
page, the newest first, each page requested and decoded on a worker thread; picking a
checkpoint shows it in the docks with no blocking read on the UI thread."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from engine.remote.client import RemoteClient
from tests.fixtures.langgraph_server import FULL_KEY
from tests.studio.app_agents import make_window, run_until

pytestmark = pytest.mark.timeout(180)

TICKS = 23
"""The ``long`` graph saves ``TICKS + 2`` checkpoints: 25, in pages of 10."""


async def _long_thread(url: str) -> str:
    from langgraph_sdk import get_client

    client = get_client(url=url, api_key=FULL_KEY)
    thread = str((await client.threads.create())["thread_id"])
    await client.runs.wait(thread, "long", input={"ticks": TICKS})
    return thread


def test_a_long_thread_lists_page_by_page_and_picks_read_off_the_ui_thread(
    qtbot: Any,
    qloop: Any,
    tmp_path: Path,
    langgraph_server: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from engine.remote import connect
    from studio.run.remote_open import open_remote

    monkeypatch.setenv("LANGGRAPH_API_KEY", FULL_KEY)
    monkeypatch.setattr("engine.remote.target.HISTORY_PAGE", 10)
    history_threads: list[str] = []
    history = RemoteClient.history

    async def recorded(self: RemoteClient, *args: Any, **kw: Any) -> Any:
        history_threads.append(threading.current_thread().name)
        return await history(self, *args, **kw)

    monkeypatch.setattr(RemoteClient, "history", recorded)
    thread = qloop.run_until_complete(_long_thread(langgraph_server.url))
    window = make_window(qtbot, tmp_path)
    target = qloop.run_until_complete(connect(langgraph_server.url, "long"))
    qloop.run_until_complete(open_remote(window, target))
    hub = window.hub

    def no_blocking_read(*_args: Any) -> Any:
        raise AssertionError("a dock read a checkpoint blocking the UI thread")

    monkeypatch.setattr(hub, "snapshot", no_blocking_read)
    timeline = window.docks["timeline"].widget()
    shown: list[int] = []
    timeline.item_model.modelReset.connect(lambda: shown.append(len(timeline.timeline)))
    history_threads.clear()

    async def switch() -> None:
        window.controller.switch_thread(thread)

    qloop.run_until_complete(switch())
    run_until(qloop, lambda: len(timeline.timeline) == TICKS + 2, timeout=60)
    # the newest page first, then more with each page: never all at once at the end
    assert [n for n in shown if n] == [10, 20, 25]
    assert history_threads and threading.main_thread().name not in history_threads
    assert timeline.summary_label.text().startswith("25 checkpoints · 1 branch")
    # the oldest checkpoint, picked on the loop (a click): every dock shows it when read
    oldest = timeline.timeline.main.nodes[0]
    state = window.docks["state"].widget()

    async def pick() -> None:
        hub.select_checkpoint(oldest.checkpoint_id)

    qloop.run_until_complete(pick())
    run_until(qloop, lambda: hub.snapshots.idle and state.checkpoint_id == oldest.checkpoint_id)
    assert state.title.text().startswith("Step -1")
    assert window.docks["diff"].widget().target_id == oldest.checkpoint_id
