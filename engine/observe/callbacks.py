"""Run callbacks: LangChain-style handlers passed as ``config["callbacks"]`` see each node run.

Our own record of a run is its event stream (``engine.events``); this is the bridge for code
written against LangChain's callback protocol. A graph run is one run (named after the
graph) whose child runs are its node tasks; a subgraph's tasks and a functional-API task's
calls are children of the task that ran them.  Each handler in ``config["callbacks"]`` gets
``on_chain_start(serialized, inputs, run_id=..., parent_run_id=..., name=...)`` and then
``on_chain_end(outputs, run_id=...)`` or ``on_chain_error(error, run_id=...)``.

``BaseTracer`` turns those calls into ``Run`` records (``_on_chain_start(run)``,
``_on_chain_end(run)``, ``_on_chain_error(run)``, and ``_persist_run(run)`` once a top-level
run ends). Tracers see payloads through the node's trace policy (``engine.observe.tracing``: a
middleware hook's policy, or the process default); plain handlers see the real values.

Handlers fail open: an exception in one is logged and never breaks the run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import uuid
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from engine.observe.tracing import TracePolicy, traced_value

__all__ = ["BaseCallbackHandler", "BaseTracer", "NodeRunCallbacks", "Run", "handlers_from"]

LOGGER = logging.getLogger(__name__)

_PARENT_RUN: ContextVar[uuid.UUID | None] = ContextVar("stepwise_parent_run", default=None)
"""The run (graph or task) that runs started here are children of."""


class BaseCallbackHandler:
    """Receives run notifications; override the ``on_*`` methods you need."""

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: uuid.UUID,
        parent_run_id: uuid.UUID | None = None,
        **kwargs: Any,
    ) -> Any:
        return None

    def on_chain_end(
        self,
        outputs: Any,
        *,
        run_id: uuid.UUID,
        parent_run_id: uuid.UUID | None = None,
        **kwargs: Any,
    ) -> Any:
        return None

    def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: uuid.UUID,
        parent_run_id: uuid.UUID | None = None,
        **kwargs: Any,
    ) -> Any:
        return None


@dataclass
class Run:
    """One traced run (a node task)."""

    id: uuid.UUID
    name: str
    inputs: Any
    run_type: str = "chain"
    outputs: Any = None
    error: str | None = None
    parent_run_id: uuid.UUID | None = None
    child_runs: list[Run] = field(default_factory=list)
    start_time: datetime = field(default_factory=lambda: datetime.now(UTC))
    end_time: datetime | None = None
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    trace_id: uuid.UUID | None = None
    """The id of the top-level run of this tree."""
    dotted_order: str | None = None
    """``<start>Z<id>`` of every run from the top one down to this one, joined by dots (sorts
    a trace's runs in start order, as LangSmith's runs do)."""

    def copy(self, *, update: Mapping[str, Any] | None = None) -> Run:
        """A copy with the given fields replaced."""
        return dataclasses.replace(self, **dict(update or {}))


class BaseTracer(BaseCallbackHandler):
    """A handler that keeps ``Run`` records; subclasses implement ``_persist_run``."""

    def __init__(self) -> None:
        self.run_map: dict[str, Run] = {}

    def _persist_run(self, run: Run) -> None:
        """A top-level run ended (with its child runs)."""

    def _on_chain_start(self, run: Run) -> None: ...

    def _on_chain_end(self, run: Run) -> None: ...

    def _on_chain_error(self, run: Run) -> None: ...

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: uuid.UUID,
        parent_run_id: uuid.UUID | None = None,
        **kwargs: Any,
    ) -> Any:
        run = Run(
            id=run_id,
            name=str(kwargs.get("name") or (serialized or {}).get("name") or "chain"),
            inputs=inputs,
            parent_run_id=parent_run_id,
            tags=list(kwargs.get("tags") or []),
            metadata=dict(kwargs.get("metadata") or {}),
        )
        parent = self.run_map.get(str(parent_run_id)) if parent_run_id else None
        level = f"{run.start_time:%Y%m%dT%H%M%S%f}Z{run_id}"
        if parent is not None:
            parent.child_runs.append(run)
            run.trace_id = parent.trace_id
            run.dotted_order = f"{parent.dotted_order}.{level}"
        else:
            run.trace_id, run.dotted_order = run_id, level
        self.run_map[str(run_id)] = run
        self._on_chain_start(run)
        return run

    def on_chain_end(
        self,
        outputs: Any,
        *,
        run_id: uuid.UUID,
        parent_run_id: uuid.UUID | None = None,
        **kwargs: Any,
    ) -> Any:
        run = self.run_map.pop(str(run_id), None)
        if run is None:
            return None
        run.outputs, run.end_time = outputs, datetime.now(UTC)
        self._on_chain_end(run)
        self._ended(run)
        return run

    def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: uuid.UUID,
        parent_run_id: uuid.UUID | None = None,
        **kwargs: Any,
    ) -> Any:
        run = self.run_map.pop(str(run_id), None)
        if run is None:
            return None
        run.error, run.end_time = f"{type(error).__name__}: {error}", datetime.now(UTC)
        self._on_chain_error(run)
        self._ended(run)
        return run

    def _ended(self, run: Run) -> None:
        if run.parent_run_id is None or str(run.parent_run_id) not in self.run_map:
            self._persist_run(run)


def handlers_from(config: Mapping[str, Any] | None) -> list[Any]:
    """The handlers in ``config["callbacks"]`` (a list, one handler, or a manager's list)."""
    found = (config or {}).get("callbacks")
    if found is None:
        return []
    if isinstance(found, list | tuple):
        return list(found)
    inner = getattr(found, "handlers", None)
    return list(inner) if isinstance(inner, list) else [found]


class NodeRunCallbacks:
    """Notifies a run's handlers about one run (a graph run or a node task): start, then end
    or error.  Its parent is the run that was active where it starts (``active()``)."""

    def __init__(
        self, handlers: list[Any], name: str, policy: TracePolicy | None, config: Mapping[str, Any]
    ) -> None:
        self.handlers = handlers
        self.name = name
        self.policy = policy
        self.run_id = uuid.uuid4()
        self.parent_run_id = _PARENT_RUN.get()
        self.extra = {
            "name": name,
            "tags": list(config.get("tags") or []),
            "metadata": dict(config.get("metadata") or {}),
        }

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        """Runs started inside are this run's children."""
        token = _PARENT_RUN.set(self.run_id)
        try:
            yield
        finally:
            _PARENT_RUN.reset(token)

    def _payload(self, handler: Any, field_name: str, value: Any) -> Any:
        if not isinstance(handler, BaseTracer):
            return value  # trace policies shape what tracers record, not what handlers get
        return traced_value(self.policy, field_name, value)[1]  # type: ignore[arg-type]

    def _each(self, method: str, field_name: str | None, value: Any) -> None:
        ids = {"run_id": self.run_id, "parent_run_id": self.parent_run_id}
        for h in self.handlers:
            fn = getattr(h, method, None)
            if fn is None:
                continue
            payload = self._payload(h, field_name, value) if field_name else value
            try:
                if method == "on_chain_start":
                    fn({"name": self.name}, payload, **ids, **self.extra)
                else:
                    fn(payload, **ids, **self.extra)
            except Exception:
                LOGGER.warning("Callback %s.%s failed", type(h).__name__, method, exc_info=True)

    def start(self, inputs: Any) -> None:
        self._each("on_chain_start", "process_inputs", inputs)

    def end(self, outputs: Any) -> None:
        self._each("on_chain_end", "process_outputs", outputs)

    def error(self, exc: BaseException) -> None:
        self._each("on_chain_error", None, exc)
