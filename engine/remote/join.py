"""Watching a run another client started on a server thread (``RemoteTarget.join``).

If a run is going on on the thread, its stream is joined from its first event (a resumable run
replays what it already did; another one shows what comes from now on); else the thread is
watched until the next run starts there, and that run is followed to its end.  The events are
ours, through the same translator as our own runs, inside the same run lifecycle, so a joined
run is recorded and shown like any other.  Nothing is gated (we do not control that run); the
debugger's ``stop`` stops watching and leaves the run alone.  A joined run only shows what its
client asked the server to stream (``debug`` for nodes, ``events`` for model and tool calls).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from engine.core.ids import new_run_id
from engine.events import EventBase, InterruptRaised
from engine.observe.bus import EventBus, RunEmitter, stream_run
from engine.observe.run_span import run_span
from engine.remote.run import _View, check_end, server_thread_id
from engine.remote.translate import StreamTranslator
from engine.remote.values import from_server
from engine.targets.base import RunRequest
from engine.targets.graph_run import GraphRun

if TYPE_CHECKING:
    from engine.debug.debugger import Debugger
    from engine.observe.gate import Gate
    from engine.remote.target import RemoteTarget

__all__ = ["JoinRunner", "JoinedRun"]


class JoinRunner:
    """``astream_events`` of a joined run (see module docstring)."""

    def __init__(self, target: RemoteTarget, thread_id: str) -> None:
        self.target = target
        self.thread_id = thread_id
        self.server_run: str | None = None

    async def astream_events(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        debugger: Gate | None = None,
        **_: Any,
    ) -> AsyncIterator[EventBase]:
        run_id = str((config or {}).get("run_id") or new_run_id())
        async for ev in stream_run(lambda bus: self._arun(run_id, debugger, bus)):
            yield ev

    async def _going_on(self, thread: str) -> str | None:
        for status in ("running", "pending"):
            runs = await self.target.client.runs(thread, status=status)
            if runs:
                return str(runs[0]["run_id"])
        return None

    async def _arun(self, run_id: str, debugger: Gate | None, local: EventBus) -> Any:
        target = self.target
        thread = server_thread_id(self.thread_id)
        em = RunEmitter(run_id, self.thread_id, [target.bus, local], None)
        em.active = True
        tr = StreamTranslator(em, target.announced, target.mirrors)
        tr.begin(())
        running = await self._going_on(thread)
        async with run_span(
            em,
            _View(run_id, tr),
            graph=target.name,
            input=None,
            resumed=True,
            config={
                "thread_id": self.thread_id,
                "server": target.client.display_url,
                "assistant_id": target.assistant.assistant_id,
                "server_thread_id": thread,
                "joined": running or "next run",
            },
            gate=debugger,
        ) as span:
            try:
                if running is not None:
                    parts = target.client.join_run(thread, running)
                else:
                    parts = target.client.join_thread(thread)
                async for part in parts:
                    if part.mode == "metadata" and isinstance(part.data, dict):
                        if part.data.get("status") == "run_done":
                            break
                        if running is not None and part.data.get("run_id") not in (None, running):
                            continue
                    await tr.part(part)
                self.server_run = tr.server_run_id or running
                await check_end(target, tr, thread, self.server_run)
                if tr.next and not tr.interrupts:  # stopped at its client's breakpoint
                    for node in tr.next:
                        fields: dict[str, Any] = {"node": node, "static": "before"}
                        await em.emit(InterruptRaised, parent_span_id=run_id, **fields)
                        tr.interrupts.append(InterruptRaised(run_id=run_id, **fields))
                await tr.close("interrupted" if tr.interrupts else "ok")
            except BaseException:
                await tr.close("cancelled")
                raise
            span.interrupted = bool(tr.interrupts)
            span.output = from_server(tr.values)
        return span.output


class JoinedRun(GraphRun):
    """A ``RunHandle`` on a joined run: iterate it for the run's events."""

    def __init__(self, target: RemoteTarget, thread_id: str, debugger: Debugger | None) -> None:
        from engine.debug import Debugger

        super().__init__(
            JoinRunner(target, thread_id), RunRequest(None, thread_id), debugger or Debugger()
        )
