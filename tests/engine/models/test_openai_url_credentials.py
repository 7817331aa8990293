"""A ``base_url`` with ``user:password@`` is sent as ``Authorization: Basic``, which replaces
the API key's bearer header: the model says so when it is made (the key is never dropped
silently), and without a key the URL's credentials authenticate alone."""

from __future__ import annotations

import warnings

import pytest

from engine.messages import HumanMessage
from engine.models import OpenAIChatModel
from tests.fixtures.openai_server import FakeOpenAIServer


def test_an_api_key_next_to_url_credentials_is_said_not_to_be_sent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeOpenAIServer() as server:
        server.reply_text("hi")
        url = server.base_url.replace("://", "://ann:hunter2secret@")
        with pytest.warns(UserWarning) as caught:
            model = OpenAIChatModel("m", base_url=url, api_key="key-not-sk-shaped-123")
        model.invoke([HumanMessage(content="x")])
        (headers,) = server.request_headers
    (warning,) = caught
    text = str(warning.message)
    assert (
        "carries user:password, which is sent (as Basic authorization) instead of the API key"
        in text
    )
    assert "the key is not sent" in text and "hunter2secret" not in text
    assert headers["authorization"].startswith("Basic ")  # what the warning said


def test_without_a_key_or_without_url_credentials_nothing_is_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        OpenAIChatModel("m", base_url="http://ann:pw12345678@127.0.0.1:1/v1")
        OpenAIChatModel("m", base_url="http://127.0.0.1:1/v1", api_key="key-123456")
