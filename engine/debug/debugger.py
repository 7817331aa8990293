"""The debugger: breakpoints, stepping, stop, and fault injection.

The runtime hands every event of a run to ``Debugger.gate``.  The gate is a no-op unless a
breakpoint matches or a step is pending; then it emits ``debug.paused`` and awaits a future on
the run's event loop (it never blocks the loop: a Qt app stays responsive while paused).
While paused, the whole run waits: other tasks of the superstep stop at their next event.

    dbg = Debugger()
    dbg.break_before("tools")
    async for ev in agent.astream_events(inp, cfg, debugger=dbg, version="stepwise"): ...
    # elsewhere, when dbg.paused:  dbg.step_over() / dbg.continue_() / dbg.stop()
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from engine.debug.breakpoints import Breakpoint, FailureEchoes
from engine.errors import RunStopped
from engine.events import DebugPaused, DebugResumed, EventBase
from engine.observe.bus import RunEmitter
from engine.observe.faults import Fault, check_fault, check_fault_sync, fresh_error, injected

if TYPE_CHECKING:
    from engine.observe.gate import RunView

__all__ = ["Breakpoint", "Debugger", "Fault", "RunStopped", "check_fault", "check_fault_sync"]

Command = Literal["continue", "step_into", "step_over", "step_out", "stop"]

_STEP_OVER_STOPS = frozenset({"node.started", "interrupt.raised", "run.finished"})


class Debugger:
    """Breakpoints, stepping and fault injection for runs (see module docstring)."""

    def __init__(self) -> None:
        self.breakpoints: list[Breakpoint] = []
        self.faults: list[Fault] = []
        self.paused = False
        self.pause_reason: str | None = None
        self.current_event: EventBase | None = None
        self.current_breakpoint: Breakpoint | None = None
        self.stop_requested = False
        self._mode: Command | None = None
        self._step_out_span: str | None = None
        self._pause_requested = False
        self._resume: asyncio.Future[Command] | None = None
        self._running = asyncio.Event() if _has_loop() else None
        self._open_spans: dict[str, EventBase] = {}
        self._echoes = FailureEchoes()
        self._echo = False
        """Whether the event being gated only repeats a failure already reported."""
        self._run: RunView | None = None
        self._task: asyncio.Task[Any] | None = None
        self.on_pause: list[Callable[[Debugger], Any]] = []
        self.on_resume: list[Callable[[Debugger], Any]] = []

    @property
    def watching(self) -> bool:
        """Whether some event could stop the run now: a breakpoint is set, a step, a pause or
        a stop is asked for, or the run is paused.  While it is not, a run nobody else listens
        to builds no events at all for the debugger (it could not stop on any): an idle
        debugger costs nothing.  The span stack and the failure echoes then cover what
        happened since the debugger started watching."""
        return bool(
            self.breakpoints
            or self._pause_requested
            or self._mode is not None
            or self.stop_requested
            or self.paused
        )

    @property
    def wants_tokens(self) -> bool:
        """Whether a model call should stream its tokens for the debugger to stop on (a step
        into every event is going on, or a pause is asked for)."""
        return self._mode == "step_into" or self._pause_requested

    # -- breakpoints ---------------------------------------------------------------------------

    def add(self, bp: Breakpoint) -> Breakpoint:
        self.breakpoints.append(bp)
        return bp

    def break_before(self, node: str, *, graph: Sequence[str] | None = None) -> Breakpoint:
        """Pause before ``node`` starts.  ``graph``: only the node of that name in the graph
        those node names lead to from the root (``()``: the root graph's own node); None: in
        any graph (``Breakpoint.graph``)."""
        return self.add(Breakpoint("before_node", node, graph=_path(graph)))

    def break_after(self, node: str, *, graph: Sequence[str] | None = None) -> Breakpoint:
        """Pause once ``node`` has finished (``graph`` as for ``break_before``)."""
        return self.add(Breakpoint("after_node", node, graph=_path(graph)))

    def run_to(self, node: str, *, graph: Sequence[str] | None = None) -> Breakpoint:
        """Stop once, before ``node`` next starts ("Run to here", then continue or start the
        run): the breakpoint goes once it has stopped the run (``graph`` as for
        ``break_before``)."""
        return self.add(Breakpoint("before_node", node, once=True, graph=_path(graph)))

    def break_on_hook(
        self, middleware: str, hook: str | None = None, *, graph: Sequence[str] | None = None
    ) -> Breakpoint:
        return self.add(Breakpoint("hook", middleware, hook, graph=_path(graph)))

    def break_on_wrapper(
        self, middleware: str, wrapper: str | None = None, *, graph: Sequence[str] | None = None
    ) -> Breakpoint:
        return self.add(Breakpoint("wrapper", middleware, wrapper, graph=_path(graph)))

    def break_on_tool(self, tool: str, *, graph: Sequence[str] | None = None) -> Breakpoint:
        """Pause before ``tool`` is called (``graph`` as for ``break_before``)."""
        return self.add(Breakpoint("tool", tool, graph=_path(graph)))

    def break_on_failure(self) -> Breakpoint:
        return self.add(Breakpoint("failure"))

    def break_on_interrupt(self) -> Breakpoint:
        return self.add(Breakpoint("interrupt"))

    def break_on_loop(self) -> Breakpoint:
        """Pause where ``engine.observe.loops`` finds the run looping (``loop.detected``)."""
        return self.add(Breakpoint("loop"))

    def break_when(self, condition: Callable[[dict[str, Any]], bool] | str) -> Breakpoint:
        """Pause when ``condition`` (a predicate or a Python expression over the state) becomes true."""
        if isinstance(condition, str):
            compile(condition, "<breakpoint condition>", "eval")  # SyntaxError now, not at run time
        return self.add(Breakpoint("state", condition=condition))

    def remove(self, bp: Breakpoint | int) -> None:
        bid = bp.id if isinstance(bp, Breakpoint) else bp
        self.breakpoints = [b for b in self.breakpoints if b.id != bid]

    def clear(self) -> None:
        self.breakpoints.clear()

    # -- faults -------------------------------------------------------------------------------

    def inject_model_error(
        self, error: BaseException | None = None, *, times: int = 1, model: str | None = None
    ) -> Fault:
        """The next ``times`` model calls raise ``error`` (default: TimeoutError)."""
        f = Fault(
            "model",
            model,
            error or TimeoutError("Injected model timeout (Stepwise debugger)"),
            times,
        )
        self.faults.append(f)
        return f

    def inject_tool_error(
        self, tool: str, error: BaseException | None = None, *, times: int = 1
    ) -> Fault:
        """The next ``times`` calls of tool ``tool`` raise ``error`` (default: OSError)."""
        f = Fault(
            "tool",
            tool,
            error or OSError(f"Injected failure of tool '{tool}' (Stepwise debugger)"),
            times,
        )
        self.faults.append(f)
        return f

    def take_fault(self, kind: str, name: str | None) -> BaseException | None:
        for f in self.faults:
            if f.kind == kind and f.remaining > 0 and (f.target is None or f.target == name):
                f.remaining -= 1
                if f.remaining == 0:
                    self.faults.remove(f)
                return injected(fresh_error(f.error))
        return None

    # -- commands -----------------------------------------------------------------------------

    def _command(self, cmd: Command) -> None:
        self._mode = cmd if cmd in ("step_into", "step_over", "step_out") else None
        if cmd == "step_out":
            self._step_out_span = self._innermost_span()
        fut = self._resume
        if fut is not None and not fut.done():
            fut.get_loop().call_soon_threadsafe(_set_result, fut, cmd)

    def continue_(self) -> None:
        self._command("continue")

    def step_into(self) -> None:
        """Run to the next event of any kind."""
        self._command("step_into")

    def step_over(self) -> None:
        """Run to the next node (or the end of the run)."""
        self._command("step_over")

    def step_out(self) -> None:
        """Run to the end of the current span."""
        self._command("step_out")

    def pause(self) -> None:
        """Pause at the next event."""
        self._pause_requested = True

    def stop(self) -> None:
        """Cancel the run cleanly: no half-applied superstep; the last checkpoint stays intact."""
        self.stop_requested = True
        if self.paused:
            self._command("stop")
        elif self._task is not None and not self._task.done():
            self._task.get_loop().call_soon_threadsafe(self._task.cancel)

    # -- inspection ---------------------------------------------------------------------------

    def span_stack(self) -> list[EventBase]:
        """The open spans around the current event, outermost (the run) first."""
        ev = self.current_event
        if ev is None:
            return []
        chain: list[EventBase] = []
        sid = ev.span_id if ev.span_id in self._open_spans else ev.parent_span_id
        while sid is not None and sid in self._open_spans:
            start = self._open_spans[sid]
            chain.append(start)
            sid = start.parent_span_id
        return list(reversed(chain))

    def state(self) -> dict[str, Any] | None:
        """The run's committed state as of now (values after the last superstep)."""
        return None if self._run is None else self._run.committed_state()

    # -- runtime hooks -------------------------------------------------------------------------

    def run_began(self, run: RunView, task: asyncio.Task[Any] | None) -> None:
        """A run starts under this debugger (``Gate``): a stop cancels ``task``."""
        self._run = run
        self._task = task
        self.stop_requested = False
        self._open_spans.clear()
        if self._running is None:
            self._running = asyncio.Event()
        self._running.set()

    def run_ended(self, run: RunView) -> None:
        """The run has ended (``Gate``)."""
        if self._run is run:
            self._run = None
            self._task = None

    def _innermost_span(self) -> str | None:
        ev = self.current_event
        if ev is None:
            return None
        if ev.span_id and ev.span_id in self._open_spans:
            return ev.span_id
        return ev.parent_span_id

    def passed(self, ev: EventBase) -> None:
        self._track(ev)

    def _track(self, ev: EventBase) -> None:
        from engine.events import SPAN_CLOSERS, SPAN_OPENERS

        if ev.kind in SPAN_OPENERS and ev.span_id:
            self._open_spans[ev.span_id] = ev
        elif ev.kind in SPAN_CLOSERS and ev.span_id:
            self._open_spans.pop(ev.span_id, None)
        self._echo = self._echoes.is_echo(ev)

    def _why(self, ev: EventBase) -> tuple[str, Breakpoint | None] | None:
        if ev.kind.startswith("debug."):
            return None
        if self._pause_requested:
            self._pause_requested = False
            return "pause", None
        mode = self._mode
        if mode == "step_into":
            return "step", None
        if mode == "step_over" and ev.kind in _STEP_OVER_STOPS:
            return "step", None
        if mode == "step_out" and (
            ev.kind == "run.finished"
            or (ev.span_id == self._step_out_span and ev.kind not in _OPENERS)
        ):
            return "step", None
        for bp in self.breakpoints:
            if bp.kind == "failure" and self._echo:  # one stop per failure, where it happened
                continue
            if bp.matches(ev, self.state):
                bp.hits += 1
                if bp.once:  # "Run to here": it has done its job
                    self.remove(bp)
                reason = "interrupt" if bp.kind == "interrupt" else "breakpoint"
                return reason, bp
        return None

    async def gate(self, ev: EventBase, emitter: RunEmitter) -> None:
        """Called by the runtime for every event; returns when the run may go on."""
        self._track(ev)
        # parallel tasks wait here while one is paused; woken together, the first may pause
        # again before the others run on: they wait for that pause too (each pause holds the
        # one resume future there is)
        while self._running is not None and not self._running.is_set():
            await self._running.wait()
        if self.stop_requested:
            raise RunStopped("The run was stopped; the last checkpoint is intact.")
        why = self._why(ev)
        if why is None:
            return
        reason, bp = why
        await self._pause(ev, emitter, reason, bp)

    async def _pause(
        self, ev: EventBase, emitter: RunEmitter, reason: str, bp: Breakpoint | None
    ) -> None:
        loop = asyncio.get_running_loop()
        self._mode = None
        self.paused = True
        self.pause_reason = reason
        self.current_event = ev
        self.current_breakpoint = bp
        if self._running is not None:
            self._running.clear()
        self._resume = loop.create_future()
        await emitter.emit_ungated(
            DebugPaused,
            reason=reason,
            breakpoint=bp.describe() if bp else None,
            at_seq=ev.seq,
            at_kind=ev.kind,
            parent_span_id=ev.span_id or ev.parent_span_id,
        )
        for cb in list(self.on_pause):
            cb(self)
        try:
            cmd = await self._resume
        finally:
            self.paused = False
            self._resume = None
            if self._running is not None:
                self._running.set()
        await emitter.emit_ungated(
            DebugResumed, command=cmd, parent_span_id=ev.span_id or ev.parent_span_id
        )
        for cb in list(self.on_resume):
            cb(self)
        if cmd == "stop":
            raise RunStopped("The run was stopped; the last checkpoint is intact.")


_OPENERS = frozenset(
    {
        "run.started",
        "superstep.started",
        "node.started",
        "hook.started",
        "wrapper.started",
        "attempt.started",
        "model.request",
        "tool.started",
    }
)


def _has_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _set_result(fut: asyncio.Future[Command], cmd: Command) -> None:
    if not fut.done():
        fut.set_result(cmd)


def _path(graph: Sequence[str] | None) -> tuple[str, ...] | None:
    """A breakpoint's graph path (``Breakpoint.graph``) from node names, a string as one."""
    if graph is None:
        return None
    return (graph,) if isinstance(graph, str) else tuple(graph)
