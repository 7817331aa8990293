"""``langgraph.prebuilt.interrupt``'s (deprecated) human-interrupt shapes, for programs ported
by imports that still build their ``interrupt()`` payloads with them.  Plain ``TypedDict``s:
``HumanInterrupt(action_request=..., config=..., description=...)`` is a dict."""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict

__all__ = ["ActionRequest", "HumanInterrupt", "HumanInterruptConfig", "HumanResponse"]


class HumanInterruptConfig(TypedDict):
    """What the reviewer may do with an interrupted action."""

    allow_ignore: bool
    allow_respond: bool
    allow_edit: bool
    allow_accept: bool


class ActionRequest(TypedDict):
    """The action awaiting review: its name and arguments."""

    action: str
    args: dict


class HumanInterrupt(TypedDict):
    """An ``interrupt()`` payload asking a human to review ``action_request``."""

    action_request: ActionRequest
    config: HumanInterruptConfig
    description: str | None


class HumanResponse(TypedDict):
    """The reviewer's answer: ``accept``, ``ignore``, a ``response`` text or an ``edit``."""

    type: Literal["accept", "ignore", "response", "edit"]
    args: str | ActionRequest | None
