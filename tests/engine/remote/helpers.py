"""Helpers of the remote-mode tests (the server comes from ``tests.fixtures.langgraph_server``)."""

from __future__ import annotations

import uuid
from typing import Any

from engine.debug import Debugger
from engine.events import EventBase
from engine.remote import connect
from engine.remote.credentials import Credentials
from engine.remote.target import RemoteTarget
from engine.targets import RunDriver, RunOutcome, RunRequest
from tests.fixtures.langgraph_server import FULL_KEY, LangGraphDevServer

__all__ = ["another_client", "creds", "drive", "kinds", "new_thread", "open_target", "run_events"]


def creds(key: str | None = FULL_KEY, **env: str) -> Credentials:
    """Credentials reading a private environment (never the test process's)."""
    values = dict(env)
    if key is not None:
        values["LANGGRAPH_API_KEY"] = key
    return Credentials(env=values)


async def open_target(
    server: LangGraphDevServer, assistant: str = "probe", key: str | None = FULL_KEY
) -> RemoteTarget:
    return await connect(server.url, assistant, credentials=creds(key))


def new_thread() -> str:
    return str(uuid.uuid4())


def another_client(server: LangGraphDevServer) -> Any:
    """A plain SDK client: the "other client" that starts or cancels runs."""
    from langgraph_sdk import get_client

    return get_client(url=server.url, api_key=FULL_KEY)


async def run_events(
    target: RemoteTarget, inp: Any, thread: str, dbg: Debugger | None = None, **kw: Any
) -> tuple[list[EventBase], RunOutcome]:
    """One run (no interrupt answered): its events and outcome."""
    events: list[EventBase] = []
    outcome = await RunDriver(target, dbg or Debugger()).run_once(
        RunRequest(inp, thread, **kw), events.append
    )
    return events, outcome


async def drive(
    target: RemoteTarget, inp: Any, thread: str, dbg: Debugger, on_event: Any, answer: Any = None
) -> RunOutcome:
    return await RunDriver(target, dbg).drive(RunRequest(inp, thread), on_event, answer)


def kinds(events: list[EventBase], kind: str, **match: Any) -> list[EventBase]:
    return [
        e for e in events
        if e.kind == kind and all(e.__dict__.get(k) == v for k, v in match.items())
    ]  # fmt: skip
