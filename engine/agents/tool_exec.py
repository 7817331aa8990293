"""Executing one tool call: validation, injection, the call itself, errors, the ToolMessage.

This is the bottom of the ``wrap_tool_call`` onion.  It emits ``tool.started`` /
``tool.finished`` and checks the debugger's fault queue right before the tool runs, so an
injected fault is handled exactly like the tool raising it.

Error texts (spec section 7):

- unknown tool: ``Error: {name} is not a valid tool, try one of [a, b].``
- arguments not matching the schema (handled by default): a ``ToolInvocationError`` (what the
  handler gets, or what escapes) whose message is
  ``Error invoking tool '{name}' with kwargs {args} with error:\\n {field}: {msg}\\n Please fix the error and try again.``
- ``handle_tool_errors=True``: ``Error: {repr(e)}\\n Please fix your mistakes.``
- an exception type (or a tuple of them): as ``True`` for those, else raised; langchain_core's
  ``ToolException`` also stands for the engine's own (a ``ToolInvocationError`` is one).
"""

from __future__ import annotations

import copy
import inspect
import json
import time
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Union, get_args, get_origin

from engine.agents.tool_events import ToolEvents, tool_events
from engine.core.context import tool_run_started
from engine.errors import GraphBubbleUp
from engine.events import ErrorInfo, ToolFinished, ToolStarted
from engine.graph.runtime import current_task
from engine.messages import (
    REMOVE_ALL_MESSAGES,
    InvalidToolCall,
    RemoveMessage,
    ToolMessage,
    coerce_messages,
)
from engine.middleware.types import ToolCallRequest
from engine.observe.bus import current_emitter, span
from engine.observe.faults import check_fault
from engine.serde import to_jsonable
from engine.tool_errors import UNHANDLED, tool_error_answer
from engine.tools import BaseTool, ToolArgsValidationError, ToolException, ToolInvocationError
from engine.types import Command

__all__ = [
    "ErrorHandler",
    "default_handle_tool_errors",
    "error_content",
    "execute_tool_call",
    "invalid_call_message",
    "unknown_tool_message",
]

ErrorHandler = bool | str | type[Exception] | tuple[type[Exception], ...] | Callable[..., str]

INVALID_TOOL_NAME = "Error: {name} is not a valid tool, try one of [{names}]."
INVOCATION_ERROR = "Error invoking tool '{name}' with kwargs {kwargs} with error:\n {error}\n Please fix the error and try again."
CALL_ERROR = "Error: {error}\n Please fix your mistakes."


def _model_args(tool: BaseTool | None, args: Any) -> Any:
    if tool is None or not isinstance(args, dict):
        return args
    return {k: v for k, v in args.items() if k not in tool.injected}


def validation_message(exc: ToolArgsValidationError, args: Any) -> str:
    # LangGraph: one per line, only those on an argument (not a model validator's own)
    detail = "\n".join(f"{loc}: {msg}" for loc, msg in exc.errors if loc)
    return INVOCATION_ERROR.format(name=exc.tool_name, kwargs=args, error=detail)


def default_handle_tool_errors(exc: Exception) -> str:
    """``create_agent``'s default: argument-validation errors become messages; others raise."""
    raise exc


def _handled_types(handler: Callable[..., Any]) -> tuple[type[BaseException], ...]:
    """The exception types a handler's first parameter is annotated with (all if none)."""
    try:
        params = list(inspect.signature(handler).parameters.values())
        hints = typing.get_type_hints(handler)
    except (TypeError, ValueError, NameError):
        return (Exception,)
    if not params or params[0].name not in hints:
        return (Exception,)
    ann = hints[params[0].name]
    members = get_args(ann) if get_origin(ann) in (Union, types.UnionType) else (ann,)
    found = tuple(t for t in members if isinstance(t, type) and issubclass(t, BaseException))
    return found or (Exception,)


def invocation_error(exc: ToolArgsValidationError, args: Any) -> ToolInvocationError:
    """A validation failure as the tools node reports it (``args``: the model's arguments)."""
    source = exc.source if exc.source is not None else exc
    return ToolInvocationError(exc.tool_name, source, args, validation_message(exc, args))


def _is_instance(exc: Exception, types_: type[Exception] | tuple[type[Exception], ...]) -> bool:
    """``isinstance``, where langchain_core's ``ToolException`` (a program that kept that
    import) also stands for the engine's."""
    if isinstance(exc, types_):
        return True
    if not isinstance(exc, ToolException):
        return False
    return any(
        t.__name__ == "ToolException" and t.__module__.startswith("langchain_core")
        for t in (types_ if isinstance(types_, tuple) else (types_,))
    )


