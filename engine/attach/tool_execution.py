"""Attach's tool layer in a ``ToolNode`` that has no ``wrap_tool_call`` of the app's.

Where the app's ``ToolNode`` has a wrapper, Stepwise's layer goes innermost in it
(``innermost.tool_layers``).  Where it has none, a wrapper of Stepwise's would change the app:
LangGraph's ``ToolNode`` handles an error that comes out of a wrapper by ``handle_tool_errors``
being set at all, where without one it raises the errors its ``handle_tool_errors`` does not
name (a ``ToolNode(tools, handle_tool_errors=ZeroDivisionError)`` lets a ``ToolException``
through).  So there the layer wraps the node's execution of each call instead, leaving the
node's own error handling as it is.  A fault the debugger injects into the call is raised by
the tool itself (a stand-in for the call), so the node handles it as it would the tool's own.
"""

from __future__ import annotations

import copy
from typing import Any

from engine.attach.base import ACTIVE, IN_LAYER, HandlerBase, layer_mark
from engine.attach.innermost import fault_event, fault_for, task_ns, tool_name
from engine.attach.unknown_tools import unknown_call
from engine.events import MiddlewareAction

__all__ = ["layer_executions"]


def layer_executions(node: Any) -> bool:
    """Put the layer around ``node``'s execution of each call (``node`` is Stepwise's copy of
    the app's ``ToolNode``); False when this LangGraph's ``ToolNode`` has no such step."""
    sync = getattr(type(node), "_execute_tool_sync", None)
    asyn = getattr(type(node), "_execute_tool_async", None)
    if not callable(sync) or not callable(asyn):
        return False
    run_sync, run_async = sync.__get__(node), asyn.__get__(node)

    def execute_sync(request: Any, *args: Any, **kw: Any) -> Any:
        fault = _fault(request)
        if fault is not None:
            cb, ns, fields, request = fault
            cb.emit_sync(MiddlewareAction, ns, **fields)
        unknown = unknown_call(request)
        inside = IN_LAYER.set(layer_mark(request))
        try:
            result = run_sync(request, *args, **kw)
        finally:
            IN_LAYER.reset(inside)
        if unknown is not None:
            unknown.report_sync(result)
        return result

    async def execute_async(request: Any, *args: Any, **kw: Any) -> Any:
        fault = _fault(request)
        if fault is not None:
            cb, ns, fields, request = fault
            await cb._emit(MiddlewareAction, ns, **fields)
        unknown = unknown_call(request)
        inside = IN_LAYER.set(layer_mark(request))
        try:
            result = await run_async(request, *args, **kw)
        finally:
            IN_LAYER.reset(inside)
        if unknown is not None:
            await unknown.report(result)
        return result

    node._execute_tool_sync = execute_sync
    node._execute_tool_async = execute_async
    return True


def _fault(request: Any) -> tuple[HandlerBase, str, dict[str, Any], Any] | None:
    """The fault the debugger injects into this call, if any: the run's handler, the call's
    graph namespace, the ``middleware.action`` fields saying so, and the request whose tool
    raises it."""
    cb = ACTIVE.get()
    if cb is None:
        return None
    name = tool_name(request)
    err = fault_for(cb, "tool", name)
    if err is None:
        return None
    return cb, task_ns(), fault_event("tool", name, err), _raising(request, err)


def _raising(request: Any, err: BaseException) -> Any:
    """``request`` with a stand-in for its tool that raises ``err`` when called (the app's
    tool object untouched); a call to a tool the node does not have is left as it is."""
    tool = getattr(request, "tool", None)
    if tool is None:
        return request
    stand_in = copy.copy(tool)

    def invoke(*_a: Any, **_k: Any) -> Any:
        raise err

    async def ainvoke(*_a: Any, **_k: Any) -> Any:
        raise err

    object.__setattr__(stand_in, "invoke", invoke)
    object.__setattr__(stand_in, "ainvoke", ainvoke)
    return request.override(tool=stand_in)
