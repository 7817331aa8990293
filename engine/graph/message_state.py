"""``MessagesState``: the common state of chat graphs, one ``messages`` list merged with
``add_messages`` (new messages appended, same-id messages replaced, ``RemoveMessage`` deletes)."""

from __future__ import annotations

from typing import Annotated, TypedDict

from engine.messages import AnyMessage, add_messages

__all__ = ["MessagesState"]


class MessagesState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
