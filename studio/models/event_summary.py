"""One-line summaries of event-log rows (plain Python, no Qt).

A row is a span (its opening event, and its closing event once it arrived) or a point event;
the summary reads like the CLI's tree but on one line per span::

    ModelRetryMiddleware attempt 1/3 ✗ TimeoutError: model timed out — retrying in 1.0 s
    tool create_file(login.tsx) ✓ 12 ms
    route model → tools (tool_calls: 1 pending call)

Payload fields are read through the event classes (``engine.events``); the engine builds
events with ``model_construct``, so nested values may be pydantic objects or plain dicts.
"""

from __future__ import annotations

import json
from typing import Any

from engine.error_headline import headline
from engine.events import (
    AttemptFinished,
    AttemptStarted,
    CheckpointSaved,
    CustomEvent,
    DebugPaused,
    DebugResumed,
    EventBase,
    HookFinished,
    HookStarted,
    InterruptRaised,
    InterruptResumed,
    LoopDetected,
    MiddlewareAction,
    ModelRequest,
    ModelResponse,
    NodeFinished,
    NodeStarted,
    PlanStep,
    Route,
    RunFinished,
    RunStarted,
    StateUpdated,
    StoreAccessed,
    SuperstepFinished,
    SuperstepStarted,
    ToolFinished,
    ToolStarted,
    WrapperFinished,
    WrapperStarted,
)
from engine.stop_reason import stop_note

__all__ = [
    "STOP_ERRORS",
    "call_args",
    "duration_text",
    "error_text",
    "field",
    "is_stop",
    "message_text",
    "seconds_text",
    "short",
    "summarize",
]

ELLIPSIS = "…"
_MARK = {
    "ok": "✓",
    "done": "✓",
    "success": "✓",
    "error": "✗",
    "interrupted": "‖",
    "cancelled": "■",
    "stopped": "■ stopped",
}
STOP_ERRORS = frozenset({"RunStopped", "CancelledError"})
"""Error types a user's Stop leaves on the spans it cut short: not failures."""


def is_stop(err: Any) -> bool:
    """Is ``err`` (an event's ``error``) the mark of a Stop rather than a failure?"""
    return err is not None and field(err, "type") in STOP_ERRORS


