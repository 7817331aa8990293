"""The what-if playground's data, without Qt: one model call's exact request, editable as JSON,
sent again to a model; and the answers it got.

``request_for(events, event, graph=...)`` rebuilds the request of a ``model.request`` event:

- messages: the event's own full list when it carries one (``messages``; a list that
  continues an earlier request's, ``messages_base`` / ``messages_reused``, is joined to it);
  else the state's messages at the call's checkpoint, read from the graph (what the model node
  was given), checked against the event's last messages; else the event's last messages only
  (``complete`` says so);
- tools: the event's schemas (``tool_schemas``) when present, else the model node's tools
  from the graph, else their names only;
- model, system prompt, tool choice and parameters (``params`` + ``settings``) from the event.

``PlaygroundRequest.to_text`` / ``parse_request`` turn it into JSON text and back (a one-line
``ValueError`` for anything wrong); ``asend`` calls a model with it; ``scripted_answer`` makes
an ``AIMessage`` from what the user typed (text, or a JSON message with ``tool_calls``).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.events import EventBase, ModelRequest, ModelResponse, NodeStarted
from engine.messages import AIMessage, BaseMessage, SystemMessage, coerce_messages
from engine.serde import to_jsonable
from studio.models.event_summary import field as member

__all__ = [
    "Answer",
    "PlaygroundRequest",
    "agent_model",
    "asend",
    "enclosing_node",
    "original_answer",
    "parse_request",
    "request_for",
    "scripted_answer",
]

_FIELDS = ("model", "system_prompt", "messages", "tools", "tool_choice", "params")


@dataclass
class PlaygroundRequest:
    model: str
    system_prompt: str | None
    messages: list[dict[str, Any]]
    tools: list[Any] = field(default_factory=list)
    """Tool schemas ``{"name", "description", "parameters"}`` (or bare names, when that is all
    that is known)."""
    tool_choice: Any = None
    params: dict[str, Any] = field(default_factory=dict)
    complete: bool = True
    """False when only the event's last messages are known (the history before is missing)."""

    def to_text(self) -> str:
        data = {
            "model": self.model,
            "system_prompt": self.system_prompt,
            "messages": self.messages,
            "tools": self.tools,
            "tool_choice": self.tool_choice,
            "params": self.params,
        }
        return json.dumps(data, indent=2, ensure_ascii=False)

    def chat_messages(self) -> list[BaseMessage]:
        """The messages to send: the system prompt first, then the conversation."""
        messages = coerce_messages(self.messages)
        if self.system_prompt:
            messages = [SystemMessage(content=self.system_prompt), *messages]
        return messages

    def tool_schemas(self) -> list[dict[str, Any]] | None:
        """The tools to bind (names alone cannot be: they are left out, said by ``missing``)."""
        schemas = [t for t in self.tools if isinstance(t, Mapping)]
        return [dict(t) for t in schemas] or None


@dataclass
class Answer:
    """One answer shown in the playground: the recorded original or one sent from it."""

    source: str
    """"Original", "scripted-coder", "Scripted answer"..."""
    message: AIMessage | None = None
    error: str | None = None
    latency_ms: float | None = None
    model: Any = None
    """The model that answered (None: the original, or a scripted answer)."""


# -- rebuilding a request ------------------------------------------------------------------------


def enclosing_node(events: Sequence[EventBase], ev: EventBase) -> str | None:
    """The graph node whose task made the call (following ``parent_span_id`` up)."""
    opened = {
        e.span_id: e
        for e in events
        if e.run_id == ev.run_id and e.span_id and e.kind.endswith(".started")
    }
    span = ev.parent_span_id
    seen = 0
    while span and seen < 64:
        parent = opened.get(span)
        if parent is None:
            return None
        if isinstance(parent, NodeStarted):
            return str(parent.node)
        span = parent.parent_span_id
        seen += 1
    return None


def _base(events: Sequence[EventBase], ev: ModelRequest, seq: int) -> ModelRequest | None:
    """The earlier request of ``ev``'s run whose messages (or tools) it reuses."""
    return next(
        (
            e
            for e in events
            if isinstance(e, ModelRequest)
            and e.run_id == ev.run_id
            and e.seq == seq
            and e is not ev
        ),
        None,
    )


def _full_messages(
    events: Sequence[EventBase], ev: ModelRequest, depth: int = 0
) -> list[Any] | None:
    """The event's own message list, joined to the earlier request it continues."""
    own = ev.messages
    if not isinstance(own, list):
        return None
    reused = int(ev.messages_reused or 0)
    base_seq = ev.messages_base
    if not reused or base_seq is None:
        return list(own)
    base = _base(events, ev, base_seq)
    if base is None or depth > 256:
        return None
    earlier = _full_messages(events, base, depth + 1)
    return None if earlier is None else [*earlier[:reused], *own]


