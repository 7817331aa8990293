"""``PromptCachingMiddleware``: a stable ``prompt_cache_key`` for OpenAI-compatible models.

OpenAI-compatible servers cache a prompt's prefix and route requests carrying the same
``prompt_cache_key`` to the same cache. This middleware puts such a key in the request's
``model_settings`` (the model sends it with the call): ``cache_key`` when given, otherwise one
derived from what makes the prefix, i.e. the model name, the system prompt and the tools'
schemas, so it stays the same for every call of an agent whose prompt and tools do not change.

Models other than ``OpenAIChatModel`` (or any model whose ``supports_prompt_cache_key``
attribute is true) are "unsupported": ``unsupported_model_behavior`` says whether to
``"warn"`` (once per model, then call it without a key), ``"ignore"`` or ``"raise"``
(``ValueError``). Requests with fewer than ``min_messages_to_cache`` messages get no key.

Reported as ``middleware.action`` ``prompt_cache_key``.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from engine.events import MiddlewareAction
from engine.middleware.retry_policy import Emit, Steps, drive_async, drive_sync, model_name
from engine.middleware.types import AgentMiddleware, ModelCallResult, ModelRequest, ModelResponse
from engine.tools import BaseTool

__all__ = ["PromptCachingMiddleware"]


def _supports_cache_key(model: Any) -> bool:
    flag = getattr(model, "supports_prompt_cache_key", None)
    if flag is not None:
        return bool(flag)
    from engine.models.openai import OpenAIChatModel

    return isinstance(model, OpenAIChatModel)


def _tool_fingerprint(tool: Any) -> Any:
    return tool.tool_call_schema if isinstance(tool, BaseTool) else tool


class PromptCachingMiddleware(AgentMiddleware):
    """Set a stable ``prompt_cache_key`` on every model call."""

    def __init__(
        self,
        *,
        cache_key: str | None = None,
        unsupported_model_behavior: Literal["ignore", "warn", "raise"] = "warn",
        min_messages_to_cache: int = 0,
        key_prefix: str = "stepwise",
    ) -> None:
        if unsupported_model_behavior not in ("ignore", "warn", "raise"):
            raise ValueError(
                "unsupported_model_behavior must be 'ignore', 'warn' or 'raise', "
                f"got {unsupported_model_behavior!r}"
            )
        if min_messages_to_cache < 0:
            raise ValueError("min_messages_to_cache must be >= 0")
        if cache_key is not None and (not isinstance(cache_key, str) or not cache_key):
            raise ValueError("cache_key must be a non-empty string or None")
        self.cache_key = cache_key
        self.unsupported_model_behavior = unsupported_model_behavior
        self.min_messages_to_cache = min_messages_to_cache
        self.key_prefix = key_prefix
        self._warned: set[str] = set()
        self.tools = []

    def key_for(self, request: ModelRequest) -> str:
        """The cache key of ``request`` (``cache_key``, or derived from its stable prefix)."""
        if self.cache_key is not None:
            return self.cache_key
        prefix = {
            "model": model_name(request.model),
            "system": request.system_prompt,
            "tools": [_tool_fingerprint(t) for t in request.tools],
        }
        digest = hashlib.sha256(
            json.dumps(prefix, sort_keys=True, default=str).encode()
        ).hexdigest()
        return f"{self.key_prefix}-{digest[:24]}"

    def _apply(self, request: ModelRequest) -> Steps[ModelRequest]:
        model = request.model
        if not _supports_cache_key(model):
            name = model_name(model) or type(model).__name__
            text = (
                "PromptCachingMiddleware sets prompt_cache_key, which only OpenAI-compatible models "
                f"(OpenAIChatModel) support; got {type(model).__name__} {name!r}. "
                "Pass unsupported_model_behavior='ignore' to call it without a cache key."
            )
            if self.unsupported_model_behavior == "raise":
                raise ValueError(text)
            if self.unsupported_model_behavior == "warn" and name not in self._warned:
                self._warned.add(name)
                warnings.warn(text, stacklevel=2)
            return request
        count = len(request.messages) + (1 if request.system_message is not None else 0)
        if count < self.min_messages_to_cache:
            return request
        key = self.key_for(request)
        yield Emit(
            MiddlewareAction,
            {
                "middleware": self.name,
                "action": "prompt_cache_key",
                "detail": {
                    "key": key,
                    "model": model_name(model),
                    "source": "explicit" if self.cache_key is not None else "derived",
                },
            },
        )
        return request.override(model_settings={**request.model_settings, "prompt_cache_key": key})

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelCallResult:
        return handler(drive_sync(self._apply(request)))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelCallResult:
        return await handler(await drive_async(self._apply(request)))
