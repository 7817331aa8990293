"""Shared helpers for the agent tests: configs, scripted tool calls, a tracing middleware."""

from __future__ import annotations

from typing import Any

from engine.messages import AIMessage, HumanMessage, ToolCall
from engine.middleware import AgentMiddleware, ModelRequest, ToolCallRequest
from engine.tools import tool


def cfg(thread: str = "t", **extra: Any) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread, **extra}}


def call(name: str, call_id: str, /, **args: Any) -> ToolCall:
    return ToolCall(name=name, args=args, id=call_id, type="tool_call")


def ai(*calls: ToolCall, content: str = "") -> AIMessage:
    return AIMessage(content=content, tool_calls=list(calls))


def ask(text: str = "hi") -> dict[str, Any]:
    return {"messages": [HumanMessage(content=text)]}


def kinds(messages: Any) -> list[str]:
    """A compact picture of a conversation: Human, AI, AI[name,...], Tool(text)."""
    out = []
    for m in messages:
        if isinstance(m, AIMessage) and m.tool_calls:
            out.append(f"AI[{','.join(c['name'] for c in m.tool_calls)}]")
        elif isinstance(m, AIMessage):
            out.append(f"AI({m.text})")
        elif m.type == "tool":
            out.append(f"Tool({m.text})")
        else:
            out.append(type(m).__name__.removesuffix("Message"))
    return out


@tool
def echo(text: str) -> str:
    """Repeat the text."""
    return f"echo:{text}"


class Tracer(AgentMiddleware):
    """Logs every hook and both wrappers (sync and async variants alike) into ``log``."""

    def __init__(self, tag: str, log: list[str]) -> None:
        self.tag = tag
        self.log = log

    @property
    def name(self) -> str:
        return self.tag

    def _hook(self, hook: str) -> None:
        self.log.append(f"{self.tag}.{hook}")

    def before_agent(self, state: Any, runtime: Any) -> None:
        self._hook("before_agent")

    async def abefore_agent(self, state: Any, runtime: Any) -> None:
        self._hook("before_agent")

    def before_model(self, state: Any, runtime: Any) -> None:
        self._hook("before_model")

    async def abefore_model(self, state: Any, runtime: Any) -> None:
        self._hook("before_model")

    def after_model(self, state: Any, runtime: Any) -> None:
        self._hook("after_model")

    async def aafter_model(self, state: Any, runtime: Any) -> None:
        self._hook("after_model")

    def after_agent(self, state: Any, runtime: Any) -> None:
        self._hook("after_agent")

    async def aafter_agent(self, state: Any, runtime: Any) -> None:
        self._hook("after_agent")

    def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        self.log.append(f"{self.tag}>model")
        out = handler(request)
        self.log.append(f"{self.tag}<model")
        return out

    async def awrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
        self.log.append(f"{self.tag}>model")
        out = await handler(request)
        self.log.append(f"{self.tag}<model")
        return out

    def wrap_tool_call(self, request: ToolCallRequest, handler: Any) -> Any:
        self.log.append(f"{self.tag}>tool")
        out = handler(request)
        self.log.append(f"{self.tag}<tool")
        return out

    async def awrap_tool_call(self, request: ToolCallRequest, handler: Any) -> Any:
        self.log.append(f"{self.tag}>tool")
        out = await handler(request)
        self.log.append(f"{self.tag}<tool")
        return out
