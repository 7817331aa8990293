"""The CLI's live event tree: one line per event, indented by span nesting.

    ┌ run demo  thread t1
      ┌ superstep 0: model
        ┌ node model
          ┌ ModelRetryMiddleware.wrap_model_call
            ┌ ModelRetryMiddleware attempt 1/3
            └ ModelRetryMiddleware attempt 1/3 ✗ TimeoutError: timed out, retrying in 1.0 s
    ...

Openers (``┌``) and closers (``└``) of a span share a label; point events (routes, state
changes, checkpoints, interrupts, middleware actions) have their own mark.  ``model.token``
events are not printed (the response line shows the result).  Colours (ANSI) are optional.
Every field taken from an event (names, errors, values) is ``terminal_safe``: whatever a model,
a tool or a session file put in it, the terminal shows it and does not obey it.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from engine.cli.text import styled_safe, terminal_safe
from engine.error_headline import headline
from engine.events import SPAN_CLOSERS, SPAN_OPENERS, EventBase
from engine.stop_reason import stop_note

__all__ = ["TreeRenderer", "render_events", "summarize"]

_ANSI = {"ok": "32", "err": "31", "warn": "33", "node": "1;36", "mw": "35", "dim": "2", "bold": "1"}
_CLOSED_KEPT = 256
_OK = frozenset({"ok", "done", "success"})
_MARKS = {"ok": "✓", "error": "✗", "interrupted": "⏸", "cancelled": "■"}


def summarize(value: Any, width: int = 60) -> str:
    """A one-line, shortened rendering of a JSON value."""
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)
        except (TypeError, ValueError):
            text = repr(value)
    return summarize_text(" ".join(text.split()), width)


def summarize_text(text: str, width: int) -> str:
    text = text if len(text) <= width else text[: width - 1] + "…"
    return terminal_safe(text, one_line=True)


def _t(value: Any) -> str:
    """A field of an event, as one line of terminal-safe text."""
    return terminal_safe(str(value), one_line=True)


def _duration(ms: Any) -> str:
    if not isinstance(ms, int | float):
        return ""
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.1f} ms"


def _message_summary(message: Any) -> str:
    if not isinstance(message, dict):
        return summarize(message)
    calls = [
        f"{_t(c.get('name'))}({summarize(c.get('args', {}), 40)})"
        for c in message.get("tool_calls") or ()
    ]
    calls += [  # arguments that are not JSON: no tool runs for them
        f"{_t(c.get('name') or '?')} ✗ invalid call"
        + (f": {_t(summarize(c['error'], 40))}" if c.get("error") else "")
        for c in message.get("invalid_tool_calls") or ()
        if isinstance(c, dict)
    ]
    if calls:
        return "→ " + ", ".join(calls)
    content = message.get("content")
    if isinstance(content, list):
        content = " ".join(
            str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content
        )
    return summarize(content if content is not None else message)


def _input_summary(value: Any) -> str:
    if isinstance(value, dict) and isinstance(value.get("messages"), list) and value["messages"]:
        last = value["messages"][-1]
        if isinstance(last, dict):
            return summarize(last.get("content"))
    return summarize(value)


class TreeRenderer:
    """Turns events into indented lines; keeps the span depths of the events seen so far."""

    def __init__(
        self, *, color: bool = False, times: bool = True, indent: str = "  ", tokens: bool = False
    ) -> None:
        self.color = color
        self.times = times
        self.indent = indent
        self.tokens = tokens
        self._spans: dict[str, tuple[int, str]] = {}
        """open span id -> (depth, label)."""
        self._closed: OrderedDict[str, int] = OrderedDict()
        """Depths of recently closed spans (events may still point at them, e.g. debug.paused)."""

    def _c(self, style: str, text: str) -> str:
        return f"\x1b[{_ANSI[style]}m{text}\x1b[0m" if self.color and text else text

    def _depth_of(self, span_id: str | None) -> int:
        if span_id is None:
            return -1
        found = self._spans.get(span_id)
        if found is not None:
            return found[0]
        return self._closed.get(span_id, 0)

    def _mark(self, status: Any) -> str:
        if status in _OK:
            return self._c("ok", "✓")
        if status == "error":
            return self._c("err", "✗")
        return self._c("warn", _MARKS.get(str(status), _t(status)))

    def _time(self, ms: Any) -> str:
        return self._c("dim", _duration(ms)) if self.times else ""

    # -- labels --------------------------------------------------------------------------------

    def _label(self, ev: EventBase) -> str:
        d = ev.__dict__
        kind = ev.kind.split(".")[0]
        if kind == "run":
            return f"run {_t(d.get('graph', ''))}".rstrip() if ev.kind == "run.started" else "run"
        if kind == "superstep":
            return f"superstep {ev.step}"
        if kind == "node":
            extra = f" attempt {d['attempt']}" if d.get("attempt", 1) > 1 else ""
            return f"node {self._c('node', _t(d.get('node')))}{extra}"
        if kind == "hook":
            return self._c("mw", f"{_t(d.get('middleware'))}.{_t(d.get('hook'))}")
        if kind == "wrapper":
            tool = f" ({_t(d['tool'])})" if d.get("tool") else ""
            return self._c("mw", f"{_t(d.get('middleware'))}.{_t(d.get('wrapper'))}") + tool
        if kind == "attempt":
            n, top = d.get("attempt"), d.get("max_attempts")
            return self._c("mw", _t(d.get("middleware"))) + (
                f" attempt {n}/{top}" if top else f" attempt {n}"
            )
        if kind == "model":
            return f"model {_t(d.get('model'))}"
        if kind == "tool":
            return f"tool {_t(d.get('tool'))}"
        return _t(ev.kind)

    def _opener_detail(self, ev: EventBase) -> str:
        d = ev.__dict__
        k = ev.kind
        if k == "run.started":
            parts = [" (resumed)" if d.get("resumed") else ""]
            if ev.thread_id:
                parts.append(f"  thread {_t(ev.thread_id)}")
            if d.get("input") is not None and not d.get("resumed"):
                parts.append(f"  input {_input_summary(d['input'])}")
            return "".join(parts)
        if k == "superstep.started":
            names = [
                t.get("node") if isinstance(t, dict) else getattr(t, "node", "?")
                for t in d.get("tasks") or []
            ]
            return ": " + ", ".join(_t(n) for n in names) if names else ""
        if k == "model.request":
            tools = d.get("tools") or []
            return self._c("dim", f"  {d.get('messages_count', 0)} messages, {len(tools)} tools")
        if k == "tool.started":
            return "  " + summarize(d.get("args"), 60)
        return ""

    def _closer_detail(self, ev: EventBase) -> tuple[str, Any]:
        """The text after the label, and the duration in ms (or None)."""
        d = ev.__dict__
        k = ev.kind
        err = d.get("error")
        err_text = ""
        if err:
            e = err if isinstance(err, dict) else getattr(err, "__dict__", {})
            err_text = f" {_t(e.get('type'))}: {_t(headline(str(e.get('message', ''))))}".rstrip()
        if k == "attempt.finished":
            status = d.get("outcome", "ok")
            tail = ""
            if status == "error":
                if d.get("fallback_model"):
                    tail = f", falling back to {_t(d['fallback_model'])}"
                elif d.get("will_retry"):
                    delay = d.get("delay_s")
                    tail = (
                        f", retrying in {delay:.1f} s"
                        if isinstance(delay, int | float)
                        else ", retrying"
                    )
                else:
                    tail = ", giving up"
            return f"{self._mark(status)}{err_text}{self._c('warn', tail)}", d.get("duration_ms")
        if k == "model.response":
            status = "error" if err else "ok"
            body = err_text if err else " " + _message_summary(d.get("message"))
            note = None if err else stop_note(d.get("message"))
            if note:  # the reply is not what the model meant to say whole
                body += f" ⚠ {note}"
            return f"{self._mark(status)}{body}", d.get("latency_ms")
        if k == "tool.finished":
            status = d.get("status", "success")
            result = d.get("result")
            body = err_text
            if isinstance(result, dict) and {"update", "goto", "resume"} <= set(result):
                update = result.get("update")
                keys = (
                    ", ".join(map(_t, update))
                    if isinstance(update, dict)
                    else summarize(update, 40)
                )
                body = f" Command(update: {keys})"
            elif not err and result is not None:
                body = " " + summarize(
                    result.get("content")
                    if isinstance(result, dict) and "content" in result
                    else result
                )
            return f"{self._mark(status)}{body}", d.get("duration_ms")
        if k == "wrapper.finished":
            calls = d.get("handler_calls", 1)
            extra = (
                f" ({calls} calls)"
                if calls and calls > 1
                else (" (short-circuit)" if calls == 0 else "")
            )
            return f"{self._mark(d.get('outcome', 'ok'))}{err_text}{extra}", d.get("duration_ms")
        if k == "hook.finished":
            extra = ""
            if d.get("jump_to"):
                extra += f" jump_to {_t(d['jump_to'])}"
            update = d.get("update")
            if isinstance(update, dict) and update:
                extra += f" update {', '.join(map(_t, update))}"
            outcome = "error" if err else d.get("outcome", "ok")
            word = " interrupted" if outcome == "interrupted" else ""
            return f"{self._mark(outcome)}{word}{err_text}{extra}", d.get("duration_ms")
        status = d.get("status", "ok")
        word = (
            f" {_t(status)}"
            if k == "run.finished" or (status not in _OK and status != "error")
            else ""
        )
        return f"{self._mark(status)}{word}{err_text}", d.get("duration_ms")

    def _point(self, ev: EventBase) -> str | None:
        d = ev.__dict__
        k = ev.kind
        if k == "route":
            to = ["END" if t == "__end__" else _t(t) for t in d.get("to") or []]
            to += [f"Send({_t(s.get('node'))})" for s in d.get("sends") or []]
            reason = _t(d.get("reason"))
            return f"→ route {_t(d.get('from_node'))} → {', '.join(to) or 'END'} ({reason})"
        if k == "state.updated":
            parts = []
            for ch in d.get("changes") or []:
                op = ch.get("op")
                channel = _t(ch.get("channel"))
                if op == "append":
                    parts.append(f"{channel} +{len(ch.get('appended') or [])}")
                elif op == "set":
                    parts.append(f"{channel} = {summarize(ch.get('value'), 40)}")
                else:
                    parts.append(f"{channel} {_t(op)}")
            return self._c(
                "dim", "Δ state " + summarize_text("; ".join(parts) or "(no change)", 160)
            )
        if k == "checkpoint.saved":
            nxt = ", ".join(map(_t, d.get("next") or [])) or "END"
            return self._c(
                "dim", f"◆ checkpoint step {ev.step} ({_t(d.get('source'))}) next: {nxt}"
            )
        if k == "interrupt.raised":
            if d.get("static"):
                return self._c("warn", f"⏸ interrupt {_t(d['static'])} {_t(d.get('node'))}")
            return self._c(
                "warn", f"⏸ interrupt in {_t(d.get('node'))}: {summarize(d.get('value'), 80)}"
            )
        if k == "interrupt.resumed":
            value = summarize(d.get("value"), 60)
            node = f"{_t(d.get('node'))} " if d.get("node") else ""
            return self._c("warn", f"▶ resume {node}with {value}")
        if k == "middleware.action":
            return (
                "• "
                + self._c("mw", _t(d.get("middleware")))
                + f" {_t(d.get('action'))} {summarize(d.get('detail'), 70)}"
            )
        if k == "custom":
            return f"• custom {_t(d.get('node'))}: {summarize(d.get('data'), 70)}"
        if k == "store.access":
            from engine.store import access_summary

            return self._c("dim", "• " + _t(access_summary(dict(d))))
        if k == "plan.step":
            extra = "".join(f" {_t(x)}" for x in (d.get("code"), d.get("message")) if x)
            att = f" attempt {d['attempt']}" if d.get("attempt", 1) > 1 else ""
            name, status = _t(d.get("name")), _t(d.get("status"))
            return f"• plan step {d.get('index')} {name}: {status}{att}{extra}"
        if k == "model.token":
            return f"· {summarize(d.get('text'), 70)}" if self.tokens else None
        if k == "loop.detected":
            return self._c(
                "err", f"⟳ loop detected in {d.get('node') or 'the run'}: {d.get('detail')}"
            )
        if k == "debug.paused":
            bp = f": {_t(d['breakpoint'])}" if d.get("breakpoint") else ""
            at = _t(d.get("at_kind"))
            return self._c("warn", f"⏸ paused ({_t(d.get('reason'))}{bp}) at {at}")
        if k == "debug.resumed":
            return self._c("dim", f"▶ {_t(d.get('command'))}")
        return f"• {_t(k)}"

    # -- lines ---------------------------------------------------------------------------------

    def line(self, ev: EventBase) -> str | None:
        """The line for one event (None for events that are not printed)."""
        text = self._line(ev)
        return None if text is None else styled_safe(text)  # a field missed: still not obeyed

    def _line(self, ev: EventBase) -> str | None:
        k = ev.kind
        if k in SPAN_OPENERS and ev.span_id:
            depth = self._depth_of(ev.parent_span_id) + 1
            label = self._label(ev)
            self._spans[ev.span_id] = (depth, label)
            return f"{self.indent * depth}┌ {label}{self._opener_detail(ev)}"
        if k in SPAN_CLOSERS and ev.span_id:
            opened = self._spans.pop(ev.span_id, None)
            if opened is not None:
                self._closed[ev.span_id] = opened[0]
                if len(self._closed) > _CLOSED_KEPT:
                    self._closed.popitem(last=False)
            depth, label = (
                opened if opened else (self._depth_of(ev.parent_span_id) + 1, self._label(ev))
            )
            detail, ms = self._closer_detail(ev)
            t = self._time(ms)
            return f"{self.indent * depth}└ {label} {detail}" + (f"  {t}" if t else "")
        text = self._point(ev)
        if text is None:
            return None
        return f"{self.indent * (self._depth_of(ev.parent_span_id) + 1)}{text}"


def render_events(events: Iterable[EventBase], *, color: bool = False, times: bool = True) -> str:
    """The whole tree of a list of events, as text (one line per printed event)."""
    r = TreeRenderer(color=color, times=times)
    lines = [line for ev in events if (line := r.line(ev)) is not None]
    return "\n".join(lines) + ("\n" if lines else "")
