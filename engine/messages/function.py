"""Function messages (``langchain_core.messages.function``): the names ``engine.messages`` offers."""

from __future__ import annotations

from engine.messages import (
    FunctionMessage,
    FunctionMessageChunk,
)

__all__ = [
    "FunctionMessage",
    "FunctionMessageChunk",
]
