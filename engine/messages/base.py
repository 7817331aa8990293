"""The message base class and its helpers (``langchain_core.messages.base``): the names ``engine.messages`` offers."""

from __future__ import annotations

from engine.messages import (
    BaseMessage,
    BaseMessageChunk,
    get_buffer_string,
    message_to_dict,
    messages_to_dict,
)

__all__ = [
    "BaseMessage",
    "BaseMessageChunk",
    "get_buffer_string",
    "message_to_dict",
    "messages_to_dict",
]
