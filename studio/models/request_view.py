"""What a model call was sent, rebuilt from the events, for the Request view (plain Python).

``RequestIndex`` is fed the events (every ``model.request`` and ``model.response``, indexed by
run and seq, by span and by the span they nest in).  ``request_for(ev)`` finds the request of a
selected event: the call itself, its response, or the one model call made in an attempt,
wrapper or node.  ``document(req)`` is the request as one JSON document (model, parameters,
tool choice, messages with the system prompt first, tools with their JSON schemas, the
structured-output schema); ``as_text(doc)`` the same for reading.  A session recorded before
requests were kept in full has only the last messages: the document says so (``complete``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from engine.events import SPAN_OPENERS, EventBase, ModelRequest, ModelResponse
from engine.graph.drawing import DrawableGraph
from engine.observe.request_log import resolve

__all__ = ["RequestIndex", "as_text", "document", "unbound_tools"]


class RequestIndex:
    """Model calls by run and seq, by span, and by the spans they were made in."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._by_seq: dict[tuple[str, int], ModelRequest] = {}
        self._by_span: dict[str, ModelRequest] = {}
        self._responses: dict[str, ModelResponse] = {}
        self._parents: dict[str, str | None] = {}
        self._within: dict[str, list[ModelRequest]] = {}
        """Span -> the model calls made inside it (at any depth; at most two kept)."""

    def add_all(self, events: Iterable[EventBase]) -> None:
        for ev in events:
            kind = ev.kind
            if kind in SPAN_OPENERS and ev.span_id:
                self._parents[ev.span_id] = ev.parent_span_id
            if isinstance(ev, ModelRequest):
                self._by_seq[(ev.run_id, ev.seq)] = ev
                if ev.span_id:
                    self._by_span[ev.span_id] = ev
                self._note_within(ev)
            elif isinstance(ev, ModelResponse) and ev.span_id:
                self._responses[ev.span_id] = ev

    def _note_within(self, ev: ModelRequest) -> None:
        span = ev.parent_span_id
        for _ in range(64):
            if span is None:
                return
            calls = self._within.setdefault(span, [])
            if len(calls) < 2:
                calls.append(ev)
            span = self._parents.get(span)

    def find(self, run_id: str, seq: int) -> ModelRequest | None:
        return self._by_seq.get((run_id, seq))

    def response(self, request: ModelRequest) -> ModelResponse | None:
        return self._responses.get(request.span_id or "")

    def request_for(self, ev: EventBase | None) -> ModelRequest | None:
        """The model call a selected event stands for: the call, its response, or the one
        call made inside a selected attempt, wrapper or node (None: none, or several)."""
        if ev is None:
            return None
        if isinstance(ev, ModelRequest):
            return ev
        if ev.span_id and ev.span_id in self._by_span:  # its response, or a token
            return self._by_span[ev.span_id]
        calls = self._within.get(ev.span_id or "", [])
        return calls[0] if len(calls) == 1 else None


def document(request: ModelRequest, index: RequestIndex) -> dict[str, Any]:
    """The request as one JSON document (see the module docstring)."""
    messages, tools = resolve(request, lambda seq: index.find(request.run_id, seq))
    complete = messages is not None
    if messages is None:
        messages = list(request.last_messages or [])
    response = index.response(request)
    answered_by = response.model_name if response is not None else None
    params = {**(request.params or {}), **(request.settings or {})}
    doc: dict[str, Any] = {
        "model": request.model,
        "parameters": params,
        "tool_choice": request.tool_choice,
        "messages": messages,
        "tools": tools if tools is not None else [{"name": n} for n in request.tools or []],
    }
    if answered_by and answered_by != request.model:
        doc["answered_by"] = answered_by
    if request.response_format or request.response_schema is not None:
        doc["structured_output"] = {
            "name": request.response_format,
            "schema": request.response_schema,
        }
    if request.streaming:
        doc["streaming"] = True
    if not complete:
        doc["complete"] = False
        doc["note"] = (
            f"Recorded before requests were kept in full: the last {len(messages)} of "
            f"{request.messages_count} messages, tool names only."
        )
    return doc


def unbound_tools(request: ModelRequest, graph: DrawableGraph | None) -> list[str]:
    """The tools of the graph's tool node when a model call made in that graph carried none
    ([] otherwise): an agent's tools that did not reach its model, as with a model whose
    ``bind_tools`` returns itself (LangChain's fake chat models do)."""
    if request.tools or request.ns or graph is None:
        return []
    nodes = [n for n in graph.nodes.values() if n.kind == "tools"]
    if len(nodes) != 1:
        return []
    names = nodes[0].metadata.get("tools")
    return [str(n) for n in names] if isinstance(names, (list, tuple)) else []


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            else:
                parts.append(json.dumps(part, ensure_ascii=False, default=str))
        return "\n".join(parts)
    return json.dumps(content, ensure_ascii=False, default=str)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str, separators=(", ", ": "))


def _message_text(message: Any) -> list[str]:
    if not isinstance(message, dict):
        return [f"── {type(message).__name__} ──", str(message)]
    kind = str(message.get("type") or message.get("role") or "message")
    head = f"── {kind}"
    if message.get("name"):
        head += f" {message['name']}"
    if message.get("tool_call_id"):
        head += f" [{message['tool_call_id']}]"
    if message.get("status") == "error":
        head += " (error)"
    lines = [head + " ──"]
    text = _content_text(message.get("content"))
    if text:
        lines.append(text)
    for call in message.get("tool_calls") or ():
        if isinstance(call, dict):
            lines.append(f"→ {call.get('name')}({_compact(call.get('args'))})  [{call.get('id')}]")
    for call in message.get("invalid_tool_calls") or ():
        if isinstance(call, dict):
            lines.append(
                f"→ invalid call {call.get('name')}: {call.get('args')!s} ({call.get('error')})"
            )
    return lines


def as_text(doc: dict[str, Any]) -> str:
    """The request for reading: settings first, then the messages, then the tools."""
    lines = [f"model: {doc.get('model')}"]
    if doc.get("answered_by"):
        lines.append(f"answered by: {doc['answered_by']}")
    params = doc.get("parameters") or {}
    lines.append(
        "parameters: " + (", ".join(f"{k}={_compact(v)}" for k, v in params.items()) or "(none)")
    )
    if doc.get("tool_choice") is not None:
        lines.append(f"tool_choice: {_compact(doc['tool_choice'])}")
    if doc.get("streaming"):
        lines.append("streaming: yes")
    if doc.get("note"):
        lines.append(f"note: {doc['note']}")
    messages = doc.get("messages") or []
    lines += ["", f"═══ messages ({len(messages)}) ═══"]
    for m in messages:
        lines += _message_text(m)
    tools = doc.get("tools") or []
    lines += ["", f"═══ tools ({len(tools)}) ═══"]
    for t in tools:
        if not isinstance(t, dict):
            lines.append(str(t))
            continue
        desc = f": {t['description']}" if t.get("description") else ""
        lines.append(f"{t.get('name')}{desc}")
        if t.get("parameters") is not None:
            schema = json.dumps(t["parameters"], indent=2, ensure_ascii=False, default=str)
            lines += ["  " + line for line in schema.splitlines()]
    structured = doc.get("structured_output")
    if structured:
        lines += ["", "═══ structured output ═══"]
        if structured.get("name"):
            lines.append(str(structured["name"]))
        if structured.get("schema") is not None:
            lines += json.dumps(
                structured["schema"], indent=2, ensure_ascii=False, default=str
            ).splitlines()
    return "\n".join(lines) + "\n"
