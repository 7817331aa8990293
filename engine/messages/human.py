"""Human messages (``langchain_core.messages.human``): the names ``engine.messages`` offers."""

from __future__ import annotations

from engine.messages import (
    HumanMessage,
    HumanMessageChunk,
)

__all__ = [
    "HumanMessage",
    "HumanMessageChunk",
]
