"""``astream_events(..., version="v1" | "v2")``: a run as LangChain's event dicts.

Without ``version``, ``astream_events`` yields the engine's own events (``engine.events``, what
the studio and the CLI read).  With ``version="v1"`` or ``"v2"`` it yields what LangChain's
``Runnable.astream_events`` yields for a graph, so code written against it runs unchanged::

    {"event": "on_chain_start" | "on_chain_stream" | "on_chain_end"
              | "on_chat_model_start" | "on_chat_model_stream" | "on_chat_model_end",
     "name": ..., "run_id": ..., "parent_ids": [...], "tags": [...], "metadata": {...},
     "data": {"input": ...} | {"chunk": ...} | {"output": ...}}

The graph is one run (named after it); its node tasks, a subgraph's tasks and functional-API
task calls are runs below it (from the callback tree, ``engine.observe.callbacks``).  The graph's
``on_chain_stream`` chunks are its ``updates``; a task's is its output, just before its end.
Chat-model events come from the ``messages`` stream: a model's reply starts at its first
token, streams token by token (a reply given whole streams none) and ends when the task that
called it ends; their input is the messages the model was given, when its caller told them.
A tool run by an agent's tools node starts and ends as a tool run below its task
(``on_tool_start`` / ``on_tool_end``, told through ``engine.core.context.TOOL_RUNS``).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import TYPE_CHECKING, Any

from engine.core.aio import cancel_quietly
from engine.core.context import MODEL_RUNS, TOOL_RUNS
from engine.observe.callbacks import _PARENT_RUN, BaseCallbackHandler

if TYPE_CHECKING:
    from engine.graph.compiled import CompiledStateGraph

__all__ = ["astream_langchain_events"]

Event = dict[str, Any]


class _Collector(BaseCallbackHandler):
    """Turns the run's callback tree into event dicts, in the order things happen."""

    def __init__(self, emit: Any, version: str) -> None:
        self.emit = emit
        self.version = version
        self.parents: dict[uuid.UUID, uuid.UUID | None] = {}
        self.info: dict[uuid.UUID, tuple[str, list[str], dict[str, Any]]] = {}
        self.root: uuid.UUID | None = None
        self.hidden: set[uuid.UUID] = set()
        """Runs the event stream leaves out (the graph's input task)."""
        self.inputs: dict[uuid.UUID, Any] = {}
        """Task runs' inputs, named again at their end."""
        self.models: dict[uuid.UUID, list[_Reply]] = {}
        """Per task run: the chat-model replies streamed in it so far."""
        self.model_runs: dict[str, tuple[str, list[str], list[Any] | None]] = {}
        """Chat-model reply (message id) -> its run's name and tags (``note_model``)."""

    def note_model(
        self, message_id: str, name: str, tags: list[str], messages: list[Any] | None = None
    ) -> None:
        """The run name and tags of the chat-model reply ``message_id`` and the messages the
        model was given (told by whoever streams it, before its chunks:
        ``engine.core.context.MODEL_RUNS``)."""
        self.model_runs[message_id] = (name, tags, messages)

    def tool_started(
        self, name: str, args: Any, call_id: str | None
    ) -> Callable[[Any, BaseException | None], None]:
        """A tool of the running task starts (``engine.core.context.TOOL_RUNS``): its
        ``on_tool_start``; the returned callable gives its ``on_tool_end`` (or, given an
        error, its ``on_tool_error``)."""
        owner = _PARENT_RUN.get()
        if owner not in self.info:
            owner = self.root
        over: dict[str, Any] = {
            "name": name,
            "event_run_id": uuid.uuid4(),
            "parent": owner,
            "tags": ["seq:step:1"],
        }
        if owner is None:
            return lambda _output, _error=None: None
        self.emit(self.event("on_tool_start", owner, {"input": args}, **over))

        def ended(output: Any, error: BaseException | None = None) -> None:
            if error is None:
                data = {"output": output, "input": args}
                self.emit(self.event("on_tool_end", owner, data, **over))
            else:
                data = {"error": error, "input": args, "tool_call_id": call_id}
                self.emit(self.event("on_tool_error", owner, data, **over))

        return ended

    def parent_ids(self, run_id: uuid.UUID | None) -> list[str]:
        out: list[str] = []
        while run_id is not None:
            out.append(str(run_id))
            run_id = self.parents.get(run_id)
        return out[::-1]

    def event(self, kind: str, run_id: uuid.UUID, data: dict[str, Any], **over: Any) -> Event:
        name, tags, metadata = self.info.get(run_id, ("", [], {}))
        return {
            "event": kind,
            "name": over.get("name", name),
            "run_id": str(over.get("event_run_id", run_id)),
            "parent_ids": self.parent_ids(self.parents.get(run_id))
            if "parent" not in over
            else self.parent_ids(over["parent"]),
            "tags": list(over.get("tags", tags)),
            "metadata": dict(over.get("metadata", metadata)),
            "data": data,
        }

    # -- the callback tree ---------------------------------------------------------------

    def on_chain_start(
        self,
        serialized: Any,
        inputs: Any,
        *,
        run_id: uuid.UUID,
        parent_run_id: uuid.UUID | None = None,
        **kwargs: Any,
    ) -> None:
        self.parents[run_id] = parent_run_id
        name = str(kwargs.get("name") or "chain")
        tags = list(kwargs.get("tags") or [])
        metadata = dict(kwargs.get("metadata") or {})
        if parent_run_id is None and self.root is None:
            self.root = run_id
            metadata.setdefault("ls_integration", "langgraph")
        elif name == "__start__" and "langgraph_step" in metadata:
            self.hidden.add(run_id)  # LangGraph's input task is hidden from the event stream
            return
        elif "langgraph_step" in metadata:  # a task: tagged with its step, as LangGraph's
            tags.append(f"graph:step:{metadata['langgraph_step']}")
            self.inputs[run_id] = inputs
        self.info[run_id] = (name, tags, metadata)
        self.emit(self.event("on_chain_start", run_id, {"input": inputs}))

    def on_chain_end(self, outputs: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        if run_id in self.hidden:
            return
        self._close_models(run_id)
        if run_id != self.root:
            self.emit(self.event("on_chain_stream", run_id, {"chunk": outputs}))
        data: dict[str, Any] = {"output": outputs}
        if run_id in self.inputs:  # a task's end names its input too, as LangGraph's does
            data["input"] = self.inputs.pop(run_id)
        self.emit(self.event("on_chain_end", run_id, data))

    def on_chain_error(self, error: BaseException, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        self._close_models(run_id)  # LangChain's event stream has no error events

    # -- the streams ---------------------------------------------------------------------

    def root_chunk(self, chunk: Any) -> None:
        if self.root is not None:
            self.emit(self.event("on_chain_stream", self.root, {"chunk": chunk}))

    def model_chunk(self, chunk: Any, metadata: dict[str, Any], task_run: uuid.UUID | None) -> None:
        owner = task_run if task_run in self.info else self.root
        if owner is None:
            return
        replies = self.models.setdefault(owner, [])
        msg_id = str(getattr(chunk, "id", None) or "")
        reply = next((r for r in replies if r.message_id == msg_id), None)
        if reply is None and replies and getattr(chunk, "chunk_position", None) == "last":
            # the closing chunk langchain_core adds may carry its run's id rather than the
            # reply's: it ends the reply streaming in this task
            self.model_runs.pop(msg_id, None)
            reply = replies[-1]
        if reply is None:
            noted = self.model_runs.pop(msg_id, None)
            if noted is None:
                # no model call said it streams this reply: a message a node returned (or
                # pushed), which LangChain's events show as no chat model run
                return
            name, tags, messages = noted
            reply = _Reply(msg_id, str(uuid.uuid4()), name, metadata, tags)
            if messages is not None:
                reply.input = {"messages": [list(messages)]}
            replies.append(reply)
            start = {"input": reply.input if reply.input is not None else {}}
            self.emit(self._model_event("on_chat_model_start", owner, reply, start))
        reply.total = chunk if reply.total is None else reply.total + chunk
        if type(chunk).__name__.endswith("Chunk"):  # a reply given whole streams no chunk
            self.emit(self._model_event("on_chat_model_stream", owner, reply, {"chunk": chunk}))

    def _model_event(
        self, kind: str, owner: uuid.UUID, reply: _Reply, data: dict[str, Any]
    ) -> Event:
        over: dict[str, Any] = {} if reply.tags is None else {"tags": reply.tags}
        return self.event(
            kind,
            owner,
            data,
            name=reply.name,
            event_run_id=reply.run_id,
            parent=owner,
            metadata=reply.metadata,
            **over,
        )

    def _close_models(self, owner: uuid.UUID) -> None:
        for reply in self.models.pop(owner, []):
            total = reply.total
            output = total.to_message() if hasattr(total, "to_message") else total
            data: dict[str, Any] = {"output": output}
            if reply.input is not None:
                data["input"] = reply.input
            self.emit(self._model_event("on_chat_model_end", owner, reply, data))


class _Reply:
    """One chat-model reply seen on the ``messages`` stream."""

    def __init__(
        self,
        message_id: str,
        run_id: str,
        name: str,
        metadata: dict[str, Any],
        tags: list[str] | None = None,
    ):
        self.message_id = message_id
        self.run_id = run_id
        self.name = name
        self.metadata = metadata
        self.tags = tags
        """The model run's own tags (None: unknown, its task's are shown)."""
        self.total: Any = None
        self.input: dict[str, Any] | None = None
        """``{"messages": [[...]]}``: what the model was given, when its caller told it."""


def event_filter(
    *,
    include_names: Sequence[str] | None = None,
    include_types: Sequence[str] | None = None,
    include_tags: Sequence[str] | None = None,
    exclude_names: Sequence[str] | None = None,
    exclude_types: Sequence[str] | None = None,
    exclude_tags: Sequence[str] | None = None,
) -> Callable[[Event], bool]:
    """LangChain's ``astream_events`` filters: with any ``include_*``, an event is kept when
    its run's name, type (``chain``, ``chat_model``, ``tool``...) or a tag is included; then
    any ``exclude_*`` match drops it."""
    includes = (include_names, include_types, include_tags)

    def keep(event: Event) -> bool:
        name = event.get("name")
        kind = str(event.get("event", "")).removeprefix("on_").rsplit("_", 1)[0]
        tags = list(event.get("tags") or [])
        ok = all(x is None for x in includes)
        if include_names is not None:
            ok = ok or name in include_names
        if include_types is not None:
            ok = ok or kind in include_types
        if include_tags is not None:
            ok = ok or any(t in include_tags for t in tags)
        if exclude_names is not None:
            ok = ok and name not in exclude_names
        if exclude_types is not None:
            ok = ok and kind not in exclude_types
        if exclude_tags is not None:
            ok = ok and not any(t in exclude_tags for t in tags)
        return ok

    return keep


async def astream_langchain_events(
    graph: CompiledStateGraph, input: Any, config: dict[str, Any] | None, version: str, **kw: Any
) -> AsyncGenerator[Event, None]:
    """The run's events as LangChain's ``astream_events`` dicts (see the module docstring)."""
    if version not in ("v1", "v2"):
        raise NotImplementedError(f"astream_events version {version!r}: use 'v1' or 'v2'")
    queue: asyncio.Queue[Any] = asyncio.Queue()
    done = object()
    collector = _Collector(queue.put_nowait, version)
    cfg = dict(config or {})
    callbacks = cfg.get("callbacks")
    handlers = list(callbacks) if isinstance(callbacks, list | tuple) else []
    if callbacks is not None and not isinstance(callbacks, list | tuple):
        handlers = [callbacks]
    cfg["callbacks"] = [*handlers, collector]

    def sink(mode: str, chunk: Any, ns: str) -> None:
        if mode == "updates" and not ns:
            collector.root_chunk(chunk)
        elif mode == "messages":
            message, metadata = chunk
            collector.model_chunk(message, dict(metadata or {}), _PARENT_RUN.get())

    async def runner() -> None:
        MODEL_RUNS.set(collector.note_model)  # this task's own context: the run inherits it
        TOOL_RUNS.set(collector.tool_started)
        try:
            await graph._arun(input, cfg, stream=sink, stream_modes=["updates", "messages"], **kw)
        finally:
            queue.put_nowait(done)

    task = asyncio.ensure_future(runner())
    try:
        while True:
            item = await queue.get()
            if item is done:
                break
            yield item
        await task
    finally:
        await cancel_quietly(task)
