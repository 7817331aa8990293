"""PromptCachingMiddleware: stable prompt_cache_key for OpenAI-compatible models."""

from __future__ import annotations

import warnings

import pytest

from engine.messages import AIMessage, HumanMessage, SystemMessage
from engine.middleware.prompt_caching import PromptCachingMiddleware
from engine.models import OpenAIChatModel, ScriptedChatModel
from engine.tools import tool
from tests.engine.middleware.helpers import (
    Flaky,
    actions,
    ai_answer,
    captured_events,
    model_request,
)


@tool
def search(q: str) -> str:
    """Search."""
    return q


@pytest.fixture
def openai_model() -> OpenAIChatModel:
    return OpenAIChatModel("gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key="sk-test-0000")


def test_validation() -> None:
    with pytest.raises(
        ValueError, match="unsupported_model_behavior must be 'ignore', 'warn' or 'raise'"
    ):
        PromptCachingMiddleware(unsupported_model_behavior="explode")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^min_messages_to_cache must be >= 0$"):
        PromptCachingMiddleware(min_messages_to_cache=-1)
    with pytest.raises(ValueError, match="cache_key must be a non-empty string"):
        PromptCachingMiddleware(cache_key="")


def test_derived_key_is_stable_across_turns_and_changes_with_the_prefix(
    openai_model: OpenAIChatModel,
) -> None:
    mw = PromptCachingMiddleware()
    h = Flaky([], ai_answer())
    system = SystemMessage(content="You are helpful.")
    with captured_events() as events:
        mw.wrap_model_call(model_request(openai_model, system_message=system, tools=[search]), h)
        longer = [
            HumanMessage(content="hi"),
            AIMessage(content="hello"),
            HumanMessage(content="more"),
        ]
        mw.wrap_model_call(
            model_request(openai_model, messages=longer, system_message=system, tools=[search]), h
        )
        mw.wrap_model_call(
            model_request(
                openai_model, system_message=SystemMessage(content="Other."), tools=[search]
            ),
            h,
        )
    keys = [r.model_settings["prompt_cache_key"] for r in h.requests]
    assert keys[0] == keys[1] != keys[2]
    assert keys[0].startswith("stepwise-") and len(keys[0]) == len("stepwise-") + 24
    reported = actions(events, "prompt_cache_key")
    assert [a.detail["key"] for a in reported] == keys
    assert (
        reported[0].detail["source"] == "derived" and reported[0].detail["model"] == "gpt-4o-mini"
    )


def test_explicit_key_and_existing_settings_are_kept(openai_model: OpenAIChatModel) -> None:
    mw = PromptCachingMiddleware(cache_key="my-agent-v1")
    h = Flaky([], ai_answer())
    req = model_request(openai_model, model_settings={"temperature": 0.2})
    mw.wrap_model_call(req, h)
    assert h.requests[0].model_settings == {"temperature": 0.2, "prompt_cache_key": "my-agent-v1"}
    assert req.model_settings == {"temperature": 0.2}


def test_min_messages(openai_model: OpenAIChatModel) -> None:
    mw = PromptCachingMiddleware(min_messages_to_cache=3)
    h = Flaky([], ai_answer())
    mw.wrap_model_call(model_request(openai_model), h)
    assert "prompt_cache_key" not in h.requests[0].model_settings
    mw.wrap_model_call(model_request(openai_model, messages=[HumanMessage(content="a")] * 3), h)
    assert "prompt_cache_key" in h.requests[1].model_settings


def test_unsupported_models_warn_once_ignore_or_raise() -> None:
    scripted = ScriptedChatModel(["x"], name="demo")
    h = Flaky([], ai_answer())
    warn = PromptCachingMiddleware()
    with pytest.warns(UserWarning, match="only OpenAI-compatible models"):
        warn.wrap_model_call(model_request(scripted), h)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn.wrap_model_call(model_request(scripted), h)  # warned once per model
        PromptCachingMiddleware(unsupported_model_behavior="ignore").wrap_model_call(
            model_request(scripted), h
        )
    assert all("prompt_cache_key" not in r.model_settings for r in h.requests)
    with pytest.raises(ValueError, match="ScriptedChatModel 'demo'"):
        PromptCachingMiddleware(unsupported_model_behavior="raise").wrap_model_call(
            model_request(scripted), h
        )


async def test_duck_typed_support_and_async() -> None:
    scripted = ScriptedChatModel(["x"], name="local")
    scripted.supports_prompt_cache_key = True  # type: ignore[attr-defined]
    h = Flaky([], ai_answer())
    await PromptCachingMiddleware(cache_key="k").awrap_model_call(model_request(scripted), h.acall)
    assert h.requests[0].model_settings["prompt_cache_key"] == "k"
