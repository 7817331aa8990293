"""``run_span``: the start and the end of one run, written once for every runtime.

The embedded engine (``engine.graph.compiled``) and attach mode (``engine.attach.graph``) both
run inside it; it takes the lease on the thread, tells the debugger's gate the run began and
ended, emits ``run.started`` and ``run.finished``, and turns the ways a run can end into one
status: ``done``, ``interrupted`` (the runtime says so with ``RunSpan.interrupted``),
``cancelled`` (a cancelled task, or the debugger's stop: then ``RunStopped`` is raised), or
``error`` (any other exception, re-raised after ``run.finished``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from engine.errors import RunStopped
from engine.events import ErrorInfo, RunFinished, RunStarted
from engine.observe.bus import CURRENT_SPAN, RunEmitter
from engine.observe.gate import Gate, RunView
from engine.serde import to_jsonable

__all__ = ["RunSpan", "ThreadLease", "run_span"]

STOPPED = "The run was stopped; the last checkpoint is intact."


class ThreadLease(Protocol):
    """A saver that lets one run at a time write a thread (``engine.checkpoint`` savers)."""

    def acquire_thread(self, thread_id: str, run_id: str) -> None: ...

    def release_thread(self, thread_id: str, run_id: str) -> None: ...


@dataclass
class RunSpan:
    """What the runtime reports back from inside ``run_span``."""

    run_id: str
    output: Any = None
    interrupted: bool = False


@asynccontextmanager
async def run_span(
    emitter: RunEmitter,
    view: RunView,
    *,
    graph: str,
    input: Any,
    resumed: bool,
    config: Mapping[str, Any],
    gate: Gate | None = None,
    lease: ThreadLease | None = None,
) -> AsyncIterator[RunSpan]:
    """Run the body as one run (see module docstring)."""
    run_id, thread_id = emitter.run_id, emitter.thread_id
    if lease is not None and thread_id is not None:
        lease.acquire_thread(thread_id, run_id)
    span = RunSpan(run_id)
    if gate is not None:
        gate.run_began(view, asyncio.current_task())
    t0 = time.perf_counter()
    status, error = "done", None
    token = CURRENT_SPAN.set(run_id)
    try:
        if emitter.active:
            await emitter.emit(
                RunStarted,
                span_id=run_id,
                parent_span_id=None,
                graph=graph,
                input=to_jsonable(input, max_str=4000, max_items=20),
                resumed=resumed,
                config=dict(config),
            )
        yield span
        if span.interrupted:
            status = "interrupted"
    except (asyncio.CancelledError, RunStopped) as exc:
        status = "cancelled"
        if isinstance(exc, asyncio.CancelledError) and gate is not None and gate.stop_requested:
            raise RunStopped(STOPPED) from None
        raise
    except BaseException as exc:
        status, error = "error", exc
        raise
    finally:
        CURRENT_SPAN.reset(token)
        if lease is not None and thread_id is not None:
            lease.release_thread(thread_id, run_id)
        if gate is not None:
            gate.run_ended(view)
        if emitter.active:
            await emitter.emit_ungated(
                RunFinished,
                span_id=run_id,
                parent_span_id=None,
                status=status,  # type: ignore[arg-type]
                output=None
                if status == "error"
                else to_jsonable(span.output, max_str=2000, max_items=20),
                error=ErrorInfo.from_exception(error, with_traceback=True) if error else None,
                duration_ms=(time.perf_counter() - t0) * 1000,
                step=None,
            )
