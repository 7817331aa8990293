"""Events to trace spans, following OpenTelemetry's GenAI semantic conventions (no SDK here).

``SpanBuilder`` turns a run's events into ``SpanData`` as its spans close: one trace per run
(``run > superstep > node > hook / wrapper > attempt > model call / tool call``, the parents of
our events' ``parent_span_id``), with wall-clock times taken from each event's monotonic clock
anchored at the run's first event.  Point events (routes, checkpoints, interrupts, middleware
actions, store operations) become events of the span they happened in.

Names and attributes:

- run: ``invoke_agent {graph}``, ``gen_ai.operation.name=invoke_agent``, ``gen_ai.agent.name``,
  ``gen_ai.conversation.id`` (the thread);
- model call: ``chat {model}`` (kind CLIENT), ``gen_ai.provider.name``,
  ``gen_ai.request.model``, ``gen_ai.response.model``, ``gen_ai.usage.input_tokens`` /
  ``output_tokens``, ``gen_ai.response.finish_reasons``, request parameters
  (``gen_ai.request.temperature``...), and the content as recorded:
  ``gen_ai.system_instructions``, ``gen_ai.input.messages``, ``gen_ai.output.messages``,
  ``gen_ai.tool.definitions`` (JSON text);
- tool call: ``execute_tool {tool}``, ``gen_ai.tool.name``, ``gen_ai.tool.call.id``,
  ``gen_ai.tool.call.arguments`` / ``result``;
- the rest (supersteps, nodes, hooks, wrappers, attempts) are ``stepwise.*`` spans.

Content is what the recorder kept (its redaction already applied); nothing else is added.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.events import SPAN_CLOSERS, SPAN_OPENERS, EventBase
from engine.otel.genai import (
    AttrValue,
    json_text,
    model_request_attrs,
    model_response_attrs,
    provider_of,
)

__all__ = [
    "SpanBuilder",
    "SpanData",
    "SpanEvent",
    "provider_of",
    "span_id_bytes",
    "spans_from_events",
    "trace_id_bytes",
]

Kind = Literal["internal", "client"]
Status = Literal["unset", "ok", "error"]

_POINT_KINDS = frozenset(
    {
        "route",
        "checkpoint.saved",
        "interrupt.raised",
        "interrupt.resumed",
        "middleware.action",
        "custom",
        "debug.paused",
        "debug.resumed",
        "plan.step",
        "store.access",
    }
)


@dataclass
class SpanEvent:
    name: str
    time_ns: int
    attributes: dict[str, AttrValue] = field(default_factory=dict)


@dataclass
class SpanData:
    """One finished span, SDK-free (``engine.otel.sdk`` turns it into the SDK's span)."""

    name: str
    trace_key: str
    """The run id: one trace per run."""
    span_key: str
    parent_key: str | None
    start_ns: int
    end_ns: int
    kind: Kind = "internal"
    attributes: dict[str, AttrValue] = field(default_factory=dict)
    status: Status = "unset"
    status_message: str | None = None
    events: list[SpanEvent] = field(default_factory=list)

    @property
    def trace_id(self) -> int:
        return trace_id_bytes(self.trace_key)

    @property
    def span_id(self) -> int:
        return span_id_bytes(self.trace_key, self.span_key)

    @property
    def parent_id(self) -> int | None:
        return None if self.parent_key is None else span_id_bytes(self.trace_key, self.parent_key)


def trace_id_bytes(run_id: str) -> int:
    """A stable 128-bit trace id for a run (the same run exports to the same trace)."""
    value = int.from_bytes(hashlib.blake2b(run_id.encode(), digest_size=16).digest(), "big")
    return value or 1


def span_id_bytes(run_id: str, span_key: str) -> int:
    """A stable 64-bit span id (our span ids are unique within a run)."""
    digest = hashlib.blake2b(f"{run_id}/{span_key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") or 1


class _Open:
    __slots__ = ("attrs", "events", "kind", "name", "opener", "parent", "start_ns")

    def __init__(self, opener: EventBase, parent: str | None, start_ns: int) -> None:
        self.opener = opener
        self.parent = parent
        self.start_ns = start_ns
        self.name = opener.kind
        self.kind: Kind = "internal"
        self.attrs: dict[str, AttrValue] = {}
        self.events: list[SpanEvent] = []


class SpanBuilder:
    """Feed events in ``seq`` order (``add``); get each span when it closes, and the spans
    still open (a run that never finished) from ``finish``."""

    def __init__(self) -> None:
        self._open: dict[tuple[str, str], _Open] = {}
        self._anchor: dict[str, tuple[int, int]] = {}
        """run id -> (wall ns, monotonic ns) of its first event."""
        self._last: dict[str, int] = {}
        self._tokens: dict[tuple[str, str], int] = {}
        self._requests: dict[tuple[str, int], tuple[list[Any] | None, list[Any] | None]] = {}
        """(run, seq) of a model.request -> its whole message list and tool schemas, for the
        requests after it that only carry what changed (``messages_base``)."""

    def _time(self, ev: EventBase) -> int:
        run = ev.run_id
        anchor = self._anchor.get(run)
        wall = int(ev.ts * 1e9)
        if anchor is None or not ev.mono_ns or not anchor[1]:
            if anchor is None:
                self._anchor[run] = (wall, ev.mono_ns)
            t = wall
        else:
            t = anchor[0] + (ev.mono_ns - anchor[1])
        self._last[run] = max(self._last.get(run, t), t)
        return t

    def add(self, ev: EventBase) -> list[SpanData]:
        t = self._time(ev)
        kind = ev.kind
        run = ev.run_id
        if kind in SPAN_OPENERS and ev.span_id:
            op = _Open(ev, ev.parent_span_id, t)
            self._describe_open(op, ev)
            self._open[(run, ev.span_id)] = op
            return []
        if kind == "run.finished" and not ev.ns:  # its requests cannot be continued now
            for key in [k for k in self._requests if k[0] == run]:
                del self._requests[key]
        if kind in SPAN_CLOSERS and ev.span_id:
            op = self._open.pop((run, ev.span_id), None)
            if op is None:
                return []
            return [self._close(op, ev, t)]
        if kind == "model.token" and ev.span_id:
            key = (run, ev.span_id)
            self._tokens[key] = self._tokens.get(key, 0) + 1
            return []
        if kind in _POINT_KINDS:
            target = self._open.get((run, ev.parent_span_id or ""))
            if target is not None:
                target.events.append(SpanEvent(kind, t, _point_attrs(ev)))
        return []

    def finish(self) -> list[SpanData]:
        """Close what never closed, at its run's last event (marked ``stepwise.unfinished``)."""
        out = []
        for (run, _sid), op in list(self._open.items()):
            span = self._close(op, None, self._last.get(run, op.start_ns))
            span.attributes["stepwise.unfinished"] = True
            out.append(span)
        self._open.clear()
        return out

    # -- describing ---------------------------------------------------------------------------

    def _describe_open(self, op: _Open, ev: EventBase) -> None:
        f = ev.__dict__
        a = op.attrs
        a["stepwise.seq"] = ev.seq
        if ev.step is not None:
            a["stepwise.step"] = ev.step
        if ev.ns:
            a["stepwise.ns"] = ev.ns
        kind = ev.kind
        if kind == "run.started":
            graph = str(f.get("graph") or "graph")
            op.name = f"invoke_agent {graph}"
            a["gen_ai.operation.name"] = "invoke_agent"
            a["gen_ai.agent.name"] = graph
            a["stepwise.run_id"] = ev.run_id
            if ev.thread_id:
                a["gen_ai.conversation.id"] = ev.thread_id
            a["stepwise.resumed"] = bool(f.get("resumed"))
        elif kind == "superstep.started":
            op.name = f"superstep {ev.step}"
            tasks = [
                getattr(t, "node", None) or (t.get("node") if isinstance(t, Mapping) else "")
                for t in f.get("tasks") or ()
            ]
            a["stepwise.tasks"] = [str(t) for t in tasks]
        elif kind == "node.started":
            op.name = f"node {f.get('node')}"
            a["stepwise.node"] = str(f.get("node"))
            a["stepwise.task_id"] = str(f.get("task_id"))
            a["stepwise.attempt"] = int(f.get("attempt") or 1)
        elif kind == "hook.started":
            op.name = f"{f.get('middleware')}.{f.get('hook')}"
            a["stepwise.middleware"] = str(f.get("middleware"))
            a["stepwise.hook"] = str(f.get("hook"))
        elif kind == "wrapper.started":
            op.name = f"{f.get('middleware')}.{f.get('wrapper')}"
            a["stepwise.middleware"] = str(f.get("middleware"))
            a["stepwise.wrapper"] = str(f.get("wrapper"))
            if f.get("tool"):
                a["gen_ai.tool.name"] = str(f["tool"])
        elif kind == "attempt.started":
            op.name = f"attempt {f.get('attempt')} ({f.get('middleware')})"
            a["stepwise.middleware"] = str(f.get("middleware"))
            a["stepwise.attempt"] = int(f.get("attempt") or 1)
            if f.get("max_attempts") is not None:
                a["stepwise.max_attempts"] = int(f["max_attempts"])
        elif kind == "model.request":
            op.name = model_request_attrs(self._whole_request(ev), op.attrs)
            op.kind = "client"
        elif kind == "tool.started":
            tool = str(f.get("tool"))
            op.name = f"execute_tool {tool}"
            a["gen_ai.operation.name"] = "execute_tool"
            a["gen_ai.tool.name"] = tool
            a["gen_ai.tool.type"] = "function"
            if f.get("tool_call_id"):
                a["gen_ai.tool.call.id"] = str(f["tool_call_id"])
            if f.get("args") is not None:
                a["gen_ai.tool.call.arguments"] = json_text(f["args"])

    def _whole_request(self, ev: EventBase) -> dict[str, Any]:
        """The request's fields with its whole message list and tools: a request recorded as
        a continuation of an earlier one (``messages_base``, ``messages_reused``,
        ``tool_schemas_reused``) is joined to it; when the earlier one is unknown the list is
        left out (the last messages stand in)."""
        f = dict(ev.__dict__)
        own = f.get("messages")
        base = self._requests.get((ev.run_id, f.get("messages_base") or -1))
        reused = int(f.get("messages_reused") or 0)
        messages: list[Any] | None = list(own) if isinstance(own, list) else None
        if messages is not None and reused:
            earlier = base[0] if base is not None else None
            messages = None if earlier is None else [*earlier[:reused], *messages]
        tools = f.get("tool_schemas")
        if tools is None and f.get("tool_schemas_reused") and base is not None:
            tools = base[1]
        self._requests[(ev.run_id, ev.seq)] = (messages, tools)
        f["messages"] = messages
        f["tool_schemas"] = tools
        return f

    def _close(self, op: _Open, end: EventBase | None, t: int) -> SpanData:
        opener = op.opener
        attrs = op.attrs
        status: Status = "unset"
        message: str | None = None
        f = end.__dict__ if end is not None else {}
        error = f.get("error")
        if error is not None:
            etype = getattr(error, "type", None) or (
                error.get("type") if isinstance(error, Mapping) else None
            )
            emsg = getattr(error, "message", None) or (
                error.get("message") if isinstance(error, Mapping) else None
            )
            status, message = "error", f"{etype}: {emsg}"
            attrs["error.type"] = str(etype or "_OTHER")
        kind = end.kind if end is not None else ""
        if kind == "run.finished":
            attrs["stepwise.status"] = str(f.get("status"))
            if f.get("status") == "error" and status != "error":
                status = "error"
            elif f.get("status") == "done":
                status = "ok"
        elif kind in ("superstep.finished", "node.finished"):
            attrs["stepwise.status"] = str(f.get("status"))
            if kind == "node.finished" and f.get("cached"):
                attrs["stepwise.cached"] = True
            if f.get("status") == "error":
                status = "error"
        elif kind == "hook.finished":
            if f.get("jump_to"):
                attrs["stepwise.jump_to"] = str(f["jump_to"])
            if f.get("outcome") == "interrupted":  # the hook the run waits at
                attrs["stepwise.outcome"] = "interrupted"
        elif kind == "wrapper.finished":
            attrs["stepwise.outcome"] = str(f.get("outcome"))
            attrs["stepwise.handler_calls"] = int(f.get("handler_calls") or 0)
        elif kind == "attempt.finished":
            attrs["stepwise.outcome"] = str(f.get("outcome"))
            attrs["stepwise.will_retry"] = bool(f.get("will_retry"))
            if f.get("delay_s") is not None:
                attrs["stepwise.retry_delay_s"] = float(f["delay_s"])
            if f.get("fallback_model"):
                attrs["stepwise.fallback_model"] = str(f["fallback_model"])
        elif kind == "model.response":
            model_response_attrs(f, attrs)
        elif kind == "tool.finished":
            attrs["stepwise.tool_status"] = str(f.get("status"))
            if f.get("status") == "error":
                status = "error"
                message = message or "the tool returned an error"
                attrs.setdefault("error.type", "tool_error")
            if f.get("result") is not None:
                attrs["gen_ai.tool.call.result"] = json_text(f["result"])
        if opener.span_id is not None:
            tokens = self._tokens.pop((opener.run_id, opener.span_id), 0)
            if tokens:
                attrs["stepwise.streamed_chunks"] = tokens
        return SpanData(
            name=op.name,
            trace_key=opener.run_id,
            span_key=str(opener.span_id),
            parent_key=op.parent,
            start_ns=op.start_ns,
            end_ns=max(t, op.start_ns),
            kind=op.kind,
            attributes=attrs,
            status=status,
            status_message=message,
            events=op.events,
        )


def _point_attrs(ev: EventBase) -> dict[str, AttrValue]:
    f = ev.__dict__
    a: dict[str, AttrValue] = {"stepwise.seq": ev.seq}
    if ev.checkpoint_id:
        a["stepwise.checkpoint_id"] = ev.checkpoint_id
    kind = ev.kind
    if kind == "route":
        a["stepwise.from"] = str(f.get("from_node"))
        a["stepwise.to"] = [str(t) for t in f.get("to") or ()]
        a["stepwise.reason"] = str(f.get("reason"))
    elif kind == "checkpoint.saved":
        a["stepwise.source"] = str(f.get("source"))
        a["stepwise.next"] = [str(n) for n in f.get("next") or ()]
    elif kind in ("interrupt.raised", "interrupt.resumed"):
        if f.get("interrupt_id"):
            a["stepwise.interrupt_id"] = str(f["interrupt_id"])
        if f.get("value") is not None:
            a["stepwise.value"] = json_text(f["value"])
    elif kind == "middleware.action":
        a["stepwise.middleware"] = str(f.get("middleware"))
        a["stepwise.action"] = str(f.get("action"))
        if f.get("detail"):
            a["stepwise.detail"] = json_text(f["detail"])
    elif kind == "store.access":
        a["stepwise.store.op"] = str(f.get("op"))
        a["stepwise.store.namespace"] = [str(x) for x in f.get("namespace") or ()]
        if f.get("key") is not None:
            a["stepwise.store.key"] = str(f["key"])
        if f.get("found") is not None:
            a["stepwise.store.found"] = bool(f["found"])
        if f.get("op") in ("search", "list_namespaces"):
            a["stepwise.store.hits"] = int(f.get("hit_count") or 0)
    elif kind == "custom" and f.get("data") is not None:
        a["stepwise.data"] = json_text(f["data"])
    return a


def spans_from_events(events: Iterable[EventBase]) -> list[SpanData]:
    """Every span of ``events`` (in ``seq`` order), the unfinished ones closed at the end."""
    builder = SpanBuilder()
    out: list[SpanData] = []
    for ev in events:
        out.extend(builder.add(ev))
    out.extend(builder.finish())
    return out
