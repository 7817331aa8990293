"""AI messages and their usage (``langchain_core.messages.ai``): the names ``engine.messages`` offers."""

from __future__ import annotations

from engine.messages import (
    AIMessage,
    AIMessageChunk,
    InputTokenDetails,
    OutputTokenDetails,
    UsageMetadata,
)

__all__ = [
    "AIMessage",
    "AIMessageChunk",
    "InputTokenDetails",
    "OutputTokenDetails",
    "UsageMetadata",
]
