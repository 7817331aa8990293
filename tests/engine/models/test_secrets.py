"""Header tokens and URL credentials never reach errors, events or session files."""

from __future__ import annotations

import base64
import traceback
from pathlib import Path

import pytest

from engine.agents import create_agent
from engine.events import ErrorInfo
from engine.messages import HumanMessage
from engine.models import ChatModelError, OpenAIChatModel
from engine.recording import SessionRecorder
from tests.engine.models.conftest import FAKE_KEY
from tests.fixtures.openai_server import FakeOpenAIServer, Reply

HEADER_TOKEN = "hdr-tok-7f3a9c2e"
EXTRA_TOKEN = "xtra-tok-55b1d0"
USER, PASSWORD = "alice", "pw-9d8e7f6a"


def _secrets() -> list[str]:
    basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    return [FAKE_KEY, HEADER_TOKEN, EXTRA_TOKEN, PASSWORD, basic]


def _model(server: FakeOpenAIServer) -> OpenAIChatModel:
    url = server.base_url.replace("http://", f"http://{USER}:{PASSWORD}@")
    return OpenAIChatModel(
        "test-model",
        base_url=url,
        api_key=FAKE_KEY,
        timeout=5.0,
        default_headers={"X-Team-Token": HEADER_TOKEN},
        extra_headers={"X-Extra": f"Bearer {EXTRA_TOKEN}"},
    )


def _leaks(text: str) -> list[str]:
    return [s for s in _secrets() if s in text]


@pytest.mark.parametrize("stream", [False, True])
async def test_echoed_headers_and_url_credentials_are_redacted_from_errors(
    openai_server: FakeOpenAIServer, stream: bool
) -> None:
    openai_server.enqueue(Reply(status=400, echo_headers=True))
    model = _model(openai_server)
    with pytest.raises(ChatModelError) as info:
        if stream:
            _ = [c async for c in model.astream(["hi"])]
        else:
            await model.ainvoke(["hi"])
    await model.aclose()
    sent = openai_server.request_headers[0]
    assert sent["x-team-token"] == HEADER_TOKEN  # the headers really went (and came back)
    assert EXTRA_TOKEN in sent["x-extra"]
    exc = info.value
    text = "\n".join(
        [str(exc), repr(exc), "".join(traceback.format_exception(exc)), repr(vars(exc))]
    )
    text += ErrorInfo.from_exception(exc, with_traceback=True).model_dump_json()
    assert _leaks(text) == []
    assert _leaks(repr(model)) == []


def test_default_headers_are_not_sent_in_the_body(openai_server: FakeOpenAIServer) -> None:
    openai_server.reply_text("ok")
    model = _model(openai_server)
    assert model.invoke(["hi"]).text == "ok"
    assert _leaks(str(openai_server.requests[0])) == []


def test_session_file_holds_no_secret(openai_server: FakeOpenAIServer, tmp_path: Path) -> None:
    openai_server.enqueue(Reply(status=400, echo_headers=True))
    path = tmp_path / "s.stepwise"
    agent = create_agent(_model(openai_server))
    with SessionRecorder(path) as rec:
        rec.attach(agent)
        with pytest.raises(ChatModelError):
            agent.invoke(
                {"messages": [HumanMessage(content="hi")]},
                {"configurable": {"thread_id": "t"}},
            )
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert [s for s in _secrets() if s.encode() in data] == []


def test_scrub_registry_basics() -> None:
    from engine.redaction import register_headers, register_url, scrub, strip_url_credentials

    register_headers({"Authorization": "Bearer tok-abcdef-123", "Accept": "application/json"})
    register_url("https://carol:p%40ss-word-1@host.example/v1")
    text = scrub("sent tok-abcdef-123 as application/json with p@ss-word-1 and p%40ss-word-1")
    assert text == "sent [REDACTED] as application/json with [REDACTED] and [REDACTED]"
    assert strip_url_credentials("https://a:b@h:8080/v1?x=1") == "https://h:8080/v1?x=1"
