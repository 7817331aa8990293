"""``ProviderToolSearchMiddleware``: defer tools behind the provider's server-side tool search.

Rather than sending every tool's full schema on every model call, some providers (Anthropic,
OpenAI) can hold tools back and let the model *search* for them. This middleware marks the
chosen tools as deferred (``extras["defer_loading"] = True`` on a copy of the tool) and adds
the provider's tool-search tool to the request.

A tool is deferred when it is named (or given) in ``searchable_tools`` or already carries
``extras={"defer_loading": True}`` (``@tool(extras=...)``). Order of checks, as LangChain:

1. every name in ``searchable_tools`` must be bound to the model (else ``ValueError``);
2. with nothing to defer the request passes through untouched (same object);
3. the model's provider must be known and support tool search (else ``ValueError``).

The provider is read from the model: its ``"provider:model"`` or ``model_provider`` settings
(configurable models, runtime ``configurable`` overriding the defaults), its LangSmith
``ls_provider``, an engine model's ``provider`` attribute, a bare model name's prefix
(``claude...``, ``gpt-...``) and finally the model's class name.

Each deferral is reported as ``middleware.action`` ``tools_deferred`` (provider, the deferred
tool names and the search tool added).
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeAlias

from engine.events import MiddlewareAction
from engine.middleware.types import AgentMiddleware, ModelCallResult, ModelRequest, ModelResponse
from engine.observe.bus import emit, emit_sync
from engine.tools import BaseTool

__all__ = ["SERVER_TOOL_SEARCH_TOOLS", "ProviderToolSearchMiddleware", "model_provider"]

ToolIdentifier: TypeAlias = str | BaseTool

SERVER_TOOL_SEARCH_TOOLS: dict[str, dict[str, str]] = {
    "anthropic": {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
    "openai": {"type": "tool_search"},
}
"""The provider-native search tool added to a request, by normalized provider name."""

# bare model-name prefixes -> provider (first match wins)
_NAME_PREFIXES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("gpt-", "o1", "o3", "chatgpt", "text-davinci"), "openai"),
    (("claude",), "anthropic"),
    (("command",), "cohere"),
    (("accounts/fireworks",), "fireworks"),
    (("gemini",), "google_vertexai"),
    (("amazon.", "anthropic.", "meta."), "bedrock"),
    (("mistral", "mixtral"), "mistralai"),
    (("deepseek",), "deepseek"),
    (("grok",), "xai"),
    (("sonar",), "perplexity"),
)
_CLASS_NAMES: dict[str, str] = {
    "ChatAnthropic": "anthropic",
    "AnthropicChat": "anthropic",
    "ChatOpenAI": "openai",
    "OpenAIChat": "openai",
    "OpenAIChatModel": "openai",
}


class ProviderToolSearchMiddleware(AgentMiddleware):
    """Defer selected tools behind provider-native tool search.

    Args:
        searchable_tools: tools (or tool names) to defer; tools already marked with
            ``extras={"defer_loading": True}`` are deferred as well.
    """

    def __init__(self, *, searchable_tools: Sequence[ToolIdentifier] | None = None) -> None:
        self.searchable_tool_names: set[str] = {
            t if isinstance(t, str) else t.name for t in searchable_tools or ()
        }
        self.tools = []

    def prepare(self, request: ModelRequest) -> tuple[ModelRequest, dict[str, Any] | None]:
        """The request to send and, when tools were deferred, the event detail describing it."""
        if self.searchable_tool_names:
            bound = {t.name for t in request.tools if isinstance(t, BaseTool)}
            unknown = sorted(self.searchable_tool_names - bound)
            if unknown:
                raise ValueError(
                    "ProviderToolSearchMiddleware: searchable_tools references "
                    f"tool(s) not bound to the model: {', '.join(unknown)}"
                )
        deferred = [t for t in request.tools if self.is_deferred(t)]
        if not deferred:
            return request, None
        supported = ", ".join(sorted(SERVER_TOOL_SEARCH_TOOLS))
        provider = model_provider(request.model, request.runtime)
        if provider is None:
            raise ValueError(
                "ProviderToolSearchMiddleware could not determine the provider for "
                f"model {type(request.model).__name__!r}; server-side tool search "
                f"supports: {supported}"
            )
        if provider not in SERVER_TOOL_SEARCH_TOOLS:
            raise ValueError(
                "ProviderToolSearchMiddleware requires a provider with server-side "
                f"tool search, but got {provider!r}; supported providers: {supported}"
            )
        search_tool = dict(SERVER_TOOL_SEARCH_TOOLS[provider])
        tools = [_deferred_copy(t) if self.is_deferred(t) else t for t in request.tools]
        detail = {
            "provider": provider,
            "deferred": [t.name for t in deferred if isinstance(t, BaseTool)],
            "search_tool": search_tool,
        }
        return request.override(tools=[*tools, search_tool]), detail

    def is_deferred(self, tool: BaseTool | dict[str, Any]) -> bool:
        """Only ``BaseTool``s can be deferred (dict tools have no extras to carry the flag)."""
        if not isinstance(tool, BaseTool):
            return False
        extras = tool.extras if isinstance(tool.extras, dict) else {}
        return extras.get("defer_loading") is True or tool.name in self.searchable_tool_names

    def _action(self, detail: dict[str, Any]) -> dict[str, Any]:
        return {"middleware": self.name, "action": "tools_deferred", "detail": detail}

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelCallResult:
        prepared, detail = self.prepare(request)
        if detail is not None:
            emit_sync(MiddlewareAction, **self._action(detail))
        return handler(prepared)

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelCallResult:
        prepared, detail = self.prepare(request)
        if detail is not None:
            await emit(MiddlewareAction, **self._action(detail))
        return await handler(prepared)


def _deferred_copy(tool: BaseTool | dict[str, Any]) -> BaseTool | dict[str, Any]:
    """A copy of ``tool`` whose extras add ``defer_loading`` (the bound tool is not changed)."""
    if not isinstance(tool, BaseTool):
        return tool
    clone = copy.copy(tool)
    clone.extras = {**(tool.extras or {}), "defer_loading": True}
    return clone


def model_provider(model: Any, runtime: Any = None) -> str | None:
    """The normalized provider of ``model`` (``"openai"``, ``"anthropic"``, ...), or None."""
    defaults = getattr(model, "_default_config", None)
    params_of = getattr(model, "_model_params", None)
    if callable(params_of):
        config = getattr(runtime, "config", None)
        if config is not None and not isinstance(config, Mapping):
            config = None  # a malformed config counts as none
        params = params_of(config)
        if isinstance(params, dict):
            merged = {**defaults, **params} if isinstance(defaults, dict) else params
            if found := _provider_from_params(merged):
                return found
    if isinstance(defaults, dict) and (found := _provider_from_params(defaults)):
        return found
    ls_params_of = getattr(model, "_get_ls_params", None)
    if callable(ls_params_of):
        ls_params = ls_params_of()
        if isinstance(ls_params, dict) and isinstance(ls_params.get("ls_provider"), str):
            return _normalize(ls_params["ls_provider"])
    own = getattr(model, "provider", None)
    if isinstance(own, str) and own:
        return _normalize(own)
    return _CLASS_NAMES.get(type(model).__name__)


def _provider_from_params(params: Mapping[str, Any]) -> str | None:
    provider = params.get("model_provider")
    if isinstance(provider, str):
        return _normalize(provider)
    name = params.get("model")
    if isinstance(name, str):
        return provider_from_model_name(name)
    return None


def provider_from_model_name(name: str) -> str | None:
    """``"openai:gpt-5"`` -> ``"openai"``; a bare name by its prefix; None when unknown."""
    prefix, _, rest = name.partition(":")
    if rest:
        return _normalize(prefix)
    lower = name.lower()
    for prefixes, provider in _NAME_PREFIXES:
        if lower.startswith(prefixes):
            return provider
    return None


def _normalize(provider: str) -> str:
    return provider.replace("-", "_").lower()
