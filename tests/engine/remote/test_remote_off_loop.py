"""A remote target's thread listing, and history pages make their requests (and
decode the answers) on a worker thread, never on the caller's loop thread (the studio's UI)."""

from __future__ import annotations

import threading
from typing import Any

from engine.messages import HumanMessage
from engine.remote.client import RemoteClient
from tests.engine.remote.helpers import new_thread, open_target, run_events


async def test_listing_and_history_requests_run_off_the_loop_thread(
    langgraph_server: Any, monkeypatch: Any
) -> None:
    target = await open_target(langgraph_server)
    seen: dict[str, set[int]] = {"search_threads": set(), "history": set()}
    for name in seen:
        original = getattr(RemoteClient, name)

        async def spy(self: RemoteClient, *a: Any, _o: Any = original, _n: str = name, **k: Any):
            seen[_n].add(threading.get_ident())
            return await _o(self, *a, **k)

        monkeypatch.setattr(RemoteClient, name, spy)
    try:
        thread = new_thread()
        await run_events(target, {"messages": [HumanMessage("hi")]}, thread)
        listed = await target.threads()
        records = await target.checkpoints(thread)
        assert listed and records  # the requests were made, and answered
        here = threading.get_ident()
        assert seen["search_threads"] and here not in seen["search_threads"]
        assert seen["history"] and here not in seen["history"]
    finally:
        await target.aclose()
