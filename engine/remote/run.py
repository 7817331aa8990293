"""One remote run: server runs driven by the front end's debugger, as our events.

``RemoteRunner.astream_events`` has the shape of a graph's (``engine.targets.graph_run``
iterates it, so the outcome of a remote run is worked out as for any other).  Inside the one
run lifecycle (``run_span``: run.started, the debugger told the run began, run.finished):

- The debugger's breakpoints become the server run's ``interrupt_before`` / ``interrupt_after``
  (root-graph nodes); a pending step becomes ``interrupt_before="*"``.  Breakpoints are read
  when each server run starts, so a change made during a run applies from the next stop.
- When the server stops at one of our breakpoints, the nodes due next are announced
  (``node.started``) through the debugger's gate: the front end pauses for real, since the
  server has stopped.  Its answer (continue / step / stop) starts the next server run with
  input None and the breakpoints of that moment, or ends the remote run.
- ``stop()`` cancels the server run; ``Command(resume=...)`` is sent as the run's ``command``.
- An ``interrupt()`` ends the remote run interrupted (the driver answers it with a new run);
  a stop the graph itself declares (compiled ``interrupt_before``) too, as a static interrupt.
- Faults end the run with one line: the run's own error, a run cancelled by someone else, the
  connection lost (after the SDK's reconnection attempts), a server that forgot the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

from engine.attach.resumed import answered, pending_interrupts
from engine.core.ids import new_run_id
from engine.errors import RunStopped
from engine.events import EventBase, InterruptRaised, InterruptResumed
from engine.observe.bus import EventBus, RunEmitter, stream_run
from engine.observe.run_span import run_span
from engine.remote.client import RemoteError
from engine.remote.translate import FALLBACK_MODES, ServerError, StreamTranslator
from engine.remote.values import command_payload, from_server, to_server
from engine.serde import to_jsonable
from engine.targets.graph_run import app_configurable
from engine.types import Command

if TYPE_CHECKING:
    from engine.observe.gate import Gate
    from engine.remote.target import RemoteTarget

__all__ = ["RemoteRunError", "RemoteRunner", "check_end", "server_thread_id"]

Stops = Sequence[str] | Literal["*"]
_STEPS = ("step_into", "step_over")
_NAMESPACE = uuid.UUID("6f1e9c1a-5f0b-4a51-9c8e-2f4f4d0b7a11")


def server_thread_id(thread_id: str) -> str:
    """The server's thread for a front end's thread id: itself when it is a UUID (a server's
    threads are), else a UUID derived from it (the same one every time)."""
    try:
        return str(uuid.UUID(thread_id))
    except ValueError:
        return str(uuid.uuid5(_NAMESPACE, thread_id))


class RemoteRunError(Exception):
    """A remote run failed on the server; subclasses carry the server's error type name."""


_ERROR_TYPES: dict[str, type[RemoteRunError]] = {}


def _server_exception(err: ServerError) -> RemoteRunError:
    """An exception named as the server named the error (``ValueError: ...`` in every view)."""
    name = err.type if err.type.isidentifier() else "RemoteRunError"
    cls = _ERROR_TYPES.get(name)
    if cls is None:
        cls = _ERROR_TYPES[name] = type(name, (RemoteRunError,), {"__module__": __name__})
    return cls(err.message)


class _View:
    """What the debugger may know of a remote run (``RunView``)."""

    def __init__(self, run_id: str, tr: StreamTranslator) -> None:
        self.run_id = run_id
        self.tr = tr

    def committed_state(self) -> dict[str, Any] | None:
        values = from_server(self.tr.values)
        return values if isinstance(values, dict) else None


class _Control:
    """Listens to the run's own ``debug.*`` events: is a step pending?"""

    def __init__(self) -> None:
        self.stepping = False

    def __call__(self, ev: EventBase) -> None:
        if ev.kind == "debug.paused":
            self.stepping = False
        elif ev.kind == "debug.resumed":
            self.stepping = ev.__dict__.get("command") in _STEPS


class RemoteRunner:
    """Runs a remote target's graph (see module docstring)."""

    def __init__(self, target: RemoteTarget) -> None:
        self.target = target

    async def astream_events(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        debugger: Gate | None = None,
        context: Any = None,
        **_: Any,
    ) -> AsyncIterator[EventBase]:
        """Run and yield every event of the run (ours, translated from the server's)."""
        cfg = config or {}
        async for ev in stream_run(lambda bus: self.arun(input, cfg, debugger, [bus], context)):
            yield ev

    async def arun(
        self,
        input: Any,
        config: dict[str, Any],
        debugger: Gate | None,
        extra: list[EventBus],
        context: Any = None,
    ) -> Any:
        target = self.target
        conf = dict(config.get("configurable") or {})
        thread_id = str(conf.get("thread_id") or uuid.uuid4())
        checkpoint_id = conf.get("checkpoint_id")
        run_id = str(config.get("run_id") or new_run_id())
        control = EventBus()
        ctl = _Control()
        control.subscribe(ctl)
        em = RunEmitter(run_id, thread_id, [target.bus, *extra, control], debugger)
        em.active = True
        tr = StreamTranslator(em, target.announced, target.mirrors)
        server_thread = server_thread_id(thread_id)
        resumed = input is None or isinstance(input, Command)
        async with run_span(
            em,
            _View(run_id, tr),
            graph=target.name,
            input=input,
            resumed=resumed,
            config={
                "thread_id": thread_id,
                "checkpoint_id": checkpoint_id,
                "server": target.client.display_url,
                "assistant_id": target.assistant.assistant_id,
                "server_thread_id": server_thread,
            },
            gate=debugger,
        ) as span:
            if isinstance(input, Command) and input.resume is not None:
                await _resumed(target, em, server_thread, input.resume)
            driving = _Drive(target, tr, em, ctl, debugger, server_thread, context)
            driving.configurable = app_configurable(conf)
            try:
                span.interrupted = await driving.loop(input, checkpoint_id)
            except (asyncio.CancelledError, RunStopped):
                await tr.close("cancelled")
                raise
            except BaseException:
                await tr.close("error")
                raise
            span.output = from_server(tr.values)
        return span.output


