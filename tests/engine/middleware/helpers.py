"""Test helpers: capture events, handcrafted requests, flaky handlers, wrapper chains."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from engine.events import EventBase, MiddlewareAction
from engine.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from engine.middleware.types import AgentMiddleware, ModelRequest, ModelResponse, ToolCallRequest
from engine.observe.bus import CURRENT_SPAN, EventBus, RunEmitter
from engine.tools import BaseTool, ToolRuntime


@contextmanager
def captured_events() -> Iterator[list[EventBase]]:
    """Bind a run emitter for the code inside; yields the list its events are appended to."""
    bus = EventBus()
    events: list[EventBase] = []
    bus.subscribe(events.append)
    own: asyncio.AbstractEventLoop | None = None
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        own = loop = asyncio.new_event_loop()
    em = RunEmitter("run-test", "thread-test", [bus], loop=loop)
    token = em.bind()
    try:
        yield events
    finally:
        em.unbind(token)
        if own is not None:
            own.close()


def of_kind(events: Sequence[EventBase], kind: str) -> list[Any]:
    return [e for e in events if e.kind == kind]


def actions(events: Sequence[EventBase], action: str | None = None) -> list[MiddlewareAction]:
    out = [e for e in events if isinstance(e, MiddlewareAction)]
    return [e for e in out if action is None or e.action == action]


class NamedModel:
    """A stand-in model object with a name (wrappers only read ``model_name``)."""

    def __init__(self, name: str) -> None:
        self.model_name = name

    def __repr__(self) -> str:
        return f"NamedModel({self.model_name!r})"


def model_request(
    model: Any = None, messages: Sequence[BaseMessage] | None = None, **kw: Any
) -> ModelRequest:
    return ModelRequest(
        model=model if model is not None else NamedModel("primary"),
        messages=list(messages) if messages is not None else [HumanMessage(content="hi")],
        **kw,
    )


def tool_request(
    name: str = "create_file",
    args: dict[str, Any] | None = None,
    call_id: str = "call_1",
    tool: BaseTool | None = None,
    state: Any = None,
) -> ToolCallRequest:
    call = {"name": name, "args": args or {}, "id": call_id, "type": "tool_call"}
    return ToolCallRequest(
        tool_call=call,  # type: ignore[arg-type]
        tool=tool,
        state=state if state is not None else {"messages": []},
        runtime=ToolRuntime(tool_call_id=call_id),
    )


class Flaky:
    """A handler failing with ``errors`` (in order) before answering ``answer(request)``."""

    def __init__(self, errors: Sequence[BaseException], answer: Callable[[Any], Any]) -> None:
        self.errors = list(errors)
        self.answer = answer
        self.requests: list[Any] = []
        self.spans: list[str | None] = []

    def __call__(self, request: Any) -> Any:
        self.requests.append(request)
        self.spans.append(CURRENT_SPAN.get())
        if self.errors:
            raise self.errors.pop(0)
        return self.answer(request)

    async def acall(self, request: Any) -> Any:
        await asyncio.sleep(0)
        return self(request)

    @property
    def calls(self) -> int:
        return len(self.requests)


def ai_answer(text: str = "done") -> Callable[[Any], ModelResponse]:
    return lambda _req: ModelResponse(result=[AIMessage(content=text)])


def tool_answer(text: str = "ok") -> Callable[[ToolCallRequest], ToolMessage]:
    return lambda req: ToolMessage(
        content=text, tool_call_id=req.tool_call.get("id") or "", name=req.tool_call.get("name")
    )


def model_from_request(req: ModelRequest) -> ModelResponse:
    """The innermost model handler: calls ``req.model`` (a ChatModel) synchronously."""
    msgs = ([req.system_message] if req.system_message else []) + list(req.messages)
    return ModelResponse(result=[req.model.invoke(msgs, tools=req.tools or None)])


async def amodel_from_request(req: ModelRequest) -> ModelResponse:
    msgs = ([req.system_message] if req.system_message else []) + list(req.messages)
    return ModelResponse(result=[await req.model.ainvoke(msgs, tools=req.tools or None)])


def chain_model(
    mws: Sequence[AgentMiddleware], base: Callable[[ModelRequest], Any]
) -> Callable[[ModelRequest], Any]:
    """Compose ``wrap_model_call`` like create_agent: the first middleware is outermost."""
    handler = base
    for mw in reversed(mws):
        handler = (lambda m, h: lambda req: m.wrap_model_call(req, h))(mw, handler)
    return handler


def achain_model(
    mws: Sequence[AgentMiddleware], base: Callable[[ModelRequest], Awaitable[Any]]
) -> Callable[[ModelRequest], Awaitable[Any]]:
    handler = base
    for mw in reversed(mws):
        handler = (lambda m, h: lambda req: m.awrap_model_call(req, h))(mw, handler)
    return handler


def chain_tool(
    mws: Sequence[AgentMiddleware], base: Callable[[ToolCallRequest], Any]
) -> Callable[[ToolCallRequest], Any]:
    handler = base
    for mw in reversed(mws):
        handler = (lambda m, h: lambda req: m.wrap_tool_call(req, h))(mw, handler)
    return handler
