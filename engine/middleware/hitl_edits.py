"""Running a reviewer's edit: swap the call at execution time, then tell the model.

An ``edit`` decision leaves the model's own call in its AIMessage (the transcript shows what
the model asked for). When the tool runs, the request is pointed at the reviewer's call, and
the result is prefixed with a notice naming the call that actually ran, so the model is not
misled into re-issuing its original call.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from engine.messages import ToolCall, ToolMessage
from engine.middleware.hitl_types import Action
from engine.middleware.types import ToolCallRequest
from engine.types import Command

__all__ = ["DEFAULT_EDIT_NOTICE", "EDITED_CALLS_KEY", "annotate_result", "apply_edit", "as_action"]

EDITED_CALLS_KEY = "hitl_edited_tool_calls"
"""State key: ``{tool_call_id: Action}``, the reviewer's replacements for this turn's calls."""

DEFAULT_EDIT_NOTICE = (  # LangChain's words: what the model reads, so a run reads the same
    "Note: a human reviewer replaced this tool call before it ran. The call recorded in "
    "your message is the one you produced, not the one that executed. This was "
    "intentional and authorized. Do not re-issue your original call."
)


def as_action(call: ToolCall, decision: Mapping[str, Any]) -> Action:
    """The reviewer's call of an ``edit`` decision, checked for shape."""
    action = decision.get("edited_action")
    if not isinstance(action, Mapping):
        raise ValueError(
            f"An edit decision needs 'edited_action': {{'name', 'args'}}, got {dict(decision)}"
        )
    args = action.get("args", action.get("arguments", call.get("args", {})))
    if not isinstance(args, Mapping):
        raise ValueError(f"edited_action['args'] must be a dict, got {args!r}")
    return Action(name=str(action.get("name") or call.get("name", "")), args=dict(args))


def apply_edit(request: ToolCallRequest, executed: Mapping[str, Any]) -> ToolCallRequest:
    """``request`` pointed at the reviewer's call (and tool, when the name changed)."""
    name = str(executed["name"])
    call = ToolCall(
        name=name,
        args=dict(executed.get("args") or {}),
        id=request.tool_call.get("id"),
        type="tool_call",
    )
    if name == request.tool_call.get("name"):
        return request.override(tool_call=call)
    available = list(getattr(request.runtime, "tools", None) or [])
    tool = next((t for t in available if getattr(t, "name", None) == name), None)
    if tool is None:
        names = ", ".join(sorted(str(getattr(t, "name", t)) for t in available))
        raise ValueError(
            f"Reviewer edited tool call {request.tool_call.get('id')!r} to {name!r}, which is "
            f"not an available tool. Available tools: {names}."
        )
    return request.override(tool_call=call, tool=tool)


def _notice_text(notice: str, executed: Mapping[str, Any], *, has_content: bool) -> str:
    args = json.dumps(executed.get("args") or {}, default=str)
    text = f"{notice} Executed instead: {executed['name']} with arguments {args}."
    return f"{text}\n\nTool response:" if has_content else text


def _prefixed(message: ToolMessage, notice: str, executed: Mapping[str, Any]) -> ToolMessage:
    text = _notice_text(notice, executed, has_content=bool(message.content))
    content = message.content
    if isinstance(content, str):
        if text in content:
            return message  # already annotated (a retry re-ran the handler)
        new: Any = f"{text}\n{content}" if content else text
    else:
        blocks = list(content)
        if any(text in str(b) for b in blocks):
            return message
        plain = bool(blocks) and all(isinstance(b, str) for b in blocks)
        new = [text if plain else {"type": "text", "text": text}, *blocks]
    return message.model_copy(update={"content": new})


def annotate_result(
    result: ToolMessage | Command,
    call_id: str | None,
    executed: Mapping[str, Any] | None,
    notice: str | None,
) -> ToolMessage | Command:
    """``result`` with the edit notice before the content of the edited call's ToolMessage."""
    if not notice or executed is None:
        return result
    if isinstance(result, ToolMessage):
        return _prefixed(result, notice, executed)
    update = result.update if isinstance(result, Command) else None
    if not isinstance(update, dict) or not isinstance(update.get("messages"), list):
        return result
    messages = [
        _prefixed(m, notice, executed)
        if isinstance(m, ToolMessage) and m.tool_call_id == call_id
        else m
        for m in update["messages"]
    ]
    return dataclasses.replace(result, update={**update, "messages": messages})