async def _resumed(target: RemoteTarget, em: RunEmitter, thread: str, resume: Any) -> None:
    """``interrupt.resumed`` for each interrupt the resume answers, with its id, node and
    scope, read from the server's thread state (one for the whole resume when the thread
    says nothing; none for a resume the server refuses: one value for several interrupts)."""
    try:
        snap = await target.client.state(thread, subgraphs=True)
    except Exception:  # the run reports an unreachable server itself
        snap = {}
    pairs = answered(pending_interrupts(snap), resume)
    if pairs is None:
        await em.emit(InterruptResumed, parent_span_id=em.run_id, value=to_jsonable(resume))
        return
    for p, value in pairs:
        await (em.child(p.ns) if p.ns else em).emit(
            InterruptResumed,
            parent_span_id=em.run_id,
            interrupt_id=p.interrupt_id,
            value=to_jsonable(value),
            node=p.node,
        )


class _Drive:
    """The server runs of one remote run (see module docstring)."""

    def __init__(
        self,
        target: RemoteTarget,
        tr: StreamTranslator,
        em: RunEmitter,
        ctl: _Control,
        debugger: Gate | None,
        thread: str,
        context: Any,
    ) -> None:
        self.target = target
        self.client = target.client
        self.tr = tr
        self.em = em
        self.ctl = ctl
        self.debugger = debugger
        self.thread = thread
        self.context = context
        self.configurable: dict[str, Any] = {}
        """The app's own ``configurable`` keys, sent as the server run's ``config``."""
        self.server_run: str | None = None

    def _stops(self) -> tuple[Stops, list[str]]:
        """``interrupt_before`` and ``interrupt_after`` from the debugger, now."""
        roots = set(self.target.root_nodes)
        before: list[str] = []
        after: list[str] = []
        for bp in getattr(self.debugger, "breakpoints", None) or ():
            if not bp.enabled or bp.target not in roots or bp.graph:
                continue  # a server stops only at the root graph's nodes
            if bp.kind == "before_node":
                before.append(bp.target)
            elif bp.kind == "after_node":
                after.append(bp.target)
        if self.ctl.stepping:
            return "*", after
        return sorted(set(before)), sorted(set(after))

    async def loop(self, input: Any, checkpoint_id: str | None) -> bool:
        """Server runs until the remote run ends; True when it ends interrupted."""
        tr = self.tr
        payload: Any = input
        while True:
            before, after = self._stops()
            tr.begin(after)
            finished_before = set(tr.finished)
            await self._server_run(payload, checkpoint_id, before, after)
            await check_end(self.target, tr, self.thread, self.server_run)
            if tr.interrupts:
                await tr.close("interrupted")
                return True
            if not tr.next:
                await tr.close("ok")
                return False
            ran = {t.node for (ns, tid), t in tr.tasks.items() if not ns and tid in tr.finished} - {
                t.node for (ns, tid), t in tr.tasks.items() if tid in finished_before
            }
            ours = before == "*" or bool(set(tr.next) & set(before)) or bool(ran & set(after))
            step = self._next_step()
            if not ours:  # the graph's own interrupt_before / interrupt_after
                await self._static_interrupt(step)
                await tr.close("interrupted")
                return True
            await tr.announce_next(tr.next_tasks, step)
            if self.debugger is not None and self.debugger.stop_requested:
                raise RunStopped("The run was stopped; the last checkpoint is intact.")
            payload, checkpoint_id = None, None

    def _next_step(self) -> int | None:
        steps = [s for (ns, s) in self.tr.steps if not ns]
        known = [t.step for t in self.tr.tasks.values() if not t.ns and t.step is not None]
        last = max([*steps, *known], default=None)
        return None if last is None else last + 1

    async def _static_interrupt(self, step: int | None) -> None:
        for node in self.tr.next:
            ev_fields: dict[str, Any] = {"node": node, "static": "before"}
            await self.em.emit(
                InterruptRaised, parent_span_id=self.em.run_id, step=step, **ev_fields
            )
            self.tr.interrupts.append(
                InterruptRaised(run_id=self.em.run_id, thread_id=self.em.thread_id, **ev_fields)
            )

    async def _server_run(
        self, payload: Any, checkpoint_id: str | None, before: Stops, after: list[str]
    ) -> None:
        command = command_payload(payload)
        kwargs: dict[str, Any] = {
            "input": None if command is not None or payload is None else to_server(payload),
            "command": command,
            "checkpoint_id": checkpoint_id,
            "interrupt_before": before or None,
            "interrupt_after": after or None,
            "context": to_server(self.context) if self.context is not None else None,
            "config": {"configurable": to_server(self.configurable)} if self.configurable else None,
        }

        def created(run_id: str) -> None:
            self.server_run = run_id

        self.server_run = None
        for attempt in range(2):
            try:
                async for part in self.client.stream_run(
                    self.thread,
                    self.target.assistant.assistant_id,
                    stream_mode=self.target.stream_modes,
                    on_created=created,
                    **kwargs,
                ):
                    await self.tr.part(part)
                return
            except asyncio.CancelledError:
                await self._cancel_server_run()
                raise
            except RemoteError as exc:
                if self._refused_modes(exc) and attempt == 0:
                    self.target.notice(
                        f"the server refused stream modes {list(self.target.stream_modes)} "
                        f"(422): model and tool calls are not shown; using {list(FALLBACK_MODES)}"
                    )
                    self.target.stream_modes = FALLBACK_MODES
                    continue
                raise self._explain(exc) from None

    def _refused_modes(self, exc: RemoteError) -> bool:
        return (
            exc.status == 422
            and "stream_mode" in exc.detail
            and tuple(self.target.stream_modes) != FALLBACK_MODES
        )

    def _explain(self, exc: RemoteError) -> RemoteError:
        parts = self.tr.parts
        if exc.kind == "busy":
            return RemoteError(
                f"thread {self.thread} is busy: another run is going on on it (join it to "
                "watch it, or wait until it ends)",
                "busy",
                409,
            )
        if exc.kind == "not_found" and parts:
            return RemoteError(
                f"the server lost the run mid-run (was it restarted?) after {parts} events: "
                f"what it did after them is lost ({exc})",
                "lost",
            )
        if exc.kind == "unreachable" and parts:
            return RemoteError(
                f"lost the connection to the server mid-run after {parts} events "
                f"({exc}); the run may go on there: join thread {self.thread} to see the rest",
                "lost",
            )
        return exc

    async def _cancel_server_run(self) -> None:
        run = self.tr.server_run_id or self.server_run
        if run is None:
            return
        with contextlib.suppress(Exception):
            await asyncio.shield(self.client.cancel(self.thread, run))


