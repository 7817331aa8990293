"""Tool calls the model botched (arguments not even valid JSON) and how the agent answers them.

A model reply whose only calls are invalid ends the run, as it does upstream: nothing can be
executed, and looping back would ask the model again and again (each one a paid call).  The
next model call then answers every unanswered invalid call that has an id with an error
``ToolMessage`` placed right after the ``AIMessage`` that made it, so the history the model
sees - and the one saved in state - is well formed.  Each inserted answer is reported with
the usual ``tool.started`` / ``tool.finished`` events (status ``error``).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence

from engine.events import ToolFinished, ToolStarted
from engine.message_log import AppendLog
from engine.messages import AIMessage, BaseMessage, InvalidToolCall, ToolMessage
from engine.observe.bus import current_emitter, span
from engine.serde import to_jsonable

__all__ = ["answer_invalid_calls", "emit_answers", "invalid_call_answer", "needs_answers"]


def invalid_call_answer(call: InvalidToolCall) -> ToolMessage | None:
    """The error answer to one invalid call (None without an id: nothing to answer)."""
    call_id = call.get("id")
    if call_id is None:
        return None
    name = call.get("name") or "unknown"
    return ToolMessage(
        content=(
            f"Tool call {name} with id {call_id} could not be executed - "
            "arguments were malformed or truncated."
        ),
        name=name,
        tool_call_id=call_id,
        status="error",
    )


class _Scan:
    """What the first ``n`` messages of a history say about invalid calls: the ids answered by
    a ``ToolMessage``, and the invalid calls (with an id) no message answers yet."""

    __slots__ = ("answered", "n", "open")

    def __init__(self) -> None:
        self.n = 0
        self.answered: set[str | None] = set()
        self.open: set[str] = set()

    def advance(self, messages: Sequence[BaseMessage], upto: int) -> _Scan:
        for m in messages[self.n : upto]:
            if isinstance(m, ToolMessage):
                self.answered.add(m.tool_call_id)
                self.open.discard(m.tool_call_id)
            elif isinstance(m, AIMessage):
                for call in m.invalid_tool_calls:
                    call_id = call.get("id")
                    if call_id is not None and call_id not in self.answered:
                        self.open.add(call_id)
        self.n = max(self.n, upto)
        return self


_scans: weakref.WeakKeyDictionary[object, _Scan] = weakref.WeakKeyDictionary()
_scans_lock = threading.Lock()


def needs_answers(messages: Sequence[BaseMessage]) -> bool:
    """Whether some invalid call with an id has no answer in ``messages``.

    On a graph's message log the scan is kept per log and continued from where the last call
    stopped, so a long conversation costs O(new messages) per model call, not O(history)."""
    if not isinstance(messages, AppendLog):
        return bool(_Scan().advance(messages, len(messages)).open)
    n = len(messages)
    with _scans_lock:
        scan = _scans.get(messages.buffer)
        if scan is None:
            scan = _scans[messages.buffer] = _Scan()
        elif scan.n > n:  # an older (shorter) view of the log: its own scan
            return bool(_Scan().advance(messages, n).open)
        return bool(scan.advance(messages, n).open)


def answer_invalid_calls(
    messages: Sequence[BaseMessage],
) -> tuple[Sequence[BaseMessage], list[tuple[InvalidToolCall, ToolMessage]]]:
    """``messages`` with an answer after each AIMessage for its unanswered invalid calls,
    and the (call, answer) pairs added.  When the history needs no repair, ``messages``
    itself (not a copy) and no pairs."""
    if not needs_answers(messages):
        return messages, []
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    out: list[BaseMessage] = []
    added: list[tuple[InvalidToolCall, ToolMessage]] = []
    for message in messages:
        out.append(message)
        if not isinstance(message, AIMessage):
            continue
        for call in message.invalid_tool_calls:
            if call.get("id") in answered:
                continue
            answer = invalid_call_answer(call)
            if answer is not None:
                out.append(answer)
                added.append((call, answer))
                answered.add(answer.tool_call_id)
    return out, added


async def emit_answers(added: Sequence[tuple[InvalidToolCall, ToolMessage]]) -> None:
    """Report each inserted answer as a tool call that failed at once."""
    em = current_emitter()
    if em is None or not em.active:
        return
    for call, answer in added:
        s = span()
        ids = {
            "span_id": s.id,
            "parent_span_id": s.parent,
            "tool": answer.name or "",
            "tool_call_id": call.get("id"),
        }
        await em.emit(ToolStarted, **ids, args=call.get("args"))
        await em.emit(ToolFinished, **ids, status="error", result=to_jsonable(answer))
