"""The names LangGraph's ``langgraph.graph.message`` offers, where a program ported by
imports (``langgraph`` -> ``engine``) looks for them."""

from __future__ import annotations

from engine.graph.message_push import push_message
from engine.messages import REMOVE_ALL_MESSAGES, MessagesState, add_messages

__all__ = ["REMOVE_ALL_MESSAGES", "MessagesState", "add_messages", "push_message"]