def _tools_of(events: Sequence[EventBase], ev: ModelRequest) -> list[Any] | None:
    schemas = ev.tool_schemas
    if isinstance(schemas, list):
        return list(schemas)
    if ev.tool_schemas_reused and ev.messages_base is not None:
        base = _base(events, ev, ev.messages_base)
        if base is not None:
            return _tools_of(events, base)
    return None


def model_node(graph: Any, node: str | None) -> Any:
    """The engine ``ModelNode`` behind graph node ``node`` (None for other graphs and nodes)."""
    from engine.agents.model_node import ModelNode

    builder = getattr(graph, "builder", None)
    spec = getattr(builder, "nodes", {}).get(node) if node and builder is not None else None
    fn = getattr(spec, "fn", None)
    return fn if isinstance(fn, ModelNode) else None


def agent_model(graph: Any, node: str | None) -> Any:
    """The chat model the agent's model node calls, or None when it cannot be reached (an
    attached app, a custom node)."""
    found = model_node(graph, node)
    return None if found is None else found.model


def _state_messages(graph: Any, thread_id: str | None, checkpoint_id: str | None) -> list[Any]:
    if graph is None or not checkpoint_id or not thread_id:
        return []
    if getattr(graph, "checkpointer", None) in (None, True, False):
        return []
    try:
        snap = graph.get_state(
            {"configurable": {"thread_id": thread_id, "checkpoint_id": checkpoint_id}}
        )
    except Exception:
        return []
    values = getattr(snap, "values", None)
    msgs = values.get("messages") if isinstance(values, Mapping) else None
    return list(msgs or [])


def _compact(message: Mapping[str, Any]) -> dict[str, Any]:
    """A message as the editor shows it: empty fields left out (type and content kept)."""
    return {
        k: v for k, v in message.items() if k in ("type", "content") or v not in (None, {}, [], "")
    }


def _same_tail(full: list[dict[str, Any]], tail: list[Any]) -> bool:
    """Whether the event's last messages are the end of ``full`` (by type and text)."""
    if not tail:
        return True
    if len(tail) > len(full):
        return False

    def key(m: Any) -> tuple[Any, Any]:
        return (m.get("type"), json.dumps(m.get("content"), sort_keys=True, default=str)[:200])

    ours = [key(m) for m in full[-len(tail) :]]
    theirs = [key(m) for m in tail if isinstance(m, Mapping)]
    return ours[-len(theirs) :] == theirs if theirs else True


def request_for(
    events: Sequence[EventBase], ev: EventBase, *, graph: Any = None
) -> PlaygroundRequest:
    """The request ``ev`` (a ``model.request``) sent, as completely as can be known."""
    if not isinstance(ev, ModelRequest):
        raise ValueError(f"Not a model call: {ev.kind}")
    system = ev.system_prompt
    tail = [m for m in ev.last_messages or [] if isinstance(m, Mapping)]
    complete = True
    full = _full_messages(events, ev)
    if full is not None:
        messages = [dict(m) for m in to_jsonable(full) if isinstance(m, Mapping)]
    else:
        state = to_jsonable(_state_messages(graph, ev.thread_id, ev.checkpoint_id))
        state = [dict(m) for m in state if isinstance(m, Mapping)]
        body = [m for m in tail if m.get("type") != "system"]
        if state and _same_tail(state, body):
            messages = state
        else:
            messages = [dict(m) for m in body]
            complete = len(messages) + (1 if system else 0) >= int(ev.messages_count or 0)
    messages = [_compact(m) for m in messages]
    if system:  # the system prompt is its own field
        messages = [m for i, m in enumerate(messages) if not (i == 0 and m.get("type") == "system")]
    tools: list[Any] | None = _tools_of(events, ev)
    if tools is None:
        node = model_node(graph, enclosing_node(events, ev))
        if node is not None:
            from engine.models.base import tool_schema

            try:
                tools = [tool_schema(t) for t in node.tools]
            except (TypeError, ValueError):
                tools = None
    if tools is None:
        tools = list(ev.tools or [])
    params = {**dict(ev.params or {}), **dict(ev.settings or {})}
    params = {k: v for k, v in params.items() if v != "[redacted]"}
    return PlaygroundRequest(
        model=str(ev.model or ""),
        system_prompt=system,
        messages=messages,
        tools=tools,
        tool_choice=ev.tool_choice,
        params=params,
        complete=complete,
    )


