"""The Messages dock: the conversation, tool calls and results, tokens streaming in."""

from studio.docks.messages.view import MessagesDock

__all__ = ["MessagesDock"]
