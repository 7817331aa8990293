"""init_chat_model: provider strings, environment, clear errors."""

from __future__ import annotations

import sys

import pytest

from engine.models import ChatModel, OpenAIChatModel, init_chat_model, parse_model_string
from tests.fixtures.openai_server import FakeOpenAIServer


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OLLAMA_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def test_openai_string(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-key-1234")
    model = init_chat_model("openai:gpt-4o-mini", temperature=0.2, timeout=5.0)
    assert isinstance(model, OpenAIChatModel) and isinstance(model, ChatModel)
    assert model.model_name == "gpt-4o-mini"
    assert model.model_settings == {"temperature": 0.2}
    assert model.timeout == 5.0 and model.base_url is None
    assert "sk-env-key" not in repr(model)


def test_ollama_defaults_to_the_local_server_and_never_gets_the_openai_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret-1234")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.example.com/v1")
    model = init_chat_model("ollama:llama3.2")
    assert isinstance(model, OpenAIChatModel)
    assert model.model_name == "llama3.2"
    assert model.base_url == "http://localhost:11434/v1"
    assert model._api_key.get_secret_value() == "not-needed"
    other = init_chat_model("ollama:qwen2.5:7b", base_url="http://127.0.0.1:9999/v1")
    assert isinstance(other, OpenAIChatModel)
    assert (other.model_name, other.base_url) == ("qwen2.5:7b", "http://127.0.0.1:9999/v1")


async def test_ollama_model_talks_to_a_compatible_server(openai_server: FakeOpenAIServer) -> None:
    model = init_chat_model("ollama:llama3.2", base_url=openai_server.base_url)
    openai_server.reply_text("hi from llama")
    assert (await model.ainvoke(["hi"])).text == "hi from llama"
    assert isinstance(model, OpenAIChatModel)
    await model.aclose()
    assert openai_server.requests[0]["model"] == "llama3.2"


def test_model_provider_keyword() -> None:
    assert parse_model_string("gpt-4o", "OpenAI") == ("openai", "gpt-4o")
    assert parse_model_string(" openai : gpt-4o ") == ("openai", "gpt-4o")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("gpt-4o-mini", "write 'provider:model'"),
        ("anthropic:claude", "Unknown model provider 'anthropic'"),
        ("openai:", "must look like"),
        (":gpt-4o", "must look like"),
        ("", "must look like"),
    ],
)
def test_malformed_or_unknown_strings(
    spec: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as without LangChain installed (the test extra installs it for attach mode)
    monkeypatch.setitem(sys.modules, "langchain.chat_models", None)
    with pytest.raises(ValueError, match=message):
        init_chat_model(spec)


def test_openai_without_key_explains_what_to_set() -> None:
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        init_chat_model("openai:gpt-4o-mini")
