"""Nested runs (a subgraph, a graph a tool invokes) as handles with projections of their own.

``NestedRunTracker`` follows ``tasks`` events: the first task seen in a namespace one level
below its scope starts a nested run; the result of the parent task that namespace names
(``"<node>:<task id>"``) ends it. Each tracked run gets a child mux built from the same
transformer factories, scoped to its namespace, fed every event of that namespace and below.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

from engine.graph.run_stream.channel import StreamChannel
from engine.graph.run_stream.mux import StreamMux
from engine.graph.run_stream.protocol import ProtocolEvent, StreamTransformer

__all__ = ["NestedRunTracker", "SubgraphRunStream", "SubgraphStatus", "SubgraphTransformer"]

SubgraphStatus = Literal["started", "completed", "failed", "interrupted"]


def _segment(segment: str) -> tuple[str, str | None]:
    """``"node:task_id"`` -> ``("node", "task_id")``."""
    name, sep, task_id = segment.partition(":")
    return name, (task_id or None) if sep else None


def tool_call_id_of(task_input: Any) -> str | None:
    """The tool call a task runs: a tool-node push task's input carries it."""
    if isinstance(task_input, dict) and isinstance(task_input.get("tool_call"), dict):
        cid = task_input["tool_call"].get("id")
        return cid if isinstance(cid, str) else None
    if isinstance(task_input, dict) and task_input.get("type") == "tool_call":
        cid = task_input.get("id")
        return cid if isinstance(cid, str) else None
    if isinstance(task_input, list):
        for tc in task_input:
            if isinstance(tc, dict) and isinstance(tc.get("id"), str):
                return tc["id"]
    return None


class SubgraphRunStream:
    """A nested run: iterate it for its protocol events; its projections by name
    (``handle.messages``, ``handle.tool_calls``...); ``status`` once it ended."""

    def __init__(
        self, mux: StreamMux, graph_name: str | None, cause: dict[str, str] | None
    ) -> None:
        self._mux = mux
        self.namespace = list(mux.scope)
        self.graph_name = graph_name
        self.name = graph_name
        self.cause = cause
        self.status: SubgraphStatus = "started"
        self.error: str | None = None
        self._seen_terminal = False

    @property
    def extensions(self) -> dict[str, Any]:
        return dict(self._mux.extensions)

    def __getattr__(self, name: str) -> Any:
        if not name.startswith("_"):
            mux = self.__dict__.get("_mux")
            if mux is not None and name in mux.extensions:
                return mux.extensions[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __iter__(self) -> Iterator[ProtocolEvent]:
        return iter(self._mux.events)

    def __aiter__(self) -> AsyncIterator[ProtocolEvent]:
        return aiter(self._mux.events)

    def _end(self, status: SubgraphStatus, error: BaseException | str | None = None) -> None:
        if self._seen_terminal:
            return
        self._seen_terminal = True
        self.status = status
        if isinstance(error, BaseException):
            self.error = str(error)
            self._mux.fail(error)
        else:
            self.error = error
            self._mux.finalize()


class NestedRunTracker(StreamTransformer):
    """Base of the transformers that surface nested runs: subclasses choose which runs to
    track (``_track``) and what to make of one (``_started``)."""

    required_stream_modes = ("tasks",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._tool_calls: dict[str, str] = {}
        self._seen: set[tuple[str, ...]] = set()
        self._open: dict[tuple[str, ...], SubgraphRunStream] = {}
        self._early: dict[tuple[str, ...], list[ProtocolEvent]] = {}

    def _track(self, ns: tuple[str, ...], metadata: dict[str, Any]) -> bool:
        return True

    def _started(self, handle: SubgraphRunStream) -> None:
        raise NotImplementedError

    def _graph_name(self, ns: tuple[str, ...], metadata: dict[str, Any]) -> str | None:
        return _segment(ns[-1])[0] or None

    def process(self, event: ProtocolEvent) -> bool:
        ns = tuple(event["params"]["namespace"])
        depth = len(self.scope)
        if len(ns) <= depth or ns[:depth] != self.scope:
            if event["method"] == "tasks" and ns == self.scope:
                self._own_task(event["params"]["data"])
            return True
        child = ns[: depth + 1]
        data = event["params"]["data"]
        if child not in self._seen:
            # the nested run's first task tells what it is; what came before (its input
            # values) waits for that, then goes to its handle
            starts = event["method"] == "tasks" and isinstance(data, dict) and "result" not in data
            if not (starts and ns == child):
                self._early.setdefault(child, []).append(event)
                return True
            self._seen.add(child)
            early = self._early.pop(child, [])
            metadata = data.get("metadata") or {}
            if self._track(child, metadata):
                handle = self._start(child, metadata)
                for e in early:
                    handle._mux.process(e)
        handle = self._open.get(child)
        if handle is not None:
            handle._mux.process(event)
        return True

    def _own_task(self, data: Any) -> None:
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            return
        if "result" not in data:
            cid = tool_call_id_of(data.get("input"))
            if cid is not None:
                self._tool_calls[data["id"]] = cid
            return
        for ns, handle in list(self._open.items()):
            if _segment(ns[-1])[1] == data["id"]:
                del self._open[ns]
                if data.get("error") is not None:
                    handle._end("failed", data["error"])
                elif data.get("interrupts"):
                    handle._end("interrupted")
                else:
                    handle._end("completed")

    def _start(self, ns: tuple[str, ...], metadata: dict[str, Any]) -> SubgraphRunStream:
        mux = self._stream_mux.make_child(ns)  # type: ignore[attr-defined]
        trigger = _segment(ns[-1])[1]
        call_id = self._tool_calls.get(trigger) if trigger is not None else None
        cause = {"type": "toolCall", "tool_call_id": call_id} if call_id else None
        handle = SubgraphRunStream(mux, self._graph_name(ns, metadata), cause)
        self._open[ns] = handle
        self._started(handle)
        return handle

    def finalize(self) -> None:
        self._early.clear()
        for handle in self._open.values():
            handle._end("completed")
        self._open.clear()

    def fail(self, err: BaseException) -> None:
        for handle in self._open.values():
            handle._end("failed", err)
        self._open.clear()


class SubgraphTransformer(NestedRunTracker):
    """``run.subgraphs``: a handle for every nested run one level below this scope."""

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[SubgraphRunStream] = StreamChannel()

    def init(self) -> dict[str, Any]:
        return {"subgraphs": self._log}

    def _started(self, handle: SubgraphRunStream) -> None:
        self._log.push(handle)
