"""The internal-call marker and the stream transformer that honours it.

A model call a middleware makes for itself (a summary, an emulated tool, a tool selection) is
not part of the agent's conversation. ``internal_call_metadata()`` goes into the ``metadata``
of such a call's config; its value is a token made once per process, so metadata a caller
supplies cannot forge it. ``InternalCallTransformer`` drops the calls carrying it from a v3
run's messages projection and event log.
"""

from __future__ import annotations

import secrets
from typing import Any

from engine.graph.run_stream import ProtocolEvent, StreamTransformer
from engine.graph.run_stream.protocol import message_part

__all__ = ["INTERNAL_CALL_METADATA_KEY", "InternalCallTransformer", "internal_call_metadata"]

INTERNAL_CALL_METADATA_KEY = "lc_internal_call"
_INTERNAL_CALL_TOKEN = secrets.token_hex(16)


def internal_call_metadata() -> dict[str, Any]:
    """The metadata entry that marks a model call as internal to a middleware."""
    return {INTERNAL_CALL_METADATA_KEY: _INTERNAL_CALL_TOKEN}


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
        part = message_part(event, self.scope)
        if part is None:
            return True
        metadata = part[1]
        return not (
            isinstance(metadata, dict)
            and metadata.get(INTERNAL_CALL_METADATA_KEY) == _INTERNAL_CALL_TOKEN
        )
