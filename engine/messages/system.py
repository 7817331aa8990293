"""System messages (``langchain_core.messages.system``): the names ``engine.messages`` offers."""

from __future__ import annotations

from engine.messages import (
    SystemMessage,
    SystemMessageChunk,
)

__all__ = [
    "SystemMessage",
    "SystemMessageChunk",
]
