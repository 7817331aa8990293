"""Chat models: the ``ChatModel`` protocol and its implementations.

- ``OpenAIChatModel`` — OpenAI or any OpenAI-compatible server (Ollama, vLLM, LM Studio, ...).
- ``ScriptedChatModel`` — deterministic replies and fault injection, for demos and tests.
- ``ReplayChatModel`` — re-serves a recorded run's responses while requests match.
- ``init_chat_model("openai:gpt-4o-mini")`` — a model from a short string.

Errors users can name in ``retry_on`` live in ``engine.models.errors``.  ``OpenAIChatModel``
is imported when it is first asked for: the OpenAI SDK takes longer to import than the rest of
the engine, and an app that never calls OpenAI (an attached LangChain app, a scripted demo)
should not wait for it, least of all inside its first model call.
"""

from typing import TYPE_CHECKING, Any

from engine.models.base import (
    TOOL_CHOICE_MODES,
    BaseChatModel,
    ChatModel,
    ChatRequest,
    ModelProfile,
    ToolLike,
    tool_schema,
)
from engine.models.errors import (
    AuthenticationError,
    ChatModelError,
    ModelAPIError,
    ModelAuthenticationError,
    ModelConnectionError,
    ModelRateLimitError,
    ModelResponseError,
    ModelTimeoutError,
    RateLimitError,
    ReplayDivergenceError,
    ServerError,
    redact,
)
from engine.models.hashing import canonical_request, request_hash
from engine.models.init import init_chat_model, parse_model_string
from engine.models.replay import Divergence, ReplayChatModel, recorded_from_events
from engine.models.resolve import as_chat_model
from engine.models.scripted import ScriptedChatModel, ScriptExhaustedError, ScriptItem
from engine.models.streaming import collect, split_message

if TYPE_CHECKING:
    from engine.models.openai import OpenAIChatModel


def __getattr__(name: str) -> Any:
    if name == "OpenAIChatModel":
        from engine.models.openai import OpenAIChatModel

        return OpenAIChatModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "TOOL_CHOICE_MODES",
    "AuthenticationError",
    "BaseChatModel",
    "ChatModel",
    "ChatModelError",
    "ChatRequest",
    "Divergence",
    "ModelAPIError",
    "ModelAuthenticationError",
    "ModelConnectionError",
    "ModelProfile",
    "ModelRateLimitError",
    "ModelResponseError",
    "ModelTimeoutError",
    "OpenAIChatModel",
    "RateLimitError",
    "ReplayChatModel",
    "ReplayDivergenceError",
    "ScriptExhaustedError",
    "ScriptItem",
    "ScriptedChatModel",
    "ServerError",
    "ToolLike",
    "as_chat_model",
    "canonical_request",
    "collect",
    "init_chat_model",
    "parse_model_string",
    "recorded_from_events",
    "redact",
    "request_hash",
    "split_message",
    "tool_schema",
]
