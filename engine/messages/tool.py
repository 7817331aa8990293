"""Tool messages and calls (``langchain_core.messages.tool``): the names ``engine.messages`` offers."""

from __future__ import annotations

from engine.messages import (
    InvalidToolCall,
    ToolCall,
    ToolCallChunk,
    ToolMessage,
    ToolMessageChunk,
)

__all__ = [
    "InvalidToolCall",
    "ToolCall",
    "ToolCallChunk",
    "ToolMessage",
    "ToolMessageChunk",
]
