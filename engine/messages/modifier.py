"""``RemoveMessage`` (``langchain_core.messages.modifier``): the names ``engine.messages`` offers."""

from __future__ import annotations

from engine.messages import (
    RemoveMessage,
)

__all__ = [
    "RemoveMessage",
]