def original_answer(events: Sequence[EventBase], ev: EventBase) -> Answer:
    """The recorded answer (or error) of the call ``ev`` opened."""
    for e in events:
        if isinstance(e, ModelResponse) and e.run_id == ev.run_id and e.span_id == ev.span_id:
            error = e.error  # an ErrorInfo, or its dict in an event built by model_construct
            if error is not None:
                etype = member(error, "type")
                emsg = member(error, "message")
                return Answer("Original", error=f"{etype}: {emsg}", latency_ms=e.latency_ms)
            message = e.message
            try:
                (ai,) = coerce_messages([message]) if message else (None,)
            except (TypeError, ValueError):
                ai = None
            if ai is not None and not isinstance(ai, AIMessage):
                ai = AIMessage(content=ai.content)
            return Answer("Original", message=ai, latency_ms=e.latency_ms)
    return Answer("Original", error="no answer was recorded (the call did not finish)")


# -- editing ---------------------------------------------------------------------------------------


def parse_request(text: str) -> PlaygroundRequest:
    """The editor's JSON back into a request; ``ValueError`` with one line when it is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"The request is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    if not isinstance(data, dict):
        raise ValueError("The request must be a JSON object with model, messages, tools, ...")
    unknown = sorted(set(data) - set(_FIELDS))
    if unknown:
        raise ValueError(f"Unknown field(s) in the request: {', '.join(unknown)}")
    messages = data.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ValueError("The request needs a non-empty 'messages' list")
    try:
        coerce_messages(messages)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"A message is not valid: {str(exc).splitlines()[0]}") from None
    tools = data.get("tools") or []
    if not isinstance(tools, list):
        raise ValueError("'tools' must be a list of tool schemas")
    params = data.get("params") or {}
    if not isinstance(params, dict):
        raise ValueError("'params' must be a JSON object (temperature, max_tokens, ...)")
    system = data.get("system_prompt")
    if system is not None and not isinstance(system, str):
        raise ValueError("'system_prompt' must be text or null")
    return PlaygroundRequest(
        model=str(data.get("model") or ""),
        system_prompt=system,
        messages=[dict(m) for m in messages],
        tools=list(tools),
        tool_choice=data.get("tool_choice"),
        params=dict(params),
    )


def _with_call_ids(message: AIMessage) -> AIMessage:
    calls = [
        {**call, "id": call.get("id") or f"call_{uuid.uuid4().hex[:24]}"}
        for call in message.tool_calls
    ]
    return message.model_copy(update={"tool_calls": calls, "id": message.id or str(uuid.uuid4())})


def scripted_answer(text: str) -> AIMessage:
    """What the user typed as the model's answer: plain text, or a JSON object such as
    ``{"content": "", "tool_calls": [{"name": "search", "args": {"q": "x"}}]}``."""
    stripped = text.strip()
    if not stripped:
        raise ValueError("Type the answer the model should give")
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"The answer looks like JSON but is not valid: {exc.msg} (column {exc.colno})"
            ) from None
        if not isinstance(data, dict):
            raise ValueError("A JSON answer must be an object with content and/or tool_calls")
        data = {k: v for k, v in data.items() if k != "type"}
        try:
            message = AIMessage(**{"content": "", **data})
        except (TypeError, ValueError) as exc:
            raise ValueError(f"Not a valid answer: {str(exc).splitlines()[0]}") from None
        return _with_call_ids(message)
    return _with_call_ids(AIMessage(content=text))


async def asend(request: PlaygroundRequest, model: Any, source: str) -> Answer:
    """Call ``model`` with ``request``; an error becomes the answer's one-line ``error``."""
    t0 = time.perf_counter()
    try:
        kwargs: dict[str, Any] = dict(request.params)
        tools = request.tool_schemas()
        if tools:
            kwargs["tools"] = tools
            if request.tool_choice is not None:
                kwargs["tool_choice"] = request.tool_choice
        reply = await model.ainvoke(request.chat_messages(), **kwargs)
    except Exception as exc:
        lines = str(exc).strip().splitlines()
        text = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
        from engine.redaction import scrub

        return Answer(source, error=scrub(text), latency_ms=(time.perf_counter() - t0) * 1000)
    if not isinstance(reply, AIMessage):
        reply = AIMessage(content=getattr(reply, "content", str(reply)))
    return Answer(
        source,
        message=_with_call_ids(reply),
        latency_ms=(time.perf_counter() - t0) * 1000,
        model=model,
    )
