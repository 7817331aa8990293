"""Chat messages of any role (``langchain_core.messages.chat``): the names ``engine.messages`` offers."""

from __future__ import annotations

from engine.messages import (
    ChatMessage,
    ChatMessageChunk,
)

__all__ = [
    "ChatMessage",
    "ChatMessageChunk",
]
