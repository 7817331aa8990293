"""How a run's loop hands chunks to ``astream`` consumers (the stream modes of spec section 9)."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import threading
import uuid
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel as PydanticModel

from engine.checkpoint.base import INTERRUPT
from engine.core.foreign import is_foreign_message
from engine.graph.algo import RETURN, is_internal_channel
from engine.graph.channels import BaseChannel
from engine.graph.subgraph_state import with_checkpoint_map
from engine.messages import BaseMessage

_PREVIOUS = "__previous__"
"""An entrypoint's saved value for its next run (``engine.func.constants.PREVIOUS``): not part
of what a task result shows, as LangGraph streams only the output channel."""


TASK_METADATA_MODE = "__task_metadata__"
"""Not a stream of its own: a run streaming it gets each task's metadata on its ``tasks`` start
chunk (how ``stream_events(version="v3")`` tells which nested run is which agent)."""

if TYPE_CHECKING:
    from engine.checkpoint.base import CheckpointMetadata
    from engine.graph.algo import Task
    from engine.graph.compiled import CompiledStateGraph
    from engine.graph.runtime import RunContext

__all__ = ["TASK_METADATA_MODE", "LoopStreaming"]


def _result_of(writes: list[tuple[str, Any]]) -> dict[str, Any]:
    """A task's writes as LangGraph's ``tasks`` stream shows them: ``{channel: value}``, and
    ``{channel: {"$writes": [...]}}`` for a channel written more than once."""
    out: dict[str, Any] = {}
    multi: set[str] = set()
    for c, v in writes:
        if c not in out:
            out[c] = v
        elif c in multi:
            out[c]["$writes"].append(v)
        else:
            out[c] = {"$writes": [out[c], v]}
            multi.add(c)
    return out


def _input_message_ids(value: Any) -> set[str]:
    """The ids of the messages in a task's input (a state dict, model or dataclass; messages
    ours or langchain_core's, in a list or a message log)."""
    fields = value if isinstance(value, dict) else getattr(value, "__dict__", {})
    ids: set[str] = set()
    for v in fields.values() if isinstance(fields, dict) else ():
        if isinstance(v, str | bytes | dict) or not isinstance(v, Sequence):
            continue
        ids.update(
            m.id
            for m in v
            if (isinstance(m, BaseMessage) or is_foreign_message(m)) and isinstance(m.id, str)
        )
    return ids


def _is_message(value: Any) -> bool:
    return isinstance(value, BaseMessage) or is_foreign_message(value)


def _messages_in(value: Any) -> list[Any]:
    """``value`` if it is a message, else the messages among its items (a sequence)."""
    if _is_message(value):
        return [value]
    if isinstance(value, str | bytes | dict) or not isinstance(value, Sequence):
        return []
    return [m for m in value if _is_message(m)]


def _result_messages(value: Any) -> list[Any]:
    """The messages of a whole result: itself, its items, or its top-level fields' (each a
    message or a sequence of them)."""
    if _is_message(value) or (isinstance(value, Sequence) and not isinstance(value, str | bytes)):
        return _messages_in(value)
    if isinstance(value, dict):
        fields: Any = value.values()
    elif isinstance(value, PydanticModel):
        fields = [getattr(value, k) for k in type(value).model_fields]
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = [getattr(value, f.name) for f in dataclasses.fields(value)]
    else:
        return []
    return [m for f in fields for m in _messages_in(f)]


