"""Marking model calls a middleware makes for itself (not the agent's own model calls).

``internal_call_metadata()`` is merged into the ``metadata`` of such a call's config so stream
consumers can tell it apart from the agent's conversation. The marker's value is a token made
once per process, so user-supplied metadata cannot forge it.
"""

from __future__ import annotations

import inspect
import secrets
from typing import Any

__all__ = ["INTERNAL_CALL_METADATA_KEY", "accepts_config", "internal_call_metadata"]

INTERNAL_CALL_METADATA_KEY = "lc_internal_call"
_TOKEN = secrets.token_hex(16)


def internal_call_metadata() -> dict[str, Any]:
    """The metadata entry that marks a model call as internal to a middleware."""
    return {INTERNAL_CALL_METADATA_KEY: _TOKEN}


def accepts_config(method: Any) -> bool:
    """True if ``method`` (a model's ``invoke``/``ainvoke``) takes a LangChain-style ``config``.

    Engine models treat unknown keywords as provider settings, so a config is only passed to
    models whose call signature names it.
    """
    try:
        return "config" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
