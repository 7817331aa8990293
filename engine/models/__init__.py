"""Chat models: the ``ChatModel`` protocol and its implementations.

- ``OpenAIChatModel`` — OpenAI or any OpenAI-compatible server (Ollama, vLLM, LM Studio, ...).
- ``ScriptedChatModel`` — deterministic replies and fault injection, for demos and tests.
- ``ReplayChatModel`` — re-serves a recorded run's responses while requests match.
- ``init_chat_model("openai:gpt-4o-mini")`` — a model from a short string.

Errors users can name in ``retry_on`` live in ``engine.models.errors``.
"""

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
from engine.models.openai import OpenAIChatModel
from engine.models.replay import Divergence, ReplayChatModel, recorded_from_events
from engine.models.resolve import as_chat_model
from engine.models.scripted import ScriptedChatModel, ScriptExhaustedError, ScriptItem
from engine.models.streaming import collect, split_message

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