class LoopStreaming:
    """Mixin of ``PregelLoop``: ``values``/``updates``/``tasks``/``checkpoints``/``debug``/
    ``messages`` chunks, pushed only when someone streams that mode."""

    run: RunContext
    graph: CompiledStateGraph
    ns: str
    step: int
    _loop_thread: int
    _aio_loop: asyncio.AbstractEventLoop
    channels: dict[str, BaseChannel]
    pending_writes: list[tuple[str, str, Any]]
    thread_id: str | None

    def _push(self, mode: str, chunk: Any) -> None:
        run = self.run
        if run.stream is None:
            return
        if mode in run.stream_modes:
            run.stream(mode, chunk, self.ns)
        if mode in ("tasks", "checkpoints") and "debug" in run.stream_modes:
            kind = (
                "checkpoint"
                if mode == "checkpoints"
                else ("task_result" if "result" in chunk else "task")
            )
            run.stream(
                "debug",
                {
                    "step": chunk["metadata"]["step"] if mode == "checkpoints" else self.step,
                    "timestamp": dt.datetime.now(dt.UTC).isoformat(),
                    "type": kind,
                    "payload": chunk,
                },
                self.ns,
            )

    def push_threadsafe(self, mode: str, chunk: Any) -> None:
        if threading.get_ident() == self._loop_thread:
            self._push(mode, chunk)
        else:
            self._aio_loop.call_soon_threadsafe(self._push, mode, chunk)

    def push_task_start(self, task: Task) -> None:
        if self.run.stream is not None and "messages" in self.run.stream_modes:
            # a message a task was given is not news when it comes back in its output (a
            # subgraph returning its whole history): the messages stream skips it
            given = task.input
            if task.is_call and isinstance(given, tuple) and len(given) == 2:
                # a task call's arguments, as LangGraph's ``{parameter: value}`` input
                args, kwargs = given
                given = {**dict(enumerate(args)), **kwargs}
            self.run.streamed_message_ids.update(_input_message_ids(given))
        if self.run.stream is not None and not task.node.hidden:
            chunk: dict[str, Any] = {
                "id": task.id,
                "name": task.name,
                "input": task.node.callback_input(task.input)
                if task.node.callback_input is not None and task.kind == "pull"
                else task.input,
                "triggers": task.public_triggers,
            }
            if self.run.wants(TASK_METADATA_MODE):
                chunk["metadata"] = self.task_config(task)["metadata"]
            self._push("tasks", chunk)

    def push_cached_result(self, task: Task) -> None:
        """A task whose writes were saved before (a resumed step): its update, marked cached."""
        if self.run.stream is None or task.node.hidden or "updates" not in self.run.stream_modes:
            return
        writes = [(c, v) for c, v in task.writes if c in self.graph.spec.channels]
        update: dict[str, Any] | None = dict(writes) if writes else None
        self._push("updates", {task.name: update, "__metadata__": {"cached": True}})

    def push_task_result(
        self,
        task: Task,
        error: BaseException | None,
        interrupts: Any = (),
        interrupted: bool = False,
        cached: bool = False,
    ) -> None:
        run = self.run
        if run.stream is None or task.node.hidden:
            return
        if error is None and not interrupts and not interrupted:
            update: Any
            if task.node.update_key is not None:
                key = task.node.update_key
                update = next((v for c, v in task.writes if c == key), None)
            else:
                update = self._update_chunk(task.writes)
            chunk: dict[str, Any] = {task.name: update}
            if cached:
                chunk["__metadata__"] = {"cached": True}
            elif "messages" in run.stream_modes:  # as LangGraph's: when the node ends, before
                self._push_final_messages(task)  # its update
            self._push("updates", chunk)
        elif interrupts:
            self._push("updates", {"__interrupt__": tuple(interrupts)})
            if "values" in run.stream_modes:
                values = self._values()
                if isinstance(values, dict):
                    self._push("values", {**values, "__interrupt__": tuple(interrupts)})
                else:
                    self._push("values", {"__interrupt__": tuple(interrupts)})
        if cached:
            # served from the cache: the node did not run, so (as in LangGraph) neither its
            # messages nor a task result are streamed, only its update
            return
        self._push(
            "tasks",
            {
                "id": task.id,
                "name": task.name,
                "error": error,
                "result": (
                    {c: v for c, v in task.writes if not c.startswith("branch:") and c != _PREVIOUS}
                    if task.node.writer is not None
                    else _result_of(
                        [(c, v) for c, v in task.writes if c in self.graph.spec.channels]
                    )
                ),
                "interrupts": [
                    {"value": i.value, "id": i.id, "response_schema": i.response_schema}
                    for i in interrupts
                ],
            },
        )

    def _update_chunk(self, writes: list[tuple[str, Any]]) -> Any:
        """A task's ``updates`` chunk, as LangGraph shapes it: ``{key: value}``; a list of
        one-key dicts when a key was written more than once; the bare value (or a list of
        them) for a single-value state; None when nothing was written."""
        spec = getattr(self.graph, "stream_spec", None) or self.graph.spec
        single = "__root__" if "__root__" in spec.channels else getattr(spec, "single", None)
        parts: list[Any]
        if single is not None:
            parts = [v for c, v in writes if c == single]
        else:
            keys: Any = spec.channels
            if getattr(self.graph, "stream_spec", None) is None:
                # the state's keys and those only a node's input schema declares
                keys = {k for k in self.graph.channels if not is_internal_channel(k)}
            mine = [(c, v) for c, v in writes if c in keys]
            counts = Counter(c for c, _ in mine)
            if any(n > 1 for n in counts.values()):
                parts = [{c: v} for c, v in mine]
            else:
                parts = [dict(mine)] if mine else []
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else parts

    def _push_final_messages(self, task: Task) -> None:
        """The messages a task returned that were not streamed already (token by token, or as
        the input of a task of this run), as LangGraph finds them in a node's output: each
        value written to the state that is a message or a sequence of them; in a whole result
        (a task call's or an entrypoint's return value, what it saved, a single-value state)
        the result itself, or its items, or its top-level fields."""
        meta: dict[str, Any] | None = None
        spec = self.graph.spec
        whole = {RETURN, _PREVIOUS, spec.result_key}
        for c, v in task.writes:
            if c in whole:
                found = _result_messages(v)
            elif c in spec.channels:
                found = _messages_in(v)
            else:
                continue
            for m in found:
                if m.id in self.run.streamed_message_ids:
                    continue
                if not m.id:  # the id add_messages would give it, given now
                    m.id = str(uuid.uuid4())
                self.run.streamed_message_ids.add(m.id)
                if meta is None:
                    meta = self.task_config(task)["metadata"]
                self._push("messages", (m, meta))

    def wants_checkpoints(self) -> bool:
        modes = self.run.stream_modes
        return self.run.stream is not None and ("checkpoints" in modes or "debug" in modes)

    def push_checkpoint(
        self,
        config: dict[str, Any],
        parent_config: dict[str, Any] | None,
        metadata: CheckpointMetadata,
        upcoming: list[Task],
    ) -> None:
        """A ``checkpoints`` chunk: the checkpoint, the tasks it will run (with the interrupts
        those are waiting on, when it is a resumed one)."""
        if not self.wants_checkpoints():
            return
        waiting: dict[str, list[dict[str, Any]]] = {}
        for tid, c, v in self.pending_writes:
            if c == INTERRUPT:
                waiting[tid] = [
                    {"value": i.value, "id": i.id, "response_schema": i.response_schema} for i in v
                ]
        self._push(
            "checkpoints",
            {
                "config": with_checkpoint_map(config, metadata),
                "parent_config": with_checkpoint_map(parent_config, metadata),
                "values": self._values(),
                "metadata": metadata,
                "next": [t.name for t in upcoming],
                "tasks": [
                    {
                        "id": t.id,
                        "name": t.name,
                        "interrupts": tuple(waiting.get(t.id, ())),
                        "state": self._task_state_config(t),
                    }
                    for t in upcoming
                ],
            },
        )

    def _task_state_config(self, task: Task) -> dict[str, Any] | None:
        """Where a task that runs a subgraph keeps that subgraph's checkpoints."""
        if not task.node.subgraphs or self.thread_id is None:
            return None
        ns = f"{self.ns}|{task.name}:{task.id}" if self.ns else f"{task.name}:{task.id}"
        return {"configurable": {"thread_id": self.thread_id, "checkpoint_ns": ns}}

    def _stream_keys(self) -> list[str]:
        spec = getattr(self.graph, "stream_spec", None)
        if spec is not None:
            return spec.key_list
        keys: list[str] | None = getattr(self.graph, "stream_keys", None)
        return self.graph.output_keys if keys is None else keys

    def _values(self) -> Any:
        spec = getattr(self.graph, "stream_spec", None)
        if spec is None:
            spec, keys = self.graph.spec, self._stream_keys()
        else:
            keys = spec.key_list
        return spec.present(
            {k: self.channels[k].get() for k in keys if self.channels[k].is_available()}
        )

    if TYPE_CHECKING:  # provided by PregelLoop or the other mixin

        def task_config(self, task: Task) -> dict[str, Any]:  # pragma: no cover - PregelLoop's
            ...
