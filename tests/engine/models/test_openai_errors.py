"""SDK failures become engine errors users can name in ``retry_on``; the API key never leaks."""

from __future__ import annotations

import traceback
from collections.abc import AsyncIterator

import pytest

from engine.events import ErrorInfo
from engine.models import (
    AuthenticationError,
    ChatModelError,
    ModelAPIError,
    ModelConnectionError,
    ModelResponseError,
    ModelTimeoutError,
    OpenAIChatModel,
    RateLimitError,
    ServerError,
    redact,
)
from tests.engine.models.conftest import FAKE_KEY
from tests.fixtures.openai_server import FakeOpenAIServer, Reply, unused_port


@pytest.fixture
async def quick(openai_server: FakeOpenAIServer) -> AsyncIterator[OpenAIChatModel]:
    """A client with a deliberately tiny timeout (the server's slow replies take 1 s)."""
    m = OpenAIChatModel("quick", base_url=openai_server.base_url, api_key=FAKE_KEY, timeout=0.2)
    yield m
    await m.aclose()


async def _call(model: OpenAIChatModel, stream: bool) -> None:
    if stream:
        _ = [item async for item in model.astream(["hi"])]
    else:
        await model.ainvoke(["hi"])


def _full_text(exc: BaseException) -> str:
    """Everything a user could see of an exception: message, repr, traceback, chained causes."""
    return "\n".join(
        [str(exc), repr(exc), "".join(traceback.format_exception(exc)), repr(vars(exc))]
        + [repr(e) for e in (exc.__cause__, exc.__context__) if e is not None]
    )


@pytest.mark.parametrize("stream", [False, True])
async def test_slow_server_raises_a_timeout_error(
    quick: OpenAIChatModel, openai_server: FakeOpenAIServer, stream: bool
) -> None:
    openai_server.reply_text("too late", delay=1.0)
    with pytest.raises(TimeoutError) as info:
        await _call(quick, stream)
    assert isinstance(info.value, ModelTimeoutError)
    assert "0.2s" in str(info.value)