def field(obj: Any, name: str, default: Any = None) -> Any:
    """``obj[name]`` for dicts, ``obj.name`` for objects (events keep pydantic sub-models)."""
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def short(value: Any, width: int = 60) -> str:
    """A one-line rendering of a JSON-ish value, cut to ``width`` characters."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)
        except (TypeError, ValueError):
            text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + ELLIPSIS


def duration_text(ms: Any) -> str:
    if not isinstance(ms, int | float) or ms <= 0:
        return ""
    if ms >= 1000:
        return f"{ms / 1000:.2f} s"
    if ms >= 10:
        return f"{ms:.0f} ms"
    return f"{ms:.1f} ms"


def seconds_text(s: float) -> str:
    """A delay: ``1.0 s``, ``0.5 s``, ``10 ms``."""
    return f"{s * 1000:.0f} ms" if 0 < s < 0.1 else f"{s:.1f} s"


def error_text(err: Any, width: int = 80) -> str:
    """``"TimeoutError: model timed out"`` (the message's headline, shortened)."""
    if err is None:
        return ""
    kind = field(err, "type", "") or "Error"
    first = headline(str(field(err, "message", "") or ""))
    text = f"{kind}: {first}" if first else str(kind)
    return short(text, width)


def message_text(message: Any, width: int = 60) -> str:
    """An AI/tool message as one line: its tool calls, else its text."""
    if not isinstance(message, dict):
        return short(message, width) if message is not None else ""
    calls = [
        f"{c.get('name')}({call_args(c.get('args'))})"
        for c in message.get("tool_calls") or ()
        if isinstance(c, dict)
    ]
    calls += map(invalid_call_text, message.get("invalid_tool_calls") or ())
    if calls:
        return "→ " + ", ".join(calls)
    content = message.get("content")
    if isinstance(content, list):
        content = " ".join(
            str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content
        )
    return f"“{short(content or '', width)}”" if content else ""


def invalid_call_text(call: Any) -> str:
    """A tool call the model got wrong (its arguments not JSON): LangChain runs no tool for
    it, and an agent whose reply holds only such calls ends there."""
    if not isinstance(call, dict):
        return f"✗ {short(call, 40)}"
    error = call.get("error")
    return f"{call.get('name') or '?'} ✗ invalid call" + (f": {short(error, 40)}" if error else "")


def call_args(args: Any, width: int = 40) -> str:
    """Tool arguments the way people read them: ``create_file(login.tsx)``, not the JSON."""
    if isinstance(args, dict):
        if not args:
            return ""
        first = short(next(iter(args.values())), width)
        return first if len(args) == 1 else f"{first}, {ELLIPSIS}"
    return short(args, width) if args is not None else ""


def _mark(status: Any) -> str:
    return _MARK.get(str(status), str(status))


def _fraction(n: Any, top: Any) -> str:
    return f"{n}/{top}" if top else f"{n}"


# -- spans -----------------------------------------------------------------------------------
# Each takes the row's opening event (or, for a closer whose opener never arrived, the closer
# itself) and its closing event; ``stopped``: the span was cut short by the user's Stop, shown
# as neutral rather than failed (its error is not shown, its status reads "stopped").


def _run(d: RunStarted | RunFinished, e: RunFinished | None, stopped: bool) -> str:
    opener = d if isinstance(d, RunStarted) else None
    text = f"run {(opener.graph if opener is not None else '') or ''}".rstrip()
    if opener is not None and opener.resumed:
        text += " (resumed)"
    if e is None:
        return text + " …"
    status = "stopped" if stopped else e.status
    err = None if stopped else e.error
    return f"{text} {_mark(status)} {status}" + (f" {error_text(err)}" if err else "")


def _superstep(
    d: SuperstepStarted | SuperstepFinished, e: SuperstepFinished | None, stopped: bool, step: Any
) -> str:
    tasks = d.tasks if isinstance(d, SuperstepStarted) else []
    names = [str(field(t, "node", "?")) for t in tasks or []]
    text = f"superstep {step if step is not None else '?'}"
    if names:
        counted: dict[str, int] = {}
        for n in names:
            counted[n] = counted.get(n, 0) + 1
        text += " · " + ", ".join(f"{n} ×{c}" if c > 1 else n for n, c in counted.items())
    if e is None:
        return text + " …"
    status = "stopped" if stopped else e.status
    return text if status == "ok" else f"{text} {_mark(status)} {status}"


def _node(d: NodeStarted | NodeFinished, e: NodeFinished | None, stopped: bool) -> str:
    text = f"node {d.node}"
    if (d.attempt or 1) > 1:
        text += f" (attempt {d.attempt})"
    if e is None:
        return text + " …"
    err = None if stopped else e.error
    status = "stopped" if stopped else e.status
    return f"{text} {_mark(status)}" + (f" {error_text(err)}" if err else "")


def _hook(d: HookStarted | HookFinished, e: HookFinished | None, stopped: bool) -> str:
    text = f"{d.middleware}.{d.hook}"
    if e is None:
        return text + " …"
    err = None if stopped else e.error
    if err:
        return f"{text} ✗ {error_text(err)}"
    if e.outcome == "interrupted" and not stopped:
        return f"{text} {_mark('interrupted')} interrupted"
    extra = ""
    update = e.update
    if isinstance(update, dict) and update:
        extra += " update " + ", ".join(str(k) for k in update)
    if e.jump_to:
        extra += f" → jump to {e.jump_to}"
    return f"{text} ✓{extra}"


def _wrapper(d: WrapperStarted | WrapperFinished, e: WrapperFinished | None, stopped: bool) -> str:
    text = f"{d.middleware}.{d.wrapper}"
    if d.tool:
        text += f" ({d.tool})"
    if e is None:
        return text + " …"
    err = None if stopped else e.error
    calls = e.handler_calls
    extra = (
        f" ({calls} calls)" if calls and calls > 1 else (" (short-circuit)" if calls == 0 else "")
    )
    outcome = "stopped" if stopped else e.outcome
    return f"{text} {_mark(outcome)}" + (f" {error_text(err)}" if err else "") + extra


def _attempt(d: AttemptStarted | AttemptFinished, e: AttemptFinished | None, stopped: bool) -> str:
    src = e if e is not None else d
    text = f"{d.middleware} attempt {_fraction(d.attempt, src.max_attempts)}"
    target = d.tool or ("Fallback" in str(d.middleware) and d.model)
    if target:
        text += f" ({target})"
    if e is None:
        return text + " …"
    if stopped or e.outcome != "error":
        return f"{text} ✓"
    text += f" ✗ {error_text(e.error)}"
    if e.fallback_model:
        return f"{text} — falling back to {e.fallback_model}"
    if e.will_retry:
        delay = e.delay_s
        return (
            f"{text} — retrying in {seconds_text(delay)}"
            if isinstance(delay, int | float)
            else text
        )
    return f"{text} — giving up"


def _model(
    d: ModelRequest | ModelResponse,
    e: ModelResponse | None,
    stopped: bool,
    tokens: int,
    streamed: str,
) -> str:
    text = f"model {d.model}"
    if e is None:
        if tokens:
            return f"{text} streaming… {tokens} tokens “{short(streamed[-60:], 60)}”"
        request = d if isinstance(d, ModelRequest) else None
        count = request.messages_count if request is not None else 0
        tools = request.tools if request is not None else []
        return f"{text} … {count} messages, {len(tools or [])} tools"
    err = None if stopped else e.error
    if err:
        return f"{text} ✗ {error_text(err)}"
    body = message_text(e.message)
    extra = f" ({tokens} tokens)" if tokens else ""
    if e.replayed:
        extra += " (replayed)"
    note = stop_note(e.message)
    if note:  # the reply is not what the model meant to say whole
        extra += f" ⚠ {note}"
    return f"{text} ✓ {body}{extra}".rstrip()


def _tool(
    d: ToolStarted | ToolFinished, e: ToolFinished | None, stopped: bool, paused_ms: float
) -> str:
    args = d.args if isinstance(d, ToolStarted) else None
    text = f"tool {d.tool}({call_args(args)})"
    if e is None:
        return text + " …"
    # the call's own time: a pause at a breakpoint inside it is not the tool's
    wall = e.duration_ms
    ms = duration_text(max(0.0, wall - paused_ms) if isinstance(wall, int | float) else wall)
    err = None if stopped else e.error
    if (not stopped and e.status == "error") or err:
        detail = error_text(err) if err else short(field(e.result, "content", ""), 60)
        return f"{text} ✗ {detail}".rstrip() + (f" {ms}" if ms else "")
    return f"{text} ✓" + (f" {ms}" if ms else "")


# -- point events ------------------------------------------------------------------------------


def _route(d: Route) -> str:
    to = [*(d.to or [])] + [f"Send({field(s, 'node')})" for s in d.sends or []]
    reason = d.reason or ""
    why = f"{reason}: {d.detail}" if d.detail else reason
    return f"route {d.from_node} → {', '.join(str(t) for t in to) or 'END'} ({why})"


def _state(d: StateUpdated) -> str:
    parts = []
    for ch in d.changes or []:
        op, name = ch.get("op"), ch.get("channel")
        if op == "append":
            parts.append(f"{name} +{len(ch.get('appended') or [])}")
        elif op == "set":
            parts.append(f"{name} = {short(ch.get('value'), 40)}")
        else:
            parts.append(f"{name} {op}")
    return "state " + ("; ".join(parts) or "(no change)")


def _point(d: EventBase, step: Any) -> str:
    match d:
        case Route():
            return _route(d)
        case StateUpdated():
            return _state(d)
        case CheckpointSaved():
            nxt = ", ".join(d.next or []) or "END"
            return f"checkpoint step {step} ({d.source}) → next: {nxt}"
        case InterruptRaised():
            if d.static:
                return f"interrupt {d.static} {d.node}"
            return f"interrupt in {d.node}: {short(d.value, 80)}"
        case InterruptResumed():
            node = d.node
            return f"resumed {node + ' ' if node else ''}with {short(d.value, 60)}"
        case MiddlewareAction():
            return f"{d.middleware} {d.action} {short(d.detail, 70)}"
        case PlanStep():
            extra = "".join(f" {x}" for x in (d.code, d.message) if x)
            att = f" (attempt {d.attempt})" if (d.attempt or 1) > 1 else ""
            return f"plan step {d.index} {d.name}: {d.status}{att}{extra}"
        case CustomEvent():
            return f"custom {d.node}: {short(d.data, 70)}"
        case StoreAccessed():
            from engine.store import access_summary

            return access_summary(
                {
                    "op": d.op,
                    "namespace": d.namespace,
                    "key": d.key,
                    "found": d.found,
                    "value": d.value,
                    "query": d.query,
                    "hit_count": d.hit_count,
                }
            )
        case LoopDetected():
            return f"⟳ loop in {d.node or 'the run'}: {d.detail or d.loop}"
        case DebugPaused():
            bp = f": {d.breakpoint}" if d.breakpoint else ""
            return f"paused ({d.reason}{bp}) at {d.at_kind}"
        case DebugResumed():
            return f"resumed: {d.command}"
    return d.kind


def summarize(
    kind: str,
    opened: EventBase,
    closed: EventBase | None,
    *,
    step: int | None = None,
    tokens: int = 0,
    streamed: str = "",
    paused_ms: float = 0.0,
) -> str:
    """The summary of a row: ``kind`` is the opening (or only) event's kind, ``opened`` and
    ``closed`` its opening and closing events (for a closer whose opener never arrived, both
    are the closer); ``paused_ms`` the time the run sat paused inside the span (not the span's
    own time)."""
    # a user's Stop: neutral, not a failure
    stopped = closed is not None and is_stop(getattr(closed, "error", None))
    d, e = opened, closed
    if kind == "run.started" and isinstance(d, RunStarted | RunFinished):
        return _run(d, e if isinstance(e, RunFinished) else None, stopped)
    if kind == "superstep.started" and isinstance(d, SuperstepStarted | SuperstepFinished):
        return _superstep(d, e if isinstance(e, SuperstepFinished) else None, stopped, step)
    if kind == "node.started" and isinstance(d, NodeStarted | NodeFinished):
        return _node(d, e if isinstance(e, NodeFinished) else None, stopped)
    if kind == "hook.started" and isinstance(d, HookStarted | HookFinished):
        return _hook(d, e if isinstance(e, HookFinished) else None, stopped)
    if kind == "wrapper.started" and isinstance(d, WrapperStarted | WrapperFinished):
        return _wrapper(d, e if isinstance(e, WrapperFinished) else None, stopped)
    if kind == "attempt.started" and isinstance(d, AttemptStarted | AttemptFinished):
        return _attempt(d, e if isinstance(e, AttemptFinished) else None, stopped)
    if kind == "model.request" and isinstance(d, ModelRequest | ModelResponse):
        return _model(d, e if isinstance(e, ModelResponse) else None, stopped, tokens, streamed)
    if kind == "tool.started" and isinstance(d, ToolStarted | ToolFinished):
        return _tool(d, e if isinstance(e, ToolFinished) else None, stopped, paused_ms)
    if kind == "model.token":
        return f"tokens ×{tokens} “{short(streamed[-60:], 60)}”"
    return _point(d, step)
