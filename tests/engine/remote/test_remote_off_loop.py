"""A remote target's thread listing, and history pages make their requests (and
decode the answers) on a worker thread, never on the caller's loop thread (the studio's UI)."""

from __future__ import annotations

import threading
from typing import Any

from engine.messages import HumanMessage
from engine.remote.client import RemoteClient
from tests.engine.remote.helpers import another_client, new_thread, open_target, run_events


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


async def test_a_big_state_is_decoded_off_the_loop_thread_a_small_one_on_it(
    langgraph_server: Any, monkeypatch: Any
) -> None:
    import engine.remote.target as remote_target

    target = await open_target(langgraph_server, "counter")
    decoded: list[tuple[int, int]] = []  # (thread, items in the state's lists)
    original = remote_target.snapshot_from_server

    def spy(thread_id: str, data: dict[str, Any]) -> Any:
        decoded.append((threading.get_ident(), len(data["values"].get("steps") or [])))
        return original(thread_id, data)

    monkeypatch.setattr(remote_target, "snapshot_from_server", spy)
    try:
        here = threading.get_ident()
        client = another_client(langgraph_server)
        for ticks in (3, remote_target.DECODE_ON_WORKER):
            thread = str((await client.threads.create())["thread_id"])
            config = {"recursion_limit": ticks + 10}
            await client.runs.wait(thread, "counter", input={"ticks": ticks}, config=config)
            decoded.clear()
            snap = await target.state(thread)
            assert snap is not None and len(snap.values["steps"]) == ticks
            assert [n for _, n in decoded] == [ticks]
            assert (decoded[0][0] == here) == (ticks < remote_target.DECODE_ON_WORKER)
    finally:
        await target.aclose()
