"""Passing the internal-call marker (``internal_call_transformer``) to a model a middleware
calls for itself: as a LangChain-style ``config``, to the models whose call takes one."""

from __future__ import annotations

import inspect
from typing import Any

from engine.middleware.internal_call_transformer import (
    INTERNAL_CALL_METADATA_KEY,
    InternalCallTransformer,
    internal_call_metadata,
)

__all__ = [
    "INTERNAL_CALL_METADATA_KEY",
    "InternalCallTransformer",
    "accepts_config",
    "internal_call_config",
    "internal_call_metadata",
]


def accepts_config(method: Any) -> bool:
    """True if ``method`` (a model's ``invoke``/``ainvoke``) takes a LangChain-style ``config``.

    Engine models treat unknown keywords as provider settings, so a config is only passed to
    models whose call signature names it.
    """
    try:
        return "config" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


def internal_call_config(method: Any, source: str) -> dict[str, Any]:
    """The keywords that mark a call of ``method`` as internal (``{"config": ...}``), or none
    for a model whose ``invoke``/``ainvoke`` takes no config."""
    if not accepts_config(method):
        return {}
    return {"config": {"metadata": {"lc_source": source, **internal_call_metadata()}}}