def error_content(exc: Exception, handler: ErrorHandler, args: Any) -> str | None:
    """The error ToolMessage text for ``exc`` under ``handler``; None means "raise it"."""
    if isinstance(exc, ToolArgsValidationError):
        exc = invocation_error(exc, args)
    if isinstance(exc, ToolInvocationError) and handler is default_handle_tool_errors:
        return exc.message
    if handler is False or handler is default_handle_tool_errors:
        return None
    if handler is True:
        return CALL_ERROR.format(error=repr(exc))
    if isinstance(handler, str):
        return handler
    if (isinstance(handler, type) and issubclass(handler, Exception)) or isinstance(handler, tuple):
        return CALL_ERROR.format(error=repr(exc)) if _is_instance(exc, handler) else None  # type: ignore[arg-type]
    if callable(handler):
        if not isinstance(exc, _handled_types(handler)):
            return None
        return str(handler(exc))
    return None


def unknown_tool_message(name: str, call_id: str, known: list[str]) -> ToolMessage:
    return ToolMessage(
        content=INVALID_TOOL_NAME.format(name=name, names=", ".join(known)),
        name=name,
        tool_call_id=call_id,
        status="error",
    )


def invalid_call_message(call: InvalidToolCall) -> ToolMessage:
    """The answer to a tool call whose arguments were not even valid JSON."""
    name = call.get("name") or ""
    error = f"args: not valid JSON ({call.get('error') or 'unparseable arguments'})"
    return ToolMessage(
        content=INVOCATION_ERROR.format(name=name, kwargs=call.get("args"), error=error),
        name=name,
        tool_call_id=call.get("id") or "",
        status="error",
    )


