"""Bad input and faults of remote mode: one clear line each, nothing recorded twice."""

from __future__ import annotations

import asyncio
import socket

import pytest

from engine.debug import Debugger
from engine.events import EventBase
from engine.remote import connect
from engine.remote.client import RemoteError
from engine.targets import TargetError
from tests.engine.remote.helpers import (
    another_client,
    creds,
    drive,
    kinds,
    new_thread,
    open_target,
    run_events,
)
from tests.fixtures.langgraph_server import READONLY_KEY, LangGraphDevServer

pytestmark = pytest.mark.timeout(120)


def _one_line(text: str) -> None:
    assert text and "\n" not in text and "Traceback" not in text


async def test_an_unreachable_server_says_so(langgraph_server) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(RemoteError) as err:
        await connect(f"http://127.0.0.1:{port}", "probe", credentials=creds())
    assert err.value.kind == "unreachable"
    assert str(err.value).startswith(
        f"cannot reach the LangGraph server at http://127.0.0.1:{port}"
    )
    _one_line(str(err.value))


async def test_a_refused_key_and_a_missing_key(langgraph_server) -> None:
    with pytest.raises(RemoteError) as err:
        await open_target(langgraph_server, key="wrong-key-0123456789")
    assert err.value.kind == "auth" and "(401)" in str(err.value)
    assert "LANGGRAPH_API_KEY" in str(err.value) and "wrong-key-0123456789" not in str(err.value)
    _one_line(str(err.value))
    with pytest.raises(RemoteError) as err:
        await open_target(langgraph_server, key=None)
    assert "no API key was sent" in str(err.value)


async def test_a_read_only_key_cannot_run(langgraph_server) -> None:
    target = await open_target(langgraph_server, key=READONLY_KEY)
    try:
        _, outcome = await run_events(target, {}, new_thread())
    finally:
        await target.aclose()
    assert outcome.status == "error"
    assert outcome.error is not None and "(403)" in outcome.error
    _one_line(outcome.error)


async def test_an_unknown_assistant_lists_the_known_ones(langgraph_server) -> None:
    with pytest.raises(TargetError) as err:
        await open_target(langgraph_server, "nope")
    assert "no assistant 'nope'" in str(err.value) and "probe" in str(err.value)
    _one_line(str(err.value))


async def test_a_refused_stream_mode_falls_back_and_says_so(langgraph_server) -> None:
    target = await open_target(langgraph_server, "slow")
    target.stream_modes = ("debug", "custom", "tools")  # the server answers 422 to "tools"
    notes: list[str] = []
    target.notice_handlers.append(notes.append)
    try:
        events, outcome = await run_events(target, {"ticks": 2}, new_thread())
    finally:
        await target.aclose()
    assert outcome.status == "done"
    assert len(notes) == 1 and "(422)" in notes[0]
    assert [e.__dict__["node"] for e in kinds(events, "node.started")] == ["plan", "tick"]
    assert len(kinds(events, "run.started")) == 1


async def test_a_busy_thread_is_one_line(langgraph_server) -> None:
    target = await open_target(langgraph_server, "slow")
    client = another_client(langgraph_server)
    thread = (await client.threads.create())["thread_id"]
    run = await client.runs.create(thread, "slow", input={"ticks": 3000})
    try:
        _, outcome = await run_events(target, {"ticks": 1}, thread)
    finally:
        await client.runs.cancel(thread, run["run_id"])
        await target.aclose()
    assert outcome.status == "error"
    assert outcome.error is not None and f"thread {thread} is busy" in outcome.error
    _one_line(outcome.error)


async def test_a_run_cancelled_by_another_client(langgraph_server) -> None:
    target = await open_target(langgraph_server, "slow")
    client = another_client(langgraph_server)
    thread = new_thread()
    notes: list[str] = []
    target.notice_handlers.append(notes.append)
    cancelled: list[asyncio.Task[None]] = []

    def on_event(ev: EventBase) -> None:
        if ev.kind == "custom" and ev.__dict__["data"].get("tick") == 1 and not cancelled:

            async def cancel() -> None:
                runs = await client.runs.list(thread, status="running")
                await client.runs.cancel(thread, runs[0]["run_id"])

            cancelled.append(asyncio.ensure_future(cancel()))

    try:
        outcome = await drive(target, {}, thread, Debugger(), on_event)
    finally:
        await target.aclose()
    assert outcome.status == "cancelled"
    assert any("cancelled on the server by another client" in n for n in notes)


@pytest.mark.slow
async def test_a_server_restarted_mid_run_says_what_was_lost() -> None:
    from tests.fixtures.langgraph_server import missing_server_packages

    if missing_server_packages():
        pytest.skip(missing_server_packages())
    server = LangGraphDevServer()
    server.start()
    try:
        target = await open_target(server, "slow")
        events: list[EventBase] = []
        restarted: list[asyncio.Future[None]] = []

        def on_event(ev: EventBase) -> None:
            events.append(ev)
            if ev.kind == "custom" and ev.__dict__["data"].get("tick") == 2 and not restarted:
                server.kill()
                restarted.append(asyncio.ensure_future(asyncio.to_thread(server.start)))

        try:
            outcome = await drive(target, {}, new_thread(), Debugger(), on_event)
        finally:
            await target.aclose()
        await restarted[0]
    finally:
        server.close()
    assert outcome.status == "error"
    assert outcome.error is not None and "restarted" in outcome.error
    _one_line(outcome.error)
    ticks = [e.__dict__["data"]["tick"] for e in kinds(events, "custom", node="tick")]
    assert ticks[:3] == [0, 1, 2] and ticks == sorted(set(ticks))  # nothing twice
    assert events[-1].kind == "run.finished"


async def test_a_model_that_cannot_stream_says_why_and_the_next_run_goes(langgraph_server) -> None:
    target = await open_target(langgraph_server, "unstreamed")
    notes: list[str] = []
    target.notice_handlers.append(notes.append)
    try:
        _, failed = await run_events(target, {"messages": []}, new_thread())
        events, outcome = await run_events(target, {"messages": []}, new_thread())
    finally:
        await target.aclose()
    assert failed.status == "error" and failed.error is not None
    assert "No generations found in stream" in failed.error and "fake chat models" in failed.error
    _one_line(failed.error)
    assert len(notes) == 1 and "do not ask for model events" in notes[0]
    assert outcome.status == "done"  # the server's model is no longer streamed
    assert [e.__dict__["node"] for e in kinds(events, "node.finished")] == ["model"]
