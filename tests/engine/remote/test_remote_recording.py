"""A remote run recorded into a session file replays offline; credentials stay out of it."""

from __future__ import annotations

import io
from typing import Any

import pytest

from engine.cli import command as cli
from engine.debug import Debugger
from engine.events import EventBase, event_to_json
from engine.messages import HumanMessage
from engine.recording import Session, SessionRecorder
from engine.remote import connect
from engine.remote.credentials import Credentials, parse_header_spec
from engine.targets import TargetError
from engine.types import Command
from tests.engine.remote.helpers import drive, new_thread, open_target
from tests.fixtures.langgraph_server import FULL_KEY

pytestmark = pytest.mark.timeout(120)
SECRET_HEADER = "tenant-secret-value-9a8b7c"
URL_PASSWORD = "url-password-5e6f7a"


async def test_a_recorded_remote_run_replays_offline(langgraph_server, tmp_path) -> None:
    url = langgraph_server.url.replace("http://", f"http://someone:{URL_PASSWORD}@")
    credentials = Credentials(
        headers=(parse_header_spec("X-Tenant=TENANT_TOKEN"),),
        env={"LANGGRAPH_API_KEY": FULL_KEY, "TENANT_TOKEN": SECRET_HEADER},
    )
    target = await connect(url, "probe", credentials=credentials)
    path = tmp_path / "remote.stepwise"
    recorder = SessionRecorder(path)
    recorder.attach(target)
    thread = new_thread()
    live: list[EventBase] = []

    async def answer(interrupts: list[Any]) -> Any:
        return Command(resume="approved")

    dbg = Debugger()
    dbg.break_before("think")
    dbg.on_pause.append(lambda d: d.continue_())
    try:
        outcome = await drive(
            target, {"messages": [HumanMessage(content="hi")]}, thread, dbg, live.append, answer
        )
    finally:
        await target.aclose()
        recorder.close()
    assert outcome.status == "done"
    with Session.open(path) as session:
        runs = session.runs()
        assert [r.status for r in runs] == ["interrupted", "done"]
        recorded = [ev for r in runs for ev in session.events(r.run_id, limit=None)]
        assert [(e.run_id, e.seq, e.kind) for e in recorded] == [
            (e.run_id, e.seq, e.kind) for e in live
        ]  # everything once, in order
        checkpoints = session.checkpoints(thread)
        assert len(checkpoints) >= 5
        last = session.state(thread)
        assert last["approved"] == "approved"
        assert last["messages"][0].text == "hi"
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["replay", str(path)], stdout=out, stderr=err) == 0
    text = out.getvalue()
    assert "think" in text and "interrupt" in text and "2 run(s)" in text
    # no credential anywhere: events, session file, replay output
    blob = path.read_bytes()
    for secret in (FULL_KEY, SECRET_HEADER, URL_PASSWORD):
        assert secret.encode() not in blob
        assert secret not in text
        assert all(secret not in event_to_json(e) for e in live)
    assert "someone" not in live[0].__dict__["config"]["server"]


async def test_header_specs_name_variables_not_values(langgraph_server) -> None:
    with pytest.raises(TargetError, match="not set"):
        Credentials(
            headers=(parse_header_spec("X-Tenant=NOT_SET_ANYWHERE"),), env={}
        ).header_values()
    with pytest.raises(TargetError, match="NAME=ENV_VAR"):
        parse_header_spec("X-Tenant")
    with pytest.raises(TargetError, match="name of an environment variable"):
        parse_header_spec("Authorization=Bearer abc-secret")
    creds = Credentials(
        headers=(parse_header_spec("X-Tenant=TENANT_TOKEN"),),
        env={"LANGGRAPH_API_KEY": FULL_KEY, "TENANT_TOKEN": SECRET_HEADER},
    )
    shown = repr(creds)
    assert "LANGGRAPH_API_KEY" in shown and "TENANT_TOKEN" in shown
    assert FULL_KEY not in shown and SECRET_HEADER not in shown
    target = await open_target(langgraph_server)
    try:
        assert FULL_KEY not in repr(target) and FULL_KEY not in repr(target.client)
    finally:
        await target.aclose()
