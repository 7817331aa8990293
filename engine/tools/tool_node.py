"""``langchain.tools.tool_node`` ported (``engine.tools.tool_node``): the tool-call types a
``wrap_tool_call`` middleware names - ``ToolCallRequest``, ``ToolCallWrapper``,
``ToolCallWithContext`` - and the injection markers ``InjectedState``, ``InjectedStore``,
``ToolRuntime``.  ``engine.middleware`` offers ``ToolCallRequest`` too (as LangChain's middleware
re-exports LangGraph's)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypedDict

from engine.messages import ToolCall, ToolMessage
from engine.tool_injection import InjectedState, InjectedStore, ToolRuntime
from engine.tools import BaseTool
from engine.types import Command

__all__ = [
    "InjectedState",
    "InjectedStore",
    "ToolCallRequest",
    "ToolCallWithContext",
    "ToolCallWrapper",
    "ToolRuntime",
]


@dataclass
class ToolCallRequest:
    """One tool call as the tools node will execute it; ``tool`` is None for an unknown name."""

    tool_call: ToolCall
    tool: BaseTool | None
    state: Any
    runtime: ToolRuntime

    def override(self, **changes: Any) -> ToolCallRequest:
        return dataclasses.replace(self, **changes)


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