def _content(out: Any) -> Any:
    if isinstance(out, str):
        return out
    if isinstance(out, list) and out and all(isinstance(b, dict) and "type" in b for b in out):
        return out  # content blocks
    try:
        return json.dumps(out, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(out)


def _clears_history(messages: list[Any] | tuple[Any, ...]) -> bool:
    """The update is exactly one ``RemoveMessage(id=REMOVE_ALL_MESSAGES)`` (in any message form)."""
    try:
        found = coerce_messages(list(messages))
    except (TypeError, ValueError):
        return False
    return (
        len(found) == 1
        and isinstance(found[0], RemoveMessage)
        and found[0].id == REMOVE_ALL_MESSAGES
    )


_COMMAND_EXAMPLE = {
    "state": '`Command(update={"messages": [ToolMessage("Success", tool_call_id=tool_call_id), ...]}, ...)`',
    "other": '`Command(update=[ToolMessage("Success", tool_call_id=tool_call_id), ...], ...)`',
}
"""The fix LangGraph's error suggests: for a tools node given the state (a dict), else (tool
calls sent to it, as the agent sends them, or a list of messages)."""


def _checked_command(cmd: Command, tool_name: str, call_id: str, input_kind: str) -> Command:
    """A tool's ``Command`` as the tools node writes it: a copy (the tool's own object is left
    as it returned it) whose ``ToolMessage`` answering this call is named after the tool; it
    must have one unless it goes to the parent graph or clears the history.  ``input_kind``:
    what the tools node was given (``ToolNode._parse``'s kinds)."""
    update = cmd.update
    if not isinstance(update, Mapping | list | tuple):
        return cmd
    cmd = copy.deepcopy(cmd)
    update = cmd.update
    if isinstance(update, Mapping):
        messages = update.get("messages", [])
    else:
        messages = [v for k, v in update if k == "messages"]
    if not isinstance(messages, list | tuple):
        messages = [messages]
    answered = False
    for m in messages:
        if isinstance(m, ToolMessage) and m.tool_call_id == call_id:
            m.name = tool_name
            answered = True
    if answered or cmd.graph == Command.PARENT or _clears_history(messages):
        return cmd  # to the parent, or the whole history goes: nothing is left to answer
    raise ValueError(
        f"Expected to have a matching ToolMessage in Command.update for tool '{tool_name}', got: {messages}. "
        "Every tool call (LLM requesting to call a tool) in the message history MUST have a corresponding "
        "ToolMessage. You can fix it by modifying the tool to return "
        f"{_COMMAND_EXAMPLE['state' if input_kind == 'state' else 'other']}."
    )


def as_tool_result(
    out: Any, tool: BaseTool, call_id: str, input_kind: str = "calls"
) -> ToolMessage | Command:
    """A tool's return value as what the tools node writes."""
    if isinstance(out, Command):
        return _checked_command(out, tool.name, call_id, input_kind)
    if isinstance(out, ToolMessage):
        if not out.tool_call_id:
            out.tool_call_id = call_id
        if out.name is None:
            out.name = tool.name
        return out
    artifact = None
    if tool.response_format == "content_and_artifact":
        if not isinstance(out, tuple) or len(out) != 2:
            raise ValueError(
                f"Tool '{tool.name}' has response_format='content_and_artifact' but returned {type(out).__name__}, not a (content, artifact) tuple"
            )
        out, artifact = out
    return ToolMessage(
        content=_content(out),
        name=tool.name,
        tool_call_id=call_id,
        status="success",
        artifact=artifact,
    )


def _injected(tool: BaseTool, request: ToolCallRequest) -> dict[str, Any]:
    out: dict[str, Any] = {}
    call_id = request.tool_call.get("id")
    for pname, inj in tool.injected.items():
        if inj.kind == "state":
            state = request.state
            if inj.field is None:
                out[pname] = dict(state) if isinstance(state, Mapping) else state
            elif isinstance(state, Mapping):
                out[pname] = state.get(inj.field)
            else:
                out[pname] = getattr(state, inj.field, None)
        elif inj.kind == "store":
            if request.runtime.store is None:
                raise ValueError(f"Store not available but required by tool '{tool.name}'")
            out[pname] = request.runtime.store
        elif inj.kind == "tool_call_id":
            out[pname] = call_id
        elif inj.kind == "config":
            out[pname] = request.runtime.config
        else:
            out[pname] = request.runtime
    return out


async def _run(
    request: ToolCallRequest, handler: ErrorHandler, known: list[str], input_kind: str
) -> tuple[ToolMessage | Command, Exception | None]:
    call = request.tool_call
    name = str(call.get("name"))
    call_id = call.get("id") or ""
    tool = request.tool
    if tool is None:
        return unknown_tool_message(name, call_id, known), None
    injected = _injected(tool, request)
    # an astream_events consumer sees the tool start (with the model's arguments), then end,
    # or fail when it raised (even if the tools node answers for the failure: LangChain's
    # tool itself raised)
    ended = tool_run_started(tool.name, _model_args(tool, call.get("args")), call_id)
    try:
        args = tool.validate_args(call.get("args", {}))
        await check_fault("tool", name)
        task = current_task()
        if task is not None and task.inline and not tool.is_async:
            out = tool._run(**args, **injected)  # a lone task of a sync call: no thread needed
        else:
            out = await tool.arun(args, **injected)
    except GraphBubbleUp as exc:
        if ended is not None:
            ended(None, exc)
        raise
    except Exception as exc:
        own = tool_error_answer(tool, exc)  # the tool's own handle_tool_error & co. first
        if own is UNHANDLED and ended is not None:
            ended(None, exc)
        if own is not UNHANDLED:
            answer = ToolMessage(
                content=_content(own), name=name, tool_call_id=call_id, status="error"
            )
            if ended is not None:
                ended(answer, None)
            return answer, exc
        model_args = _model_args(tool, call.get("args"))
        content = error_content(exc, handler, model_args)
        if content is None:
            if isinstance(exc, ToolArgsValidationError):  # as the tools node raises it
                error = invocation_error(exc, model_args)
                raise error from error.source
            raise
        return ToolMessage(content=content, name=name, tool_call_id=call_id, status="error"), exc
    result = as_tool_result(out, tool, call_id, input_kind)
    if ended is not None:
        ended(result, None)
    return result, None


async def execute_tool_call(
    request: ToolCallRequest, handler: ErrorHandler, known: list[str], *, input_kind: str = "calls"
) -> ToolMessage | Command:
    """Run one call (the innermost handler of ``wrap_tool_call``), with tool events (and its
    ``tools`` stream chunks, for a run that streams them)."""
    call = request.tool_call
    events = tool_events(call.get("id"), str(call.get("name"))) if request.tool else None
    if events is None:
        return await _execute_observed(request, handler, known, input_kind)
    events.started(call.get("args"))
    try:
        result = await _execute_observed(request, handler, known, input_kind, events)
    except GraphBubbleUp:
        raise
    except Exception as exc:
        events.error(exc)
        raise
    events.finished(result)
    return result


async def _execute_observed(
    request: ToolCallRequest,
    handler: ErrorHandler,
    known: list[str],
    input_kind: str,
    events: ToolEvents | None = None,
) -> ToolMessage | Command:
    em = current_emitter()
    if em is None or not em.active:
        result, handled = await _run(request, handler, known, input_kind)
        if handled is not None and events is not None:
            events.error(handled)
        return result
    call = request.tool_call
    s = span()
    ids = {
        "span_id": s.id,
        "parent_span_id": s.parent,
        "tool": str(call.get("name")),
        "tool_call_id": call.get("id"),
    }
    t0 = time.perf_counter()
    await em.emit(ToolStarted, **ids, args=to_jsonable(call.get("args"), max_str=4000))
    try:
        with s:
            result, handled = await _run(request, handler, known, input_kind)
    except BaseException as exc:
        error = None if isinstance(exc, GraphBubbleUp) else ErrorInfo.from_exception(exc)
        await em.emit(
            ToolFinished,
            **ids,
            status="error",
            error=error,
            duration_ms=(time.perf_counter() - t0) * 1000,
        )
        raise
    if handled is not None and events is not None:
        events.error(handled)
    status = result.status if isinstance(result, ToolMessage) else "success"
    await em.emit(
        ToolFinished,
        **ids,
        status=status,
        result=to_jsonable(result, max_str=8000),
        error=ErrorInfo.from_exception(handled) if handled is not None else None,
        duration_ms=(time.perf_counter() - t0) * 1000,
    )
    return result
