"""Every dock shows the same thing however the events come: a recorded session fed one event
per batch (as a re-run with recorded replies or a slow model delivers them) shows what it shows
fed in pages, and what the docks showed live.  The real main window, every dock floating so
each one is visible and follows the events as they come (a hidden dock catches up when shown,
another path)."""

from __future__ import annotations

import asyncio
import difflib
from pathlib import Path
from typing import Any

import pytest

from studio.app.scenarios import find_scenario
from tests.studio.app_agents import make_window, run_until
from tests.studio.dock_digest import dock_digest

pytestmark = pytest.mark.timeout(240)

Digest = dict[str, list[str]]


def _settled(qloop: asyncio.AbstractEventLoop, window: Any, **kw: Any) -> Digest:
    """The docks' digest once no dock has a read pending and two looks, a few loop turns
    apart, agree."""
    seen: list[Digest] = []

    def same_twice() -> bool:
        if any(getattr(d.widget(), "settling", False) for d in window.docks.values()):
            return False  # a dock's read is due or on its way (the Store's, off the UI thread)
        seen.append(dock_digest(window, **kw))
        return len(seen) > 1 and seen[-1] == seen[-2]

    run_until(qloop, same_twice, timeout=60)
    return seen[-1]


def _differences(a: Digest, b: Digest) -> str:
    out = []
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            diff = difflib.unified_diff(a.get(key, []), b.get(key, []), lineterm="", n=1)
            out += [f"== {key}", *list(diff)[2:40]]
    return "\n".join(out)


def _run_scenario(qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path, name: str) -> Any:
    from studio.run.interrupts import dialog_opened

    window = make_window(qtbot, tmp_path)
    for dock in window.docks.values():
        dock.setFloating(True)
        dock.show()
    scenario = find_scenario(name)
    assert scenario is not None and window.load_spec(scenario.spec, name)
    disconnect = dialog_opened.connect(lambda dialog: dialog.reject())  # "Answer later"
    try:
        window.actions_.run.trigger()
        run_until(
            qloop,
            lambda: (
                window.hub.status in ("done", "interrupted", "error") and not window.controller.busy
            ),
            timeout=60,
        )
    finally:
        disconnect()
    assert window.hub.status in ("done", "interrupted"), window.controller.last_error
    return window


def _open(qloop: asyncio.AbstractEventLoop, window: Any, path: Path, **paging: int) -> None:
    """Open the session as File > Open Session does, fed in ``paging``'s pages."""
    from studio.history.replay import open_session_into

    window.reloader.stop()
    window.controller.unload()
    window.opened_session = opened = open_session_into(window.hub, path, **paging)
    run_until(qloop, lambda: opened.complete, timeout=60)


@pytest.mark.parametrize("name", ["retry_todos", "approval", "plan_retry", "parallel_tools"])
def test_every_dock_shows_the_same_fed_one_event_at_a_time(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path, name: str
) -> None:
    window = _run_scenario(qtbot, qloop, tmp_path, name)
    live = _settled(qloop, window, enabled=False)  # a replay's edit buttons are off
    path = Path(window.hub.session_path)
    events = len(window.hub.events)

    _open(qloop, window, path)
    assert len(window.hub.events) == events
    paged = _settled(qloop, window)
    _open(qloop, window, path, first_page=1, page_size=1)
    one_by_one = _settled(qloop, window)
    assert one_by_one == paged, _differences(paged, one_by_one)

    replayed = _settled(qloop, window, enabled=False)
    # the Store dock reads the live store in a run, the session's recorded accesses offline
    live.pop("store"), replayed.pop("store")
    assert replayed == live, _differences(live, replayed)


def test_an_old_session_with_a_subgraph_interrupt_told_twice_too(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """Sessions recorded before a subgraph's interrupt was told once: the docks dedupe it the
    same way in pages and one event at a time."""
    pytest.importorskip("langgraph.graph")
    from engine.recording import SessionRecorder
    from tests.e2e.test_subgraph_interrupt_window import _told_twice

    path = tmp_path / "old.stepwise"
    rec = SessionRecorder(path)
    for ev in _told_twice(tmp_path):  # runs the app on a loop of its own
        rec.record(ev)
    asyncio.set_event_loop(qloop)
    rec.close()
    window = make_window(qtbot, tmp_path)
    for dock in window.docks.values():
        dock.setFloating(True)
        dock.show()
    _open(qloop, window, path)
    paged = _settled(qloop, window)
    _open(qloop, window, path, first_page=1, page_size=1)
    one_by_one = _settled(qloop, window)
    assert one_by_one == paged, _differences(paged, one_by_one)
    assert sum("interrupt" in line and "review" in line for line in paged["waterfall"]) == 1