_NO_STREAM = "No generations found in stream"
"""What LangChain raises when a model asked to stream gives nothing (its fake chat models do
for a reply that is only tool calls): the server streams the model because we ask for its
``events``; a plain run of the same app there does not."""


def _unstreamed(target: RemoteTarget, err: ServerError) -> ServerError:
    """A run that failed only because the server's model could not stream: say so, and ask
    this server for no model events from now on (its runs then succeed, without model and
    tool calls shown)."""
    if _NO_STREAM not in err.message or "events" not in target.stream_modes:
        return err
    target.stream_modes = FALLBACK_MODES
    why = (
        "the server's model gave nothing when streamed (LangChain's fake chat models cannot "
        "stream a reply that is only tool calls), and the studio streams it to show model "
        "calls; the next runs on this server do not ask for model events (model and tool "
        "calls are not shown)"
    )
    target.notice(why)
    return ServerError(err.type, f"{err.message} ({why})")


async def check_end(
    target: RemoteTarget, tr: StreamTranslator, thread: str, server_run: str | None
) -> None:
    """How a server run ended, asked of the server: raise for its error, a lost run, or a
    cancel someone else made (after closing what the translator still has open)."""
    run = tr.server_run_id or server_run
    plumbing = tr.error is not None and tr.error.type == "HTTPException"
    if tr.error is not None and not (plumbing and run is not None):
        await tr.close("error")
        raise _server_exception(_unstreamed(target, tr.error))
    if run is None:
        return
    status = await target.client.run_status(thread, run)
    if plumbing and status is not None and tr.error is not None:  # the server's, not the graph's
        await tr.close("error")
        raise _server_exception(tr.error)
    if status is None:
        await tr.close("error")
        raise RemoteError(
            f"the server no longer knows run {run} (was it restarted?): what the run did "
            f"after the last of the {tr.parts} events received is lost",
            "lost",
        )
    if status in ("pending", "running"):
        await tr.close("error")
        raise RemoteError(
            f"the stream of run {run} ended while the run goes on on the server: join "
            f"thread {thread} to follow it",
            "lost",
        )
    if status == "error":
        await tr.close("error")
        raise _server_exception(ServerError("RemoteRunError", f"run {run} failed on the server"))
    if status in ("interrupted", "timeout") and not tr.interrupts:
        target.notice(f"run {run} was cancelled on the server by another client")
        await tr.close("cancelled")
        raise RunStopped(f"The run was cancelled on the server ({status}).")
