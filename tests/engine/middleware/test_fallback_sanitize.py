"""ModelFallbackMiddleware strips cache settings a fallback model would not accept."""

from __future__ import annotations

from typing import Any

from engine.messages import HumanMessage, SystemMessage
from engine.middleware.fallback import ModelFallbackMiddleware
from engine.middleware.fallback_sanitize import sanitized_for
from engine.middleware.types import ModelRequest, ModelResponse
from tests.engine.middleware.helpers import ai_answer, model_request


class Typed:
    def __init__(self, llm_type: str) -> None:
        self._llm_type = llm_type
        self.model_name = llm_type


MARKED_SYSTEM = SystemMessage(
    content=[
        {"type": "text", "text": "rules", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "more", "extras": {"cache_control": {"type": "ephemeral"}}},
    ]
)
MARKED_TOOL = {"name": "t", "parameters": {}, "cache_control": {"type": "ephemeral"}}
SETTINGS = {
    "temperature": 0.2,
    "cache_control": {"type": "ephemeral"},
    "prompt_cache_key": "thread-1",
    "extra_headers": {"X-Request-ID": "r1", "X-Session-Affinity": "thread-1"},
}


def marked_request() -> ModelRequest:
    return model_request(
        messages=[HumanMessage(content="hi")],
        system_message=MARKED_SYSTEM,
        tools=[MARKED_TOOL],
        model_settings=dict(SETTINGS),
    )


def test_a_plain_model_gets_no_provider_cache_settings() -> None:
    clean = sanitized_for(marked_request(), Typed("gemini-chat"))
    assert clean.model_settings == {"temperature": 0.2, "extra_headers": {"X-Request-ID": "r1"}}
    assert clean.system_message is not None
    assert clean.system_message.content == [
        {"type": "text", "text": "rules"},
        {"type": "text", "text": "more", "extras": {}},
    ]
    assert clean.tools == [{"name": "t", "parameters": {}}]


def test_each_provider_keeps_what_it_understands() -> None:
    anthropic = sanitized_for(marked_request(), Typed("anthropic-chat"))
    assert "cache_control" in anthropic.model_settings
    assert anthropic.system_message is MARKED_SYSTEM and anthropic.tools == [MARKED_TOOL]
    openai = sanitized_for(marked_request(), Typed("openai-chat"))
    assert openai.model_settings["prompt_cache_key"] == "thread-1"
    fireworks = sanitized_for(marked_request(), Typed("fireworks-chat"))
    assert fireworks.model_settings["extra_headers"]["X-Session-Affinity"] == "thread-1"


def test_an_unmarked_request_is_returned_as_is() -> None:
    plain = model_request(model_settings={"temperature": 0})
    assert sanitized_for(plain, Typed("gemini-chat")) is plain


def test_the_fallback_attempt_is_sanitized_and_the_primary_is_not() -> None:
    seen: list[ModelRequest] = []

    def handler(req: ModelRequest) -> Any:
        seen.append(req)
        if len(seen) == 1:
            raise ValueError("primary down")
        return ModelResponse(result=[ai_answer()])

    request = marked_request()
    fallback = Typed("gemini-chat")
    ModelFallbackMiddleware(fallback).wrap_model_call(request, handler)
    assert seen[0] is request and seen[0].model_settings == SETTINGS
    assert seen[1].model is fallback and "prompt_cache_key" not in seen[1].model_settings
