"""``langchain.tools.tool_node`` ported (``engine.tools.tool_node``): the tool-call types a
``wrap_tool_call`` middleware names - ``ToolCallRequest``, ``ToolCallWrapper``,
``ToolCallWithContext`` - and the injection markers ``InjectedState``, ``InjectedStore``,
``ToolRuntime``.  ``ToolCallRequest`` is the middleware's own (``engine.middleware``, a layer
above the tools: this path only re-exports it, as LangChain's does LangGraph's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict

from engine.messages import ToolCall, ToolMessage
from engine.middleware.types import ToolCallRequest
from engine.tool_injection import InjectedState, InjectedStore, ToolRuntime
from engine.types import Command

__all__ = [
    "InjectedState",
    "InjectedStore",
    "ToolCallRequest",
    "ToolCallWithContext",
    "ToolCallWrapper",
    "ToolRuntime",
]

ToolCallWrapper = Callable[
    [ToolCallRequest, Callable[[ToolCallRequest], ToolMessage | Command]],
    ToolMessage | Command,
]
"""A tool-call wrapper: the request and the next handler in, the answer out."""


class ToolCallWithContext(TypedDict):
    """A tool call sent to the tools node with the state it runs against."""

    __type: str
    tool_call: ToolCall
    state: Any
