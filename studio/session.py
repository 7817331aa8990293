"""``RunController``: one loaded agent, its debugger, and the runs the studio starts on it.

Plain asyncio, no Qt (under qasync the loop *is* the Qt loop, so runs are tasks on it and the
window never blocks).  The controller

- loads an agent through ``engine.loader`` (``load("file.py:attr")``) or takes a factory (tests);
  a restart loads it afresh, so a scripted model starts its script again;
- records every run into a ``.stepwise`` session file (``studio.session_files``): the graph
  runs on that file's ``SqliteSaver`` and the ``SessionRecorder`` listens to its bus;
- hands the run's events to the hub in batches (``EventBatcher``, ~30 ms), and maps the debugger's
  pause/resume and the run's end to hub statuses (running, paused, done, interrupted, error,
  cancelled);
- on an interrupt, awaits ``interrupt_handler(interrupts)`` (a coroutine function given by the
  window: an approval dialog, a JSON resume dialog).  It returns the input of the resuming run
  (``Command(resume=...)``, or None to go past a static ``interrupt_before/after``), or
  ``STAY`` to leave the run interrupted (answer later with ``run_or_continue``).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from engine.debug import Debugger
from engine.events import EventBase, InterruptRaised
from engine.graph.compiled import RunStopped
from studio.event_batcher import DEFAULT_INTERVAL, EventBatcher
from studio.hub import Hub
from studio.session_files import copy_session, new_session_path

__all__ = ["STAY", "AgentFactory", "InterruptHandler", "NeedsInput", "RunController"]

INPUT_ATTRS = ("INPUT", "DEFAULT_INPUT")
"""Module attributes an agent file may define to give its default input (as the CLI reads)."""

STAY: Any = object()
"""What an interrupt handler returns to leave the run interrupted."""

InterruptHandler = Callable[[list[InterruptRaised]], Awaitable[Any]]
AgentFactory = Callable[[], tuple[Any, Any]]
"""Returns ``(compiled graph, default input or None)``; called on load and on every restart."""

BUSY = frozenset({"running", "paused"})
ENDED = frozenset({"done", "error", "cancelled"})


class NeedsInput(Exception):
    """The agent takes messages and neither the file nor the user gave one."""


def has_messages(graph: Any) -> bool:
    keys = set(getattr(graph, "input_keys", None) or ()) | set(
        getattr(graph, "channels", None) or ()
    )
    return "messages" in keys


def user_message(text: str) -> dict[str, Any]:
    from engine.messages import HumanMessage

    return {"messages": [HumanMessage(content=text)]}


def spec_factory(spec: str) -> AgentFactory:
    """A factory that loads ``spec`` afresh each time (``AgentLoadError`` on failure)."""

    def factory() -> tuple[Any, Any]:
        from engine.loader import load_target

        loaded = load_target(spec)
        default = next(
            (getattr(loaded.module, a) for a in INPUT_ATTRS if hasattr(loaded.module, a)), None
        )
        factory.module = loaded.module  # type: ignore[attr-defined]
        return loaded.graph, default

    return factory


def short_label(spec: str) -> str:
    """``path/to/agent.py:graph`` -> ``agent.py:graph`` (for titles and session file names)."""
    target, sep, attr = spec.rpartition(":")
    if not sep or "/" in attr or "\\" in attr:
        target, attr = spec, ""
    name = Path(target).name if target.endswith(".py") else target
    return f"{name}:{attr}" if attr else name


def model_builder(module: Any) -> Callable[[Any], Any] | None:
    """``module.build_agent(model=...)`` as ``(model) -> graph``, when the file has one (re-runs
    with a replay model need the agent built on another model)."""
    import inspect

    build = getattr(module, "build_agent", None)
    if not callable(build):
        return None
    try:
        params = inspect.signature(build).parameters
    except (TypeError, ValueError):
        return None
    if "model" not in params:
        return None
    return lambda model: build(model=model)


def _with_saver(graph: Any, saver: Any) -> Any:
    """The graph on ``saver``, unless it has a persistent checkpointer of its own."""
    from engine.checkpoint.memory import InMemorySaver

    current = getattr(graph, "checkpointer", None)
    if current in (None, True, False) or isinstance(current, InMemorySaver):
        graph = copy.copy(graph)
        graph.checkpointer = saver
    return graph


class RunController:
    """Loads agents and drives their runs for the studio (see module docstring)."""

    def __init__(
        self,
        hub: Hub,
        *,
        session_dir: Path | None = None,
        record: bool = True,
        batch_interval: float = DEFAULT_INTERVAL,
    ) -> None:
        self.hub = hub
        self.debugger = Debugger()
        hub.debugger = self.debugger
        self.debugger.on_pause.append(self._on_pause)
        self.debugger.on_resume.append(self._on_resume)
        self.session_dir = session_dir
        self.record = record
        self.batcher = EventBatcher(hub.add_events, batch_interval)
        self.interrupt_handler: InterruptHandler | None = None
        self.spec: str | None = None
        self.label = ""
        self.graph: Any = None
        self.default_input: Any = None
        self.recorder: Any = None
        self.session_path: Path | None = None
        self.task: asyncio.Task[None] | None = None
        self.threads: list[str] = []
        self.last_error: str | None = None
        self.pending_interrupts: list[InterruptRaised] = []
        self.on_problem: list[Callable[[BaseException], None]] = []
        """Called with errors no caller can catch (a restart that cannot load the file)."""
        self.on_idle: list[Callable[[], None]] = []
        """Called when a run task (with the interrupt answers it led to) has ended."""
        self._factory: AgentFactory | None = None
        self._sub: Any = None
        self._gen = 0
        self._run_id: str | None = None
        self._run_status: str | None = None
        self._raised: dict[str, InterruptRaised] = {}
        self._thread_numbers = itertools.count(1)
        self._ran_on: set[str] = set()

    # -- loading -------------------------------------------------------------------------------

    def load(self, spec: str, label: str | None = None) -> None:
        """Load ``file.py:attr`` (``AgentLoadError`` with a one-line reason if it cannot)."""
        factory = spec_factory(spec)
        graph, default = factory()
        self.spec = spec
        self._install(factory, graph, default, label or short_label(spec))

    def load_factory(self, factory: AgentFactory, label: str) -> None:
        graph, default = factory()
        self.spec = None
        self._install(factory, graph, default, label)

    def _install(self, factory: AgentFactory, graph: Any, default: Any, label: str) -> None:
        self._abandon_run()
        self._factory = factory
        self.label = label
        self.default_input = default
        self.threads = []
        self._ran_on = set()
        self._set_graph(graph)
        self.hub.set_thread(self.new_thread())
        self.hub.set_status("idle")

    def _set_graph(self, graph: Any) -> None:
        self._close_recording()
        if self.record:
            from engine.recording import SessionRecorder

            self.session_path = new_session_path(self.label, self.session_dir)
            self.recorder = SessionRecorder(self.session_path)
            graph = _with_saver(graph, self.recorder.checkpointer)
            self.recorder.attach(graph)
        else:
            from engine.checkpoint.memory import InMemorySaver

            self.session_path = None
            graph = _with_saver(graph, InMemorySaver())
        self.graph = graph
        self._sub = graph.subscribe(self._on_event)
        self.hub.session_path = str(self.session_path) if self.session_path else None
        self.batcher.discard()
        self.hub.reset()
        self.hub.set_graph(graph, graph.get_graph(), self.label)

    def _close_recording(self) -> None:
        if self._sub is not None:
            self._sub.close()
            self._sub = None
        rec, self.recorder = self.recorder, None
        if rec is None:
            return
        task = self.task
        if task is not None and not task.done():  # let the abandoned run finish writing first
            task.add_done_callback(lambda _t: _close_quietly(rec))
        else:
            _close_quietly(rec)

    def close(self) -> None:
        """Stop any run and close the session file (the window is closing)."""
        self._abandon_run()
        self._close_recording()

    def unload(self) -> None:
        """Forget the agent (a recorded session is shown instead)."""
        self.close()
        self.graph = None
        self._factory = None
        self.spec = None
        self.threads = []
        self.pending_interrupts = []

    # -- threads -------------------------------------------------------------------------------

    def new_thread(self) -> str:
        tid = f"thread-{next(self._thread_numbers)}"
        self.threads.append(tid)
        return tid

    def switch_thread(self, thread_id: str) -> None:
        if self.busy:
            raise RuntimeError("Stop the run before switching threads")
        if thread_id not in self.threads:
            self.threads.append(thread_id)
        self.pending_interrupts = []
        self.hub.set_thread(thread_id)
        self.hub.set_status("idle" if thread_id not in self._ran_on else "done")

    # -- state -------------------------------------------------------------------------------

    @property
    def status(self) -> str:
        return self.hub.status

    @property
    def busy(self) -> bool:
        return self.task is not None and not self.task.done()

    @property
    def needs_input(self) -> bool:
        return self.default_input is None and has_messages(self.graph)

    # -- commands ------------------------------------------------------------------------------

    def start(
        self, input: Any = None, *, fresh: bool = True, step: str | None = None
    ) -> asyncio.Task[None]:
        """Start a run on the current thread (``input`` defaults to the file's ``INPUT``).

        ``fresh`` clears the views first; ``step`` ("step_over", "step_into") pauses early.
        """
        if self.graph is None:
            raise RuntimeError("No agent is loaded")
        if self.busy:
            raise RuntimeError("A run is already going on")
        return self._launch(self._drive(self._prepare(input, fresh, step)))

    def _prepare(self, input: Any, fresh: bool, step: str | None) -> Any:
        if input is None:
            input = self.default_input
        if input is None and has_messages(self.graph):
            raise NeedsInput("Type the first message for the agent, then press Run")
        if isinstance(input, str):
            input = user_message(input)
        if fresh:
            self.batcher.discard()
            self.hub.reset()
        if step is not None:
            getattr(self.debugger, step)()
        return input

    def send_message(self, text: str) -> asyncio.Task[None]:
        """Send ``text`` as a new user message on the current thread."""
        if not has_messages(self.graph):
            raise NeedsInput("This agent has no 'messages' in its state: it takes no chat input")
        if not text.strip():
            raise NeedsInput("The message is empty")
        return self.start(user_message(text), fresh=self.hub.thread_id not in self._ran_on)

    def run_or_continue(self) -> asyncio.Task[None] | None:
        """F5: continue when paused, answer a pending interrupt, or (re)start."""
        if self.debugger.paused:
            self.debugger.continue_()
            return None
        if self.busy:
            return None
        if self.status == "interrupted" and self.pending_interrupts:
            return self._launch(self._answer(list(self.pending_interrupts)))
        if self.status in ENDED or self.hub.thread_id in self._ran_on:
            return self.restart()
        return self.start()

    def step(self, command: str) -> asyncio.Task[None] | None:
        """F10 / F11 / Shift+F11 while paused; from a stopped state, start and pause early."""
        if command not in ("step_over", "step_into", "step_out"):
            raise ValueError(f"Unknown step command {command!r}")
        if self.debugger.paused:
            getattr(self.debugger, command)()
            return None
        if self.busy:
            return None
        first = "step_into" if command == "step_into" else "step_over"
        if self.status in ENDED or self.hub.thread_id in self._ran_on:
            return self.restart(step=first)
        return self.start(step=first)

    def resume_from(self, checkpoint_id: str) -> asyncio.Task[None]:
        """Run on from a past checkpoint of the current thread (a fork: the old branch stays),
        under the debugger."""
        if self.graph is None:
            raise RuntimeError("No agent is loaded")
        if self.busy:
            raise RuntimeError("Stop the run before resuming from a checkpoint")
        self.hub.select_checkpoint(None)
        return self._launch(self._drive(None, checkpoint_id))

    def replay_builder(self) -> Callable[[Any], Any] | None:
        """How to build this agent on a replay model (None: the file has no ``build_agent``)."""
        module = getattr(self._factory, "module", None)
        return None if module is None else model_builder(module)

    def rerun_with_replay(self, checkpoint_id: str, timeline: Any) -> asyncio.Task[None]:
        """Re-run from a checkpoint serving the recorded model responses (``ReplayChatModel``)
        until the run diverges, where it stops; the new branch is recorded like any run."""
        build = self.replay_builder()
        if build is None:
            raise RuntimeError(
                "Re-run with replay needs a build_agent(model=...) function in the agent file"
            )
        if self.busy:
            raise RuntimeError("Stop the run before re-running from a checkpoint")
        from studio.timetravel import replay_plan

        plan = replay_plan(list(self.hub.events), timeline, checkpoint_id)
        graph = _with_saver(build(plan.model), self.graph.checkpointer)
        if self.recorder is not None:
            self.recorder.attach(graph)
        sub = graph.subscribe(self._on_event)
        self.hub.select_checkpoint(None)
        task = self._launch(self._drive(None, checkpoint_id, graph))
        task.add_done_callback(lambda _t: sub.close())
        return task

    def retry_plan_steps(self, chain: list[int]) -> asyncio.Task[None]:
        """Plan agents (``engine.plan``): run ``chain`` (failed steps and their downstream
        dependency chain) again, as one more retry round from the thread's last checkpoint."""
        graph = self.graph
        if (
            graph is None
            or "retry" not in getattr(graph, "channels", {})
            or "evaluator" not in getattr(graph, "nodes", {})
        ):
            raise RuntimeError("Only plan-and-execute agents can retry plan steps")
        if self.busy:
            raise RuntimeError("Stop the run before retrying plan steps")
        steps = sorted(int(i) for i in chain)
        update = {"retry": {"failed": steps, "retryable": steps, "chain": steps}, "retry_round": 0}
        return self._launch(self._retry_steps(update))

    async def _retry_steps(self, update: dict[str, Any]) -> None:
        config = {"configurable": {"thread_id": self.hub.thread_id}}
        await self.graph.aupdate_state(config, update, as_node="evaluator")
        self.hub.checkpoints_changed()
        await self._drive(None)

    def pause(self) -> None:
        if self.busy and not self.debugger.paused:
            self.debugger.pause()

    def stop(self) -> None:
        """Shift+F5: stop the run cleanly (the last checkpoint stays intact)."""
        if self.busy:
            if self._run_id is not None and self.status in BUSY:
                self.debugger.stop()
            else:  # waiting for an interrupt answer: just stop waiting
                assert self.task is not None
                self.task.cancel()

    def restart(self, step: str | None = None) -> asyncio.Task[None]:
        """Stop, load the agent afresh (new script, new thread) and run it from the start."""
        old = self.task
        self._abandon_run()
        return self._launch(self._restart(old, step))

    async def _restart(self, old: asyncio.Task[None] | None, step: str | None) -> None:
        if old is not None and not old.done():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(old), timeout=10)
        if self._factory is None:
            return
        try:
            graph, default = self._factory()
            if default is not None:
                self.default_input = default
            self._set_graph(graph)
            self.hub.set_thread(self.new_thread())
            self.hub.set_status("idle")
            inp = self._prepare(None, True, step)
        except Exception as exc:  # the file broke since it was loaded: say so
            self._report(exc)
            return
        await self._drive(inp)

    def _report(self, exc: BaseException) -> None:
        for cb in list(self.on_problem):
            cb(exc)

    async def stop_and_wait(self) -> None:
        task = self.task
        if task is None or task.done():
            return
        self.stop()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(asyncio.shield(task), timeout=10)

    async def wait(self) -> None:
        """Wait for the current run (and the interrupt answers it leads to) to end."""
        if self.task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(self.task)

    # -- faults --------------------------------------------------------------------------------

    def inject_model_timeout(self) -> None:
        self.debugger.inject_model_error(TimeoutError("Injected model timeout (Stepwise debugger)"))

    def inject_tool_error(self, tool: str | None = None) -> None:
        """The next call of ``tool`` (of any tool when None) raises OSError."""
        name = tool or "any tool"
        error = OSError(f"Injected failure of {name} (Stepwise debugger)")
        self.debugger.inject_tool_error(tool, error)  # type: ignore[arg-type]

    def tool_names(self) -> list[str]:
        """Names of the agent's tools (from the graph's metadata), for the Faults menu."""
        drawable = self.hub.drawable
        names: list[str] = []
        for node in getattr(drawable, "nodes", {}).values():
            for t in node.metadata.get("tools") or ():
                name = (
                    t
                    if isinstance(t, str)
                    else getattr(t, "name", None)
                    or (t.get("name") if isinstance(t, dict) else None)
                )
                if name and name not in names:
                    names.append(str(name))
        return names

    # -- sessions ------------------------------------------------------------------------------

    def save_session_as(self, dest: Path) -> None:
        if self.recorder is None or self.session_path is None:
            raise RuntimeError("Nothing is being recorded")
        self.recorder.flush()
        copy_session(self.session_path, Path(dest))

    # -- the run -------------------------------------------------------------------------------

    def _launch(self, coro: Any) -> asyncio.Task[None]:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # called from a Qt slot (or a test) outside a loop callback
            loop = asyncio.get_event_loop()
        self.task = loop.create_task(coro)
        self.task.add_done_callback(self._task_done)
        return self.task

    def _task_done(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            self._report(task.exception())  # type: ignore[arg-type]
        for cb in list(self.on_idle):
            cb()

    def _abandon_run(self) -> None:
        """Stop the current run without waiting; whatever it does later is ignored."""
        self._gen += 1
        if self.busy:
            if self.debugger.paused or self._run_id is not None:
                self.debugger.stop()
            assert self.task is not None
            self.task.cancel()
        self.pending_interrupts = []
        self._run_id = None

    async def _drive(self, inp: Any, checkpoint_id: str | None = None, graph: Any = None) -> None:
        gen = self._gen
        thread = self.hub.thread_id
        self._ran_on.add(thread)
        self.last_error = None
        self.pending_interrupts = []
        try:
            status = await self._run_once(inp, thread, checkpoint_id, graph or self.graph)
        finally:
            if gen == self._gen:
                self.batcher.flush()
        if gen != self._gen:
            return
        self.hub.set_status(status)
        if status == "interrupted" and self.pending_interrupts:
            await self._answer(list(self.pending_interrupts))

    async def _answer(self, interrupts: list[InterruptRaised]) -> None:
        handler = self.interrupt_handler
        if handler is None:
            return
        gen = self._gen
        try:
            value = await handler(interrupts)
        except asyncio.CancelledError:
            return
        if value is STAY or gen != self._gen:
            return
        await self._drive(value)

    async def _run_once(self, inp: Any, thread: str, checkpoint_id: str | None, graph: Any) -> str:
        run_id = f"run-{uuid.uuid4().hex[:12]}"
        self._run_id, self._run_status, self._raised = run_id, None, {}
        self.hub.set_status("running")
        configurable = {"thread_id": thread}
        if checkpoint_id is not None:
            configurable["checkpoint_id"] = checkpoint_id
        config = {"configurable": configurable, "run_id": run_id}
        try:
            await graph.ainvoke(inp, config, debugger=self.debugger)
        except (RunStopped, asyncio.CancelledError):
            return "cancelled"
        except Exception as exc:
            self.last_error = _one_line(exc)
            return "error"
        finally:
            self._run_id = None
            self.debugger.stop_requested = False
        status = self._run_status or "done"
        if status == "interrupted":
            self.pending_interrupts = list(self._raised.values())
        return status

    # -- event and debugger callbacks (on the loop thread) -----------------------------------

    def _on_event(self, ev: EventBase) -> None:
        self.batcher.add(ev)
        if ev.run_id != self._run_id:
            return
        kind = ev.kind
        if kind == "interrupt.raised":
            self._raised[str(getattr(ev, "interrupt_id", None) or ev.seq)] = ev  # type: ignore[assignment]
        elif kind == "interrupt.resumed":
            self._raised.pop(str(getattr(ev, "interrupt_id", None) or ""), None)
        elif kind == "run.finished" and not ev.ns:
            self._run_status = getattr(ev, "status", None)
            if self._run_status == "error" and ev.__dict__.get("error") is not None:
                err = ev.__dict__["error"]
                self.last_error = f"{err.type}: {err.message}".splitlines()[0]

    def _on_pause(self, _dbg: Debugger) -> None:
        self.batcher.flush()
        self.hub.set_status("paused")

    def _on_resume(self, _dbg: Debugger) -> None:
        if self.busy:
            self.hub.set_status("running")


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def _close_quietly(recorder: Any) -> None:
    try:
        recorder.close()
    except Exception as exc:  # a recording problem must not break the studio
        import sys

        print(f"stepwise studio: closing the session file failed: {exc}", file=sys.stderr)
