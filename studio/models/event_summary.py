"""One-line summaries of event-log rows (plain Python, no Qt).

A row is a span (its opening event, and its closing event once it arrived) or a point event;
the summary reads like the CLI's tree but on one line per span::

    ModelRetryMiddleware attempt 1/3 ✗ TimeoutError: model timed out — retrying in 1.0 s
    tool create_file(login.tsx) ✓ 12 ms
    route model → tools (tool_calls: 1 pending call)

Payload fields are read from ``event.__dict__``: the engine builds events with
``model_construct``, so nested values may be pydantic objects or plain dicts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

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


def _as_stopped(closed: Mapping[str, Any]) -> Mapping[str, Any]:
    out = {**closed, "error": None}
    for key in ("status", "outcome"):
        if key in out:
            out[key] = "stopped"
    return out


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
    """``"TimeoutError: model timed out"`` (first line of the message, shortened)."""
    if err is None:
        return ""
    kind = field(err, "type", "") or "Error"
    lines = str(field(err, "message", "") or "").strip().splitlines()
    first = lines[0] if lines else ""
    text = f"{kind}: {first}" if first else str(kind)
    return short(text, width)


def message_text(message: Any, width: int = 60) -> str:
    """An AI/tool message as one line: its tool calls, else its text."""
    if not isinstance(message, dict):
        return short(message, width) if message is not None else ""
    calls = message.get("tool_calls") or []
    if calls:
        return "→ " + ", ".join(
            f"{c.get('name')}({call_args(c.get('args'))})" for c in calls if isinstance(c, dict)
        )
    content = message.get("content")
    if isinstance(content, list):
        content = " ".join(
            str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content
        )
    return f"“{short(content or '', width)}”" if content else ""


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


def _run(d: Mapping[str, Any], e: Mapping[str, Any] | None) -> str:
    text = f"run {d.get('graph') or ''}".rstrip()
    if d.get("resumed"):
        text += " (resumed)"
    if e is None:
        return text + " …"
    status = e.get("status", "done")
    err = e.get("error")
    return f"{text} {_mark(status)} {status}" + (f" {error_text(err)}" if err else "")


def _superstep(d: Mapping[str, Any], e: Mapping[str, Any] | None, step: Any) -> str:
    names = [str(field(t, "node", "?")) for t in d.get("tasks") or []]
    text = f"superstep {step if step is not None else '?'}"
    if names:
        counted: dict[str, int] = {}
        for n in names:
            counted[n] = counted.get(n, 0) + 1
        text += " · " + ", ".join(f"{n} ×{c}" if c > 1 else n for n, c in counted.items())
    if e is None:
        return text + " …"
    status = e.get("status", "ok")
    return text if status == "ok" else f"{text} {_mark(status)} {status}"


def _node(d: Mapping[str, Any], e: Mapping[str, Any] | None) -> str:
    text = f"node {d.get('node')}"
    if (d.get("attempt") or 1) > 1:
        text += f" (attempt {d['attempt']})"
    if e is None:
        return text + " …"
    err = e.get("error")
    return f"{text} {_mark(e.get('status', 'ok'))}" + (f" {error_text(err)}" if err else "")


def _hook(d: Mapping[str, Any], e: Mapping[str, Any] | None) -> str:
    text = f"{d.get('middleware')}.{d.get('hook')}"
    if e is None:
        return text + " …"
    err = e.get("error")
    if err:
        return f"{text} ✗ {error_text(err)}"
    extra = ""
    update = e.get("update")
    if isinstance(update, dict) and update:
        extra += " update " + ", ".join(str(k) for k in update)
    if e.get("jump_to"):
        extra += f" → jump to {e['jump_to']}"
    return f"{text} ✓{extra}"


def _wrapper(d: Mapping[str, Any], e: Mapping[str, Any] | None) -> str:
    text = f"{d.get('middleware')}.{d.get('wrapper')}"
    if d.get("tool"):
        text += f" ({d['tool']})"
    if e is None:
        return text + " …"
    err = e.get("error")
    calls = e.get("handler_calls", 1)
    extra = (
        f" ({calls} calls)" if calls and calls > 1 else (" (short-circuit)" if calls == 0 else "")
    )
    return (
        f"{text} {_mark(e.get('outcome', 'ok'))}" + (f" {error_text(err)}" if err else "") + extra
    )


def _attempt(d: Mapping[str, Any], e: Mapping[str, Any] | None) -> str:
    src = e if e is not None else d
    text = f"{d.get('middleware')} attempt {_fraction(d.get('attempt'), src.get('max_attempts'))}"
    target = d.get("tool") or ("Fallback" in str(d.get("middleware")) and d.get("model"))
    if target:
        text += f" ({target})"
    if e is None:
        return text + " …"
    if e.get("outcome", "ok") != "error":
        return f"{text} ✓"
    text += f" ✗ {error_text(e.get('error'))}"
    if e.get("fallback_model"):
        return f"{text} — falling back to {e['fallback_model']}"
    if e.get("will_retry"):
        delay = e.get("delay_s")
        return (
            f"{text} — retrying in {seconds_text(delay)}"
            if isinstance(delay, int | float)
            else text
        )
    return f"{text} — giving up"


def _model(d: Mapping[str, Any], e: Mapping[str, Any] | None, tokens: int, streamed: str) -> str:
    text = f"model {d.get('model')}"
    if e is None:
        if tokens:
            return f"{text} streaming… {tokens} tokens “{short(streamed[-60:], 60)}”"
        return f"{text} … {d.get('messages_count', 0)} messages, {len(d.get('tools') or [])} tools"
    err = e.get("error")
    if err:
        return f"{text} ✗ {error_text(err)}"
    body = message_text(e.get("message"))
    extra = f" ({tokens} tokens)" if tokens else ""
    if e.get("replayed"):
        extra += " (replayed)"
    return f"{text} ✓ {body}{extra}".rstrip()


def _tool(d: Mapping[str, Any], e: Mapping[str, Any] | None, paused_ms: float) -> str:
    text = f"tool {d.get('tool')}({call_args(d.get('args'))})"
    if e is None:
        return text + " …"
    status = e.get("status", "success")
    # the call's own time: a pause at a breakpoint inside it is not the tool's
    wall = e.get("duration_ms")
    ms = duration_text(max(0.0, wall - paused_ms) if isinstance(wall, int | float) else wall)
    err = e.get("error")
    if status == "error" or err:
        detail = error_text(err) if err else short(field(e.get("result"), "content", ""), 60)
        return f"{text} ✗ {detail}".rstrip() + (f" {ms}" if ms else "")
    return f"{text} ✓" + (f" {ms}" if ms else "")


# -- point events ------------------------------------------------------------------------------


def _route(d: Mapping[str, Any]) -> str:
    to = [*(d.get("to") or [])] + [f"Send({field(s, 'node')})" for s in d.get("sends") or []]
    reason = d.get("reason") or ""
    why = f"{reason}: {d['detail']}" if d.get("detail") else reason
    return f"route {d.get('from_node')} → {', '.join(str(t) for t in to) or 'END'} ({why})"


def _state(d: Mapping[str, Any]) -> str:
    parts = []
    for ch in d.get("changes") or []:
        op, name = ch.get("op"), ch.get("channel")
        if op == "append":
            parts.append(f"{name} +{len(ch.get('appended') or [])}")
        elif op == "set":
            parts.append(f"{name} = {short(ch.get('value'), 40)}")
        else:
            parts.append(f"{name} {op}")
    return "state " + ("; ".join(parts) or "(no change)")


def _point(kind: str, d: Mapping[str, Any], step: Any) -> str:
    if kind == "route":
        return _route(d)
    if kind == "state.updated":
        return _state(d)
    if kind == "checkpoint.saved":
        nxt = ", ".join(d.get("next") or []) or "END"
        return f"checkpoint step {step} ({d.get('source')}) → next: {nxt}"
    if kind == "interrupt.raised":
        if d.get("static"):
            return f"interrupt {d['static']} {d.get('node')}"
        return f"interrupt in {d.get('node')}: {short(d.get('value'), 80)}"
    if kind == "interrupt.resumed":
        node = d.get("node")
        return f"resumed {node + ' ' if node else ''}with {short(d.get('value'), 60)}"
    if kind == "middleware.action":
        return f"{d.get('middleware')} {d.get('action')} {short(d.get('detail'), 70)}"
    if kind == "plan.step":
        extra = "".join(f" {x}" for x in (d.get("code"), d.get("message")) if x)
        att = f" (attempt {d['attempt']})" if (d.get("attempt") or 1) > 1 else ""
        return f"plan step {d.get('index')} {d.get('name')}: {d.get('status')}{att}{extra}"
    if kind == "custom":
        return f"custom {d.get('node')}: {short(d.get('data'), 70)}"
    if kind == "store.access":
        from engine.store import access_summary

        return access_summary(dict(d))
    if kind == "loop.detected":
        return f"⟳ loop in {d.get('node') or 'the run'}: {d.get('detail') or d.get('loop')}"
    if kind == "debug.paused":
        bp = f": {d['breakpoint']}" if d.get("breakpoint") else ""
        return f"paused ({d.get('reason')}{bp}) at {d.get('at_kind')}"
    if kind == "debug.resumed":
        return f"resumed: {d.get('command')}"
    return kind


def summarize(
    kind: str,
    opened: Mapping[str, Any],
    closed: Mapping[str, Any] | None,
    *,
    step: Any = None,
    tokens: int = 0,
    streamed: str = "",
    paused_ms: float = 0.0,
) -> str:
    """The summary of a row: ``kind`` is the opening (or only) event's kind, ``opened`` and
    ``closed`` the payloads (``event.__dict__``) of its opening and closing events;
    ``paused_ms`` the time the run sat paused inside the span (not the span's own time)."""
    if closed is not None and is_stop(closed.get("error")):
        closed = _as_stopped(closed)  # a user's Stop: neutral, not a failure
    if kind == "run.started":
        return _run(opened, closed)
    if kind == "superstep.started":
        return _superstep(opened, closed, step)
    if kind == "node.started":
        return _node(opened, closed)
    if kind == "hook.started":
        return _hook(opened, closed)
    if kind == "wrapper.started":
        return _wrapper(opened, closed)
    if kind == "attempt.started":
        return _attempt(opened, closed)
    if kind == "model.request":
        return _model(opened, closed, tokens, streamed)
    if kind == "tool.started":
        return _tool(opened, closed, paused_ms)
    if kind == "model.token":
        return f"tokens ×{tokens} “{short(streamed[-60:], 60)}”"
    return _point(kind, opened, step)
