"""Marking model calls a middleware makes for itself (not the agent's own model calls).

``internal_call_metadata()`` is merged into the ``metadata`` of such a call's config so stream
consumers can tell it apart from the agent's conversation. The marker's value is a token made
once per process, so user-supplied metadata cannot forge it.
"""

from __future__ import annotations

import inspect
import secrets
from typing import Any

from engine.graph.run_stream import ProtocolEvent, StreamTransformer

__all__ = [
    "INTERNAL_CALL_METADATA_KEY",
    "InternalCallTransformer",
    "accepts_config",
    "internal_call_config",
    "internal_call_metadata",
]

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


def internal_call_config(method: Any, source: str) -> dict[str, Any]:
    """The keywords that mark a call of ``method`` as internal (``{"config": ...}``), or none
    for a model whose ``invoke``/``ainvoke`` takes no config."""
    if not accepts_config(method):
        return {}
    return {"config": {"metadata": {"lc_source": source, **internal_call_metadata()}}}


class InternalCallTransformer(StreamTransformer):
    """Keeps a middleware's own model calls out of a v3 run: ``messages`` events of this scope
    whose metadata carries the internal-call marker are dropped before the messages
    projection and the main event log see them. Registered ahead of the built-ins by the
    middleware that make such calls (``transformers = (InternalCallTransformer,)``)."""

    before_builtins = True
    required_stream_modes = ("messages",)

    def init(self) -> dict[str, Any]:
        return {}

    def process(self, event: ProtocolEvent) -> bool:
        params = event["params"]
        if event["method"] != "messages" or tuple(params["namespace"]) != self.scope:
            return True
        data = params["data"]
        if not (isinstance(data, tuple | list) and len(data) == 2):
            return True
        metadata = data[1]
        return not (
            isinstance(metadata, dict) and metadata.get(INTERNAL_CALL_METADATA_KEY) == _TOKEN
        )
