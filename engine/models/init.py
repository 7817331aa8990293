"""``init_chat_model("provider:model", **kwargs)``: a chat model from a short string.

Providers:

- ``openai`` — ``OpenAIChatModel``; key and base URL from ``OPENAI_API_KEY`` /
  ``OPENAI_BASE_URL`` unless given.
- ``ollama`` — an Ollama server's OpenAI-compatible API at ``http://localhost:11434/v1``
  (or ``OLLAMA_BASE_URL``, or ``base_url=...``).  No key is needed, and the OpenAI key and
  base URL from the environment are never sent to it.

Keyword arguments go to the model's constructor (``timeout``, ``temperature``, ...).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from engine.core.foreign import adapt
from engine.models.base import ChatModel

__all__ = ["PROVIDERS", "init_chat_model", "parse_model_string"]

OLLAMA_DEFAULT_URL = "http://localhost:11434/v1"


def _openai(model: str, **kwargs: Any) -> ChatModel:
    from engine.models.openai import OpenAIChatModel  # the SDK loads only when it is used

    return OpenAIChatModel(model, **kwargs)


def _ollama(model: str, **kwargs: Any) -> ChatModel:
    base_url = (
        kwargs.pop("base_url", None) or os.environ.get("OLLAMA_BASE_URL") or OLLAMA_DEFAULT_URL
    )
    from engine.models.openai import LOCAL_API_KEY, OpenAIChatModel

    api_key = kwargs.pop("api_key", None) or LOCAL_API_KEY
    return OpenAIChatModel(model, base_url=base_url, api_key=api_key, **kwargs)


PROVIDERS: dict[str, Callable[..., ChatModel]] = {"openai": _openai, "ollama": _ollama}


def parse_model_string(spec: str, model_provider: str | None = None) -> tuple[str, str]:
    """``(provider, model)`` from ``"provider:model"`` (or ``model`` plus ``model_provider``)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"A model string must look like 'openai:gpt-4o-mini', got {spec!r}")
    if model_provider is not None:
        provider, model = model_provider, spec
    elif ":" in spec:
        provider, model = spec.split(":", 1)
    else:
        raise ValueError(
            f"Cannot tell the provider of model {spec!r}: write 'provider:model', "
            f"e.g. 'openai:{spec}' (known providers: {', '.join(sorted(PROVIDERS))})"
        )
    provider, model = provider.strip().lower(), model.strip()
    if not provider or not model:
        raise ValueError(f"A model string must look like 'openai:gpt-4o-mini', got {spec!r}")
    if provider not in PROVIDERS:
        raise ValueError(
            f"Unknown model provider {provider!r} in {spec!r}; known: {', '.join(sorted(PROVIDERS))}"
        )
    return provider, model


def init_chat_model(model: str, *, model_provider: str | None = None, **kwargs: Any) -> ChatModel:
    """A chat model for ``"provider:model"``; ``kwargs`` go to its constructor.

    ``openai`` and ``ollama`` are ours; any other provider (``anthropic``, ``google_genai``,
    ``bedrock``...) is LangChain's ``init_chat_model`` when it is installed, wrapped so the
    engine can call it, else a ``ValueError`` naming what to install."""
    head = model_provider or (
        model.split(":", 1)[0] if isinstance(model, str) and ":" in model else ""
    )
    if head.strip() and head.strip().lower() not in PROVIDERS:
        return _from_langchain(model, model_provider, head.strip().lower(), kwargs)
    provider, name = parse_model_string(model, model_provider)
    return PROVIDERS[provider](name, **kwargs)


def _from_langchain(
    spec: str, model_provider: str | None, provider: str, kwargs: dict[str, Any]
) -> ChatModel:
    try:
        from langchain.chat_models import (  # pyright: ignore[reportMissingImports]
            init_chat_model as lc_init_chat_model,
        )
    except ImportError:
        raise ValueError(
            f"Unknown model provider {provider!r} in {spec!r}: Stepwise itself knows "
            f"{', '.join(sorted(PROVIDERS))}. For {provider} models install LangChain's: "
            f"pip install 'stepwise[langchain]' langchain langchain-{provider.replace('_', '-')}"
        ) from None
    try:
        lc_model = lc_init_chat_model(spec, model_provider=model_provider, **kwargs)
    except (ImportError, ValueError) as exc:  # langchain is there, the provider's package not
        raise ValueError(
            f"Unknown model provider {provider!r} in {spec!r}: Stepwise itself knows "
            f"{', '.join(sorted(PROVIDERS))}, and LangChain could not make it: {exc}"
        ) from None
    adapted = adapt("chat_model", lc_model)
    if adapted is None:
        raise ValueError(f"LangChain made {type(lc_model).__name__}, which is not a chat model")
    return adapted  # type: ignore[no-any-return]
