"""``RunController``: one loaded agent, its debugger, and the runs the studio starts on it.

Plain asyncio, no Qt (under qasync the loop *is* the Qt loop, so runs are tasks on it and the
window never blocks).  The controller

- loads an agent through ``engine.loader`` (``load("file.py:attr")``) or takes a factory (tests);
  a restart loads it afresh, so a scripted model starts its script again;
- records every run into a ``.stepwise`` session file (``studio.history.session_files``): the graph
  runs on that file's ``SqliteSaver`` and the ``SessionRecorder`` listens to its bus;
- hands the run's events to the hub in batches (``EventBatcher``: at once after a quiet spell,
  at most every 20 ms under a flood), and maps the debugger's
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
import itertools
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.attach.options import AttachOptions
from engine.debug import Debugger
from engine.events import EventBase, InterruptRaised
from engine.targets import STAY, GraphTarget, RunDriver, RunRequest, target_for
from studio.history.session_files import new_session_path, session_dir
from studio.models.hub import Hub
from studio.run.agent_reload import AgentReload
from studio.run.agent_source import (
    AgentFactory,
    absolute_spec,
    short_label,
    spec_factory,
    user_message,
    with_saver,
)
from studio.run.commands import SessionCommands
from studio.run.drawables import drawable_for
from studio.run.event_batcher import DEFAULT_INTERVAL, EventBatcher
from studio.run.given_inputs import GivenInputsBook, RunForm
from studio.run.saved_threads import SavedThreads
from studio.run.stepping import NeedsInput, SteppingCommands
from studio.run.target_load import TargetLoad

if TYPE_CHECKING:
    from types import ModuleType

__all__ = [
    "FIRST_MESSAGE_HINT",
    "INPUT_FORM_HINT",
    "STAY",
    "AgentFactory",
    "InterruptHandler",
    "NeedsInput",
    "RunController",
    "user_message",
]


InterruptHandler = Callable[[list[InterruptRaised]], Awaitable[Any]]

FIRST_MESSAGE_HINT = "Type the first message for the agent, then press Run"
INPUT_FORM_HINT = "Give the graph its input in the form, then press Run"


class RunController(
    SteppingCommands, SessionCommands, SavedThreads, AgentReload, TargetLoad, RunForm
):
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
        hub.show_running_after = batch_interval  # "running" shows with a run's first frame
        self.interrupt_handler: InterruptHandler | None = None
        self.spec: str | None = None
        self.label = ""
        self.target: GraphTarget | Any = None
        """What runs: the loaded agent as a target (``engine.targets``), or a server's
        assistant (``load_target``)."""
        self.fixed_target: Any = None
        """A target loaded as such (``load_target``): Restart runs it again on a new thread."""
        self.closing: asyncio.Future[None] | None = None
        """The closing of the connection of the target loaded before (``fixed_target``)."""
        self.driver: RunDriver | None = None
        self.default_input: Any = None
        self.recorder: Any = None
        self.session_path: Path | None = None
        self.task: asyncio.Task[None] | None = None
        self.threads: list[str] = []
        self.last_error: str | None = None
        self.pending_interrupts: list[InterruptRaised] = []
        self.model_source: Callable[[], Any] | None = None
        """Returns the model agents should run on (None: the file's own, e.g. scripted)."""
        self.on_problem: list[Callable[[BaseException], None]] = []
        """Called with errors no caller can catch (a restart that cannot load the file)."""
        self.on_idle: list[Callable[[], None]] = []
        """Called when a run task (with the interrupt answers it led to) has ended."""
        self._factory: AgentFactory | None = None
        self._sub: Any = None
        self._gen = 0
        self._thread_numbers = itertools.count(1)
        self._ran_on: set[str] = set()
        self.attach = AttachOptions(stream_tokens=True)
        """How real langgraph graphs are attached (``stepwise open`` options); the studio
        streams an attached app's model tokens unless told not to (the CLI only when asked)."""
        self._saver: Any = None
        self.typed_input: Any = None
        """The first message typed for an agent that has no input of its own (no ``INPUT``),
        or the input given in the input form: Restart runs it again instead of asking."""
        self.context: Any = None
        """The run context (``context=``) for graphs with a ``context_schema``: from
        ``stepwise open --context-json`` or the input form."""
        self.context_given = False
        """The input form's context was answered, maybe left empty (no context): not asked
        again (``studio.run.given_inputs``)."""
        self.given = GivenInputsBook()
        """What the input form was given, per graph label, for the session."""
        self.configurable: dict[str, Any] | None = None
        """The app's own ``config["configurable"]`` keys every run gets: from ``stepwise open
        --configurable-json`` or Run Configuration... (Debug menu)."""

    # -- loading -------------------------------------------------------------------------------

    def load(self, spec: str, label: str | None = None, module: ModuleType | None = None) -> None:
        """Load ``file.py:attr`` (``AgentLoadError`` with a one-line reason if it cannot);
        ``module``: the file, already imported (it is not run again)."""
        factory = spec_factory(
            spec, lambda: self.model_source() if self.model_source else None, module
        )
        graph, default = factory()
        self.spec = spec
        self._install(factory, graph, default, label or short_label(spec))

    def load_factory(self, factory: AgentFactory, label: str) -> None:
        graph, default = factory()
        self.spec = None
        self._install(factory, graph, default, label)

    def _install(self, factory: AgentFactory, graph: Any, default: Any, label: str) -> None:
        self._abandon_run()
        self._forget_fixed_target()
        self._factory = factory
        self.label = label
        self.default_input = default
        self.typed_input = None
        self.context_given = self.given.get(label).context_given
        self.threads = []
        self._ran_on = set()
        self._set_graph(graph)
        self.hub.set_thread(self.new_thread())
        self.hub.set_status("idle")

    def _set_graph(self, graph: Any) -> None:
        graph = self.attach.apply(graph, self._attach_saver())
        self._close_recording()
        if self.record:
            from engine.recording import SessionRecorder

            self.session_path = new_session_path(self.label, self.session_dir)
            self.recorder = SessionRecorder(self.session_path)
            if self.spec:
                self.recorder.set_agent(absolute_spec(self.spec), getattr(graph, "name", None))
            graph = with_saver(graph, self.recorder.checkpointer)
            self.recorder.attach(graph)
        else:
            from engine.checkpoint.memory import InMemorySaver

            self.session_path = None
            graph = with_saver(graph, InMemorySaver())
        target = self._install_target(graph)
        self.hub.session_path = str(self.session_path) if self.session_path else None
        self.batcher.discard()
        self.hub.reset()
        self.hub.set_target(target, drawable_for(graph), self.label)

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

    def _install_target(self, graph: Any) -> GraphTarget:
        """Debug ``graph`` from now on (its events feed the window)."""
        if self._sub is not None:
            self._sub.close()
        self.target = target_for(graph)
        self.driver = RunDriver(self.target, self.debugger)
        self._sub = self.target.subscribe(self._on_event)
        return self.target

    @property
    def graph(self) -> Any:
        """The loaded graph (ours, or the attached app's), None when none is loaded or the
        target is not a graph in this process (a server's)."""
        return getattr(self.target, "graph", None)

    def _forget_fixed_target(self) -> None:
        old, self.fixed_target = self.fixed_target, None
        if old is not None:
            self.closing = asyncio.ensure_future(old.aclose())

    def unload(self) -> None:
        """Forget the agent (a recorded session is shown instead)."""
        self.close()
        self._forget_fixed_target()
        self.target = None
        self.driver = None
        self._factory = None
        self.spec = None
        self.threads = []
        self.pending_interrupts = []

    def recordings_folder(self) -> Path:
        """Where runs are recorded (``$STEPWISE_SESSION_DIR``, else the user data folder)."""
        return self.session_dir or session_dir()

    # -- state -------------------------------------------------------------------------------

    @property
    def status(self) -> str:
        return self.hub.status

    @property
    def _run_id(self) -> str | None:
        """The run going on now (None between runs, e.g. while an interrupt awaits its answer)."""
        return None if self.driver is None else self.driver.run_id

    @property
    def busy(self) -> bool:
        return self.task is not None and not self.task.done()

    @property
    def needs_input(self) -> bool:
        return self.first_input is None and self._chat()

    def _chat(self) -> bool:
        """Does the agent take chat messages (``messages`` in its state)?"""
        return self.target is not None and "messages" in self.target.state_keys()

    @property
    def first_input(self) -> Any:
        """What a fresh run starts with: the file's own input, else the first message typed."""
        return self.default_input if self.default_input is not None else self.typed_input

    # -- commands ------------------------------------------------------------------------------

    def start(
        self, input: Any = None, *, fresh: bool = True, step: str | None = None
    ) -> asyncio.Task[None]:
        """Start a run on the current thread (``input`` defaults to the file's ``INPUT``).

        ``fresh`` clears the views first; ``step`` ("step_over", "step_into") pauses early.
        """
        if self.target is None:
            raise RuntimeError("No agent is loaded")
        if self.busy:
            raise RuntimeError("A run is already going on")
        return self._launch(self._drive(self._prepare(input, fresh, step)))

    def missing_run_input(self) -> set[str]:
        """What a fresh run lacks and the input form asks for: ``input`` (a graph that takes
        no chat message and has no input of its own) and ``context`` (a ``context_schema``
        with required fields and no context given)."""
        from studio.models.input_form import InputForm

        target = self.target
        missing: set[str] = set()
        if target is None:
            return missing
        if self.first_input is None and not self._chat() and target.input_schema() is not None:
            missing.add("input")
        context = InputForm.from_schema(target.context_schema())
        asked = self.context is None and not self.context_given
        if asked and (context.required_names or context.whole):
            missing.add("context")  # whole: a context typed as JSON (its fields are unknown)
        return missing

    def _prepare(self, input: Any, fresh: bool, step: str | None) -> Any:
        if input is None:
            input = self.first_input
        if input is None and self._chat():
            raise NeedsInput(FIRST_MESSAGE_HINT)
        if self.missing_run_input() - ({"input"} if input is not None else set()):
            raise NeedsInput(INPUT_FORM_HINT)
        if isinstance(input, str) and self._chat():  # a graph of str input takes it as is
            input = user_message(input)
        if fresh:
            self.batcher.discard()
            self.hub.reset()
        if step is not None:
            getattr(self.debugger, step)()
        return input

    def send_message(self, text: str) -> asyncio.Task[None]:
        """Send ``text`` as a new user message on the current thread."""
        if self.target is None:
            raise NeedsInput("No agent is loaded: open an agent file or a scenario first")
        if not self._chat():
            raise NeedsInput("This agent has no 'messages' in its state: it takes no chat input")
        if not text.strip():
            raise NeedsInput("The message is empty")
        fresh = self.hub.thread_id not in self._ran_on
        if fresh and self.default_input is None and not self.busy:
            self.typed_input = user_message(text)
        return self.start(user_message(text), fresh=fresh)

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

    async def _drive(
        self, inp: Any, checkpoint_id: str | None = None, model_override: Any = None
    ) -> None:
        """Run ``inp`` on the current thread, then answer its interrupts (``RunDriver.drive``)
        until the thread rests; a newer command (``_gen``) abandons what is left."""
        gen = self._gen
        thread = self.hub.thread_id
        assert self.driver is not None
        self._ran_on.add(thread)
        self.last_error = None
        self.pending_interrupts = []
        run_id = f"run-{uuid.uuid4().hex[:12]}"
        request = RunRequest(
            inp,
            thread,
            checkpoint_id=checkpoint_id,
            run_id=run_id,
            model_override=model_override,
            context=self.context,
            configurable=self.configurable,
        )

        async def answer(interrupts: list[InterruptRaised]) -> Any:
            if gen != self._gen:
                return STAY
            self.batcher.flush()
            self.pending_interrupts = list(interrupts)
            self.hub.set_status("interrupted")
            value = await self._ask(interrupts, gen)
            if value is not STAY:
                self._begin_run()
            return value

        self._begin_run()
        try:
            outcome = await self.driver.drive(request, _ignore, answer)
        finally:
            if gen == self._gen:
                self.batcher.flush()
        if gen != self._gen:
            return
        if outcome.status == "error":
            self.last_error = outcome.error
        self.pending_interrupts = list(outcome.interrupts)
        self.hub.set_status(outcome.status)

    def _begin_run(self) -> None:
        self.pending_interrupts = []
        self.hub.set_status("running")

    async def _ask(self, interrupts: list[InterruptRaised], gen: int) -> Any:
        """The window's answer to ``interrupts`` (``STAY``: leave the thread waiting)."""
        handler = self.interrupt_handler
        if handler is None:
            return STAY
        try:
            value = await handler(interrupts)
        except asyncio.CancelledError:
            return STAY
        return STAY if gen != self._gen else value

    async def _answer(self, interrupts: list[InterruptRaised]) -> None:
        """Answer interrupts waiting on the thread (an opened saved thread, "answer later")."""
        value = await self._ask(interrupts, self._gen)
        if value is not STAY:
            await self._drive(value)

    # -- event and debugger callbacks (on the loop thread) -----------------------------------

    def _on_event(self, ev: EventBase) -> None:
        self.batcher.add(ev)

    def _on_pause(self, _dbg: Debugger) -> None:
        self.batcher.flush()
        self.hub.set_status("paused")

    def _on_resume(self, _dbg: Debugger) -> None:
        if self.busy:
            self.hub.set_status("running")


def _ignore(_ev: EventBase) -> None:
    """The window gets a run's events from the target's subscription (the batcher)."""


def _close_quietly(recorder: Any) -> None:
    try:
        recorder.close()
    except Exception as exc:  # a recording problem must not break the studio
        import sys

        print(f"stepwise studio: closing the session file failed: {exc}", file=sys.stderr)
