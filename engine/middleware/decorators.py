"""Middleware from plain functions: ``@before_model``, ``@wrap_model_call``, ``@dynamic_prompt``, ...

Each decorator makes a one-off ``AgentMiddleware`` subclass named after the function (or
``name=``) and returns an instance of it, ready for ``create_agent(middleware=[...])``::

    @before_model(can_jump_to=["end"])
    def stop_early(state, runtime):
        if len(state["messages"]) > 50:
            return {"jump_to": "end"}

    @wrap_model_call
    def log_calls(request, handler):
        print(len(request.messages))
        return handler(request)

A sync function provides the sync variant (``before_model`` / ``wrap_model_call``), an
``async def`` the async one (``abefore_model`` / ``awrap_model_call``); calling the agent
through the other API then fails with the usual clear error.  ``dynamic_prompt`` with a sync
function works under both APIs.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from engine.messages import SystemMessage
from engine.middleware.types import AgentMiddleware, AgentState, ModelRequest

__all__ = [
    "after_agent",
    "after_model",
    "before_agent",
    "before_model",
    "dynamic_prompt",
    "wrap_model_call",
    "wrap_tool_call",
]

Fn = Callable[..., Any]


def _build(
    fn: Fn,
    name: str | None,
    methods: dict[str, Any],
    state_schema: Any,
    tools: Sequence[Any] | None,
) -> AgentMiddleware:
    attrs: dict[str, Any] = {
        **methods,
        "state_schema": state_schema or AgentState,
        "tools": list(tools or ()),
        "__doc__": fn.__doc__,
        "__module__": getattr(fn, "__module__", __name__),
    }
    cls = type(name or fn.__name__, (AgentMiddleware,), attrs)
    return cls()


def _takes_runtime(fn: Fn) -> bool:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return True
    return len(params) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in params)


def _hook(
    hook: str,
    func: Fn | None,
    *,
    state_schema: Any,
    tools: Sequence[Any] | None,
    can_jump_to: Sequence[str] | None,
    name: str | None,
) -> Any:
    def make(fn: Fn) -> AgentMiddleware:
        jumps = (
            list(can_jump_to)
            if can_jump_to is not None
            else list(getattr(fn, "__can_jump_to__", []) or [])
        )
        with_runtime = _takes_runtime(fn)
        if inspect.iscoroutinefunction(fn):
            # named as LangChain's (a sync call of the agent names it in its TypeError)
            async def async_wrapped(self: AgentMiddleware, state: Any, runtime: Any) -> Any:
                return await (fn(state, runtime) if with_runtime else fn(state))

            method: Any = async_wrapped
            attr = f"a{hook}"
        else:

            def smethod(self: AgentMiddleware, state: Any, runtime: Any) -> Any:
                return fn(state, runtime) if with_runtime else fn(state)

            method = smethod
            attr = hook
        if jumps:
            method.__can_jump_to__ = jumps
        return _build(fn, name, {attr: method}, state_schema, tools)

    return make(func) if func is not None else make


def before_agent(
    func: Fn | None = None,
    *,
    state_schema: Any = None,
    tools: Sequence[Any] | None = None,
    can_jump_to: Sequence[str] | None = None,
    name: str | None = None,
) -> Any:
    """Middleware running ``func(state, runtime)`` once at the start of each invocation."""
    return _hook(
        "before_agent",
        func,
        state_schema=state_schema,
        tools=tools,
        can_jump_to=can_jump_to,
        name=name,
    )


def before_model(
    func: Fn | None = None,
    *,
    state_schema: Any = None,
    tools: Sequence[Any] | None = None,
    can_jump_to: Sequence[str] | None = None,
    name: str | None = None,
) -> Any:
    """Middleware running ``func(state, runtime)`` before every model call."""
    return _hook(
        "before_model",
        func,
        state_schema=state_schema,
        tools=tools,
        can_jump_to=can_jump_to,
        name=name,
    )


def after_model(
    func: Fn | None = None,
    *,
    state_schema: Any = None,
    tools: Sequence[Any] | None = None,
    can_jump_to: Sequence[str] | None = None,
    name: str | None = None,
) -> Any:
    """Middleware running ``func(state, runtime)`` after every model call."""
    return _hook(
        "after_model",
        func,
        state_schema=state_schema,
        tools=tools,
        can_jump_to=can_jump_to,
        name=name,
    )


def after_agent(
    func: Fn | None = None,
    *,
    state_schema: Any = None,
    tools: Sequence[Any] | None = None,
    can_jump_to: Sequence[str] | None = None,
    name: str | None = None,
) -> Any:
    """Middleware running ``func(state, runtime)`` once at the end of each invocation."""
    return _hook(
        "after_agent",
        func,
        state_schema=state_schema,
        tools=tools,
        can_jump_to=can_jump_to,
        name=name,
    )


def _wrapper(
    wrapper: str,
    func: Fn | None,
    *,
    state_schema: Any,
    tools: Sequence[Any] | None,
    name: str | None,
) -> Any:
    def make(fn: Fn) -> AgentMiddleware:
        if inspect.iscoroutinefunction(fn):

            async def amethod(self: AgentMiddleware, request: Any, handler: Any) -> Any:
                return await fn(request, handler)

            return _build(fn, name, {f"a{wrapper}": amethod}, state_schema, tools)

        def smethod(self: AgentMiddleware, request: Any, handler: Any) -> Any:
            return fn(request, handler)

        return _build(fn, name, {wrapper: smethod}, state_schema, tools)

    return make(func) if func is not None else make


def wrap_model_call(
    func: Fn | None = None,
    *,
    state_schema: Any = None,
    tools: Sequence[Any] | None = None,
    name: str | None = None,
) -> Any:
    """Middleware wrapping every model call: ``func(request, handler) -> ModelResponse | AIMessage``."""
    return _wrapper("wrap_model_call", func, state_schema=state_schema, tools=tools, name=name)


def wrap_tool_call(
    func: Fn | None = None,
    *,
    state_schema: Any = None,
    tools: Sequence[Any] | None = None,
    name: str | None = None,
) -> Any:
    """Middleware wrapping every tool call: ``func(request, handler) -> ToolMessage | Command``."""
    return _wrapper("wrap_tool_call", func, state_schema=state_schema, tools=tools, name=name)


def _with_prompt(request: ModelRequest, prompt: Any) -> ModelRequest:
    if isinstance(prompt, SystemMessage):
        return request.override(system_message=prompt)
    return request.override(system_prompt=None if prompt is None else str(prompt))


def dynamic_prompt(
    func: Fn | None = None, *, state_schema: Any = None, name: str | None = None
) -> Any:
    """Middleware whose ``func(request) -> str`` replaces the system prompt of every model call."""

    def make(fn: Fn) -> AgentMiddleware:
        if inspect.iscoroutinefunction(fn):

            async def aonly(self: AgentMiddleware, request: ModelRequest, handler: Any) -> Any:
                return await handler(_with_prompt(request, await fn(request)))

            return _build(fn, name, {"awrap_model_call": aonly}, state_schema, None)

        def smethod(self: AgentMiddleware, request: ModelRequest, handler: Any) -> Any:
            return handler(_with_prompt(request, fn(request)))

        async def amethod(self: AgentMiddleware, request: ModelRequest, handler: Any) -> Any:
            return await handler(_with_prompt(request, fn(request)))

        return _build(
            fn, name, {"wrap_model_call": smethod, "awrap_model_call": amethod}, state_schema, None
        )

    return make(func) if func is not None else make