async def test_stall_in_the_middle_of_a_stream_is_a_timeout(
    quick: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    openai_server.enqueue(Reply(content="partial answer here", delay=1.0, stall_after=2))
    received: list[str] = []
    with pytest.raises(ModelTimeoutError):
        async for item in quick.astream(["hi"]):
            received.append(item.text)
    assert received  # some deltas arrived before the stall


async def test_retry_on_timeout_recovers_with_the_next_reply(
    quick: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    openai_server.reply_text("too late", delay=1.0)
    openai_server.reply_text("second try")
    replies = []
    for _attempt in range(2):
        try:
            replies.append(await quick.ainvoke(["hi"]))
            break
        except TimeoutError:
            continue
    assert [r.text for r in replies] == ["second try"]


@pytest.mark.parametrize("stream", [False, True])
async def test_connection_refused_is_a_connection_error(stream: bool) -> None:
    model = OpenAIChatModel("m", base_url=f"http://127.0.0.1:{unused_port()}/v1", timeout=2.0)
    with pytest.raises(ConnectionError) as info:
        await _call(model, stream)
    assert isinstance(info.value, ModelConnectionError)
    assert "cannot reach" in str(info.value)


@pytest.mark.parametrize("stream", [False, True])
async def test_429_is_a_rate_limit_error_with_status_and_retry_after(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer, stream: bool
) -> None:
    openai_server.reply_error(429, "Rate limit reached", headers={"retry-after": "3"})
    with pytest.raises(RateLimitError) as info:
        await _call(model, stream)
    err = info.value
    assert err.status_code == 429 and err.retry_after == 3.0
    assert "Rate limit reached" in str(err)
    assert not isinstance(err, ServerError | TimeoutError | ConnectionError)


@pytest.mark.parametrize("status", [500, 503])
@pytest.mark.parametrize("stream", [False, True])
async def test_5xx_is_a_server_error_with_status(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer, status: int, stream: bool
) -> None:
    openai_server.reply_error(status, "upstream exploded")
    with pytest.raises(ServerError) as info:
        await _call(model, stream)
    assert info.value.status_code == status
    assert isinstance(info.value, ModelAPIError) and not isinstance(info.value, RateLimitError)
    assert info.value.body == {"message": "upstream exploded", "type": "server_error"}


async def test_other_status_is_a_plain_api_error(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    openai_server.reply_error(400, "bad request: unknown parameter")
    with pytest.raises(ModelAPIError) as info:
        await model.ainvoke(["hi"])
    assert type(info.value) is ModelAPIError and info.value.status_code == 400


@pytest.mark.parametrize("status", [401, 403])
async def test_refused_credentials_are_an_authentication_error_never_retried(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer, status: int
) -> None:
    from engine.middleware.retry_policy import default_retry_on
    from engine.models import ModelAuthenticationError, ModelRateLimitError

    openai_server.reply_error(status, "invalid api key")
    with pytest.raises(AuthenticationError) as info:
        await model.ainvoke(["hi"])
    assert info.value.status_code == status and isinstance(info.value, ModelAPIError)
    assert ModelAuthenticationError is AuthenticationError  # langchain_core's names
    assert ModelRateLimitError is RateLimitError
    assert not default_retry_on(info.value)
    assert default_retry_on(RateLimitError("slow down"))


@pytest.mark.parametrize(("raw", "stream"), [("{not json", False), ("data: {not json\n\n", True)])
async def test_malformed_reply_is_a_response_error(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer, raw: str, stream: bool
) -> None:
    openai_server.enqueue(Reply(raw_body=raw))
    with pytest.raises(ModelResponseError):
        await _call(model, stream)


async def test_reply_without_choices_is_a_response_error(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    openai_server.enqueue(Reply(raw_body='{"id": "x", "object": "chat.completion", "choices": []}'))
    with pytest.raises(ModelResponseError, match="no choices"):
        await model.ainvoke(["hi"])


async def test_error_event_inside_a_stream(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    openai_server.enqueue(Reply(raw_body='data: {"error": {"message": "overloaded"}}\n\n'))
    with pytest.raises(ModelAPIError, match="overloaded") as info:
        await _call(model, stream=True)
    assert info.value.status_code is None


@pytest.mark.parametrize("status", [401, 429, 500])
@pytest.mark.parametrize("stream", [False, True])
async def test_api_key_never_appears_in_errors(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer, status: int, stream: bool
) -> None:
    openai_server.reply_error(status, "nope", echo_auth=True)
    with pytest.raises(ChatModelError) as info:
        await _call(model, stream)
    # the server really did echo it: the redaction is what keeps it out
    assert openai_server.request_headers[0]["authorization"] == f"Bearer {FAKE_KEY}"
    text = _full_text(info.value)
    assert "Incorrect API key provided: [REDACTED]" in str(info.value)
    assert FAKE_KEY not in text and "SECRET123" not in text
    assert (
        FAKE_KEY not in ErrorInfo.from_exception(info.value, with_traceback=True).model_dump_json()
    )


def test_api_key_not_in_repr_or_vars_display(openai_server: FakeOpenAIServer) -> None:
    model = OpenAIChatModel(
        "m", base_url="http://user:pw@127.0.0.1:1/v1", api_key=FAKE_KEY, temperature=0.5
    )
    shown = repr(model) + str(model) + repr(vars(model))
    assert FAKE_KEY not in shown
    assert "pw" not in repr(model)
    assert (
        repr(model)
        == "OpenAIChatModel(model='m', base_url='http://127.0.0.1:1/v1', timeout=60.0, settings=['temperature'])"
    )


def test_redact_hides_given_secrets_and_key_shaped_tokens() -> None:
    text = "key sk-proj-abcDEF_123-xyz and custom-token-999 and sk- alone"
    assert redact(text, ["custom-token-999"]) == "key [REDACTED] and [REDACTED] and sk- alone"


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-0000")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    model = OpenAIChatModel("m")
    assert model.base_url == "http://127.0.0.1:9/v1"
    assert model._api_key.get_secret_value() == "sk-from-env-0000"
    assert "sk-from-env" not in repr(model)


def test_missing_key_is_an_error_for_openai_but_not_for_a_local_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        OpenAIChatModel("gpt-4o-mini")
    local = OpenAIChatModel("llama3.2", base_url="http://127.0.0.1:11434/v1")
    assert local._api_key.get_secret_value() == "not-needed"


async def test_local_server_without_key_gets_a_dummy_key(
    openai_server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    model = OpenAIChatModel("m", base_url=openai_server.base_url)
    openai_server.reply_text("fine")
    assert (await model.ainvoke(["hi"])).text == "fine"
    await model.aclose()
    assert openai_server.request_headers[0]["authorization"] == "Bearer not-needed"


async def test_per_call_timeout_setting_overrides_the_model_timeout(
    model: OpenAIChatModel, openai_server: FakeOpenAIServer
) -> None:
    openai_server.reply_text("too late", delay=1.0)
    with pytest.raises(ModelTimeoutError, match=r"within 0\.1s"):
        await model.ainvoke(["hi"], timeout=0.1)  # the fixture's model waits 5 s by default
