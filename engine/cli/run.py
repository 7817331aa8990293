"""``stepwise run``: run an agent headless with a live event tree, breakpoints and HITL prompts.

Exit codes: 0 the run is done (or was stopped with ``q``, or left interrupted), 2 bad arguments
or agent file, 3 the run raised, 130 stopped with Ctrl+C, 143 / 129 stopped by SIGTERM / SIGHUP
(the recorded run is closed as cancelled either way).  A sync tool that hangs does not keep the
process alive after a stop: once the session is closed the process exits without waiting for it.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import copy
import json
import signal
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.cli.prompt import STOP, Console, ask_resume, breakpoint_prompt
from engine.cli.render import TreeRenderer
from engine.core.process_exit import cancel_leftovers
from engine.debug import Debugger
from engine.events import EventBase, InterruptRaised
from engine.loader import AgentLoadError, load_target
from engine.recording import SessionError, SessionRecorder
from engine.targets import STAY, RunDriver, RunRequest, Target, target_for
from engine.targets.graph_run import configurable_problem

if TYPE_CHECKING:
    from engine.attach.options import AttachOptions

__all__ = [
    "EXIT_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "Driver",
    "RunOptions",
    "UsageError",
    "run_agent",
]

EXIT_OK, EXIT_USAGE, EXIT_ERROR, EXIT_INTERRUPTED = 0, 2, 3, 130
STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""Signals that stop the run like Ctrl+C does (the recorded run is closed as cancelled)."""
INPUT_ATTRS = ("INPUT", "DEFAULT_INPUT")
"""Module attributes an agent file may define to give its default input."""


class UsageError(Exception):
    """Bad arguments (exit code 2)."""


@dataclass
class RunOptions:
    spec: str
    input_text: str | None = None
    input_json: str | None = None
    context_json: str | None = None
    """The run context (``context=``) as JSON, for graphs with a ``context_schema``."""
    configurable_json: str | None = None
    """The app's own ``config["configurable"]`` keys as a JSON object (``{"user_id": "u1"}``)."""
    thread: str | None = None
    runtime: str = "auto"
    """``auto`` | ``engine`` | ``langgraph`` (attach to a real langgraph graph)."""
    checkpointer: str | None = None
    """Attach mode: a langgraph saver URL (``memory``, ``sqlite:///path``, ``postgres://...``)."""
    stream_tokens: bool = False
    """Attach mode: stream the models so their tokens show."""
    session: str | None = None
    record: bool = True
    breaks: list[str] = field(default_factory=list)
    breaks_after: list[str] = field(default_factory=list)
    break_tools: list[str] = field(default_factory=list)
    break_on_failure: bool = False
    break_on_loop: bool = False
    break_when: list[str] = field(default_factory=list)
    color: bool = False
    fallback_text: str | None = None

    def attach_options(self) -> AttachOptions:
        from engine.attach.options import AttachOptions

        return AttachOptions(self.runtime, self.checkpointer, self.stream_tokens)

    """Input text to use when neither the options nor the agent file give one (the demo)."""


def default_session_path() -> Path:
    folder = Path.cwd() / ".stepwise" / "sessions"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"{stamp}.stepwise"
    n = 1
    while path.exists():
        n += 1
        path = folder / f"{stamp}-{n}.stepwise"
    return path


def _has_messages(graph: Any) -> bool:
    keys = set(getattr(graph, "input_keys", None) or ()) | set(
        getattr(graph, "channels", None) or ()
    )
    return "messages" in keys


def build_input(graph: Any, opts: RunOptions, module_default: Any) -> Any:
    """The run's input from ``--input`` / ``--input-json`` / the file's ``INPUT`` (see module doc)."""
    from engine.messages import HumanMessage

    has_messages = _has_messages(graph)
    if opts.input_text is not None and opts.input_json is not None:
        raise UsageError("give either --input or --input-json, not both")
    if opts.input_json is not None:
        try:
            return json.loads(opts.input_json)
        except json.JSONDecodeError as exc:
            raise UsageError(f"--input-json is not valid JSON: {exc}") from None
    text = opts.input_text
    if text is None and module_default is not None:
        if not isinstance(module_default, str) or not has_messages:
            return module_default  # a graph of str input (an ``@entrypoint``) takes it as is
        text = module_default
    if text is None:
        text = opts.fallback_text
    if text is not None:
        if not has_messages:
            raise UsageError(
                "this graph has no 'messages' key: give its input as JSON with --input-json"
            )
        return {"messages": [HumanMessage(content=text)]}
    if has_messages:
        raise UsageError(
            "no input: give the first message with --input TEXT (or JSON with --input-json)"
        )
    return {}


def build_configurable(text: str | None) -> dict[str, Any] | None:
    """The app's ``configurable`` keys from ``--configurable-json`` (None without)."""
    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--configurable-json is not valid JSON: {exc}") from None
    problem = configurable_problem(value)
    if problem is not None:
        raise UsageError(f"--configurable-json: {problem}")
    return dict(value)


def build_context_json(text: str | None) -> Any:
    """The run context from the text of ``--context-json`` (None without)."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--context-json is not valid JSON: {exc}") from None


def _debugger(graph: Any, opts: RunOptions) -> Debugger:
    nodes = [n for n in getattr(graph, "nodes", {}) if not n.startswith("__")]
    dbg = Debugger()
    for name in [*opts.breaks, *opts.breaks_after]:
        if nodes and name not in nodes:
            raise UsageError(f"--break: the graph has no node {name!r} (nodes: {', '.join(nodes)})")
    for name in opts.breaks:
        dbg.break_before(name)
    for name in opts.breaks_after:
        dbg.break_after(name)
    for tool in opts.break_tools:
        dbg.break_on_tool(tool)
    if opts.break_on_failure:
        dbg.break_on_failure()
    if opts.break_on_loop:
        dbg.break_on_loop()
    for expr in opts.break_when:
        try:
            dbg.break_when(expr)
        except SyntaxError as exc:
            raise UsageError(f"--break-when {expr!r}: {exc.msg}") from None
    return dbg


def unknown_names(expr: str, graph: Any) -> list[str]:
    """Names a ``--break-when`` expression reads that are neither state keys, ``state``, the
    allowed builtins nor its own loop variables (such an expression can never be true)."""
    from engine.debug.breakpoints import _SAFE_BUILTINS

    keys = {
        str(k)
        for k in (
            *(getattr(graph, "channels", None) or ()),
            *(getattr(graph, "input_keys", None) or ()),
        )
    }
    if not keys:
        return []
    tree = ast.parse(expr, mode="eval")
    bound = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    bound |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.Lambda) for a in n.args.args}
    allowed = keys | bound | set(_SAFE_BUILTINS) | {"state", "True", "False", "None"}
    seen = [
        n.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in allowed
    ]
    return list(dict.fromkeys(seen))


def _warn_break_when(graph: Any, opts: RunOptions, console: Console) -> None:
    for expr in opts.break_when:
        missing = unknown_names(expr, graph)
        if missing:
            keys = sorted(
                k for k in (getattr(graph, "channels", None) or ()) if not str(k).startswith("__")
            )
            console.err(
                f"stepwise: --break-when {expr!r}: {', '.join(map(repr, missing))} is not a state "
                f"key (keys: {', '.join(map(str, keys))}); this breakpoint will never fire"
            )


def _with_saver(graph: Any, saver: Any) -> Any:
    """The graph with ``saver`` as checkpointer, unless it has a persistent one of its own."""
    from engine.checkpoint.memory import InMemorySaver

    current = getattr(graph, "checkpointer", None)
    if current in (None, True, False) or isinstance(current, InMemorySaver):
        graph = copy.copy(graph)
        graph.checkpointer = saver
    return graph


def _attached(graph: Any, opts: RunOptions) -> Any:
    """The graph to run: attached to the real langgraph when asked or when it is one."""
    from engine.attach.options import AttachError

    try:
        return opts.attach_options().apply(graph)
    except AttachError as exc:
        raise UsageError(str(exc)) from None


def _kept(graph: Any) -> str:
    """Where an interrupted thread waits, and so whether it can be resumed later."""
    from engine.checkpoint.sqlite import SqliteSaver

    saver = getattr(graph, "checkpointer", None)
    if isinstance(saver, SqliteSaver):
        return " (resume it later from the session)"
    in_memory = any(c.__name__ in ("InMemorySaver", "MemorySaver") for c in type(saver).__mro__)
    if saver in (None, True, False) or in_memory:  # LangGraph's (or attach mode's, a subclass)
        return (
            ", but only in this process's memory: it is gone when stepwise exits (record a "
            "session, or give a persistent --checkpointer, to resume it later)"
        )
    return " (resume it later with --thread on the same checkpointer)"


class Driver:
    """Runs the agent (resuming after each interrupt) and reacts to Ctrl+C."""

    def __init__(
        self,
        target: Target,
        thread: str,
        dbg: Debugger,
        console: Console,
        renderer: TreeRenderer,
        context: Any = None,
        configurable: dict[str, Any] | None = None,
    ) -> None:
        self.target = target
        self.thread = thread
        self.dbg = dbg
        self.console = console
        self.renderer = renderer
        self.context = context
        self.configurable = configurable
        self.streaming = False
        """True while events flow (not at a prompt): Ctrl+C then stops the run via the debugger."""
        self.interrupted = False
        self.stop_signal: signal.Signals | None = None
        """SIGTERM / SIGHUP, when one stopped the run (exit code 128 + its number)."""

    async def _on_event(self, ev: EventBase) -> None:
        line = self.renderer.line(ev)
        if line is not None:
            self.console.out(line, styled=True)
        if ev.kind == "debug.paused":
            self.streaming = False
            await breakpoint_prompt(self.console, self.dbg)
            self.streaming = True

    async def _answer(self, interrupts: list[InterruptRaised]) -> Any:
        self.streaming = False
        resume = await ask_resume(self.console, list(interrupts))
        if resume is STOP:
            return STAY
        self.streaming = True
        return resume

    async def run(self, inp: Any) -> int:
        """Run until done; returns the exit code."""
        console, thread = self.console, self.thread
        request = RunRequest(inp, thread, context=self.context, configurable=self.configurable)
        self.streaming = True
        try:
            outcome = await RunDriver(self.target, self.dbg).drive(
                request, self._on_event, self._answer
            )
        finally:
            self.streaming = False
        if outcome.status == "cancelled":
            console.out(f"stopped: the last checkpoint of thread {thread} is intact")
            return EXIT_OK
        if outcome.status == "error":
            console.err(f"stepwise: the run failed: {outcome.error}")
            return EXIT_ERROR
        if outcome.status == "interrupted":
            console.out(f"the run stays interrupted on thread {thread}{self.kept()}")
        return EXIT_OK

    def kept(self) -> str:
        """Where an interrupted thread waits, and how to answer it later."""
        return _kept(getattr(self.target, "graph", None))

    def main(self, inp: Any) -> int:
        """``run`` on a fresh event loop.  The first Ctrl+C stops the run cleanly (through the
        debugger, so the tree shows the cancelled spans); a second one quits at once.  SIGTERM
        and SIGHUP stop it the same way, so the recorded run is closed as cancelled."""
        loop = asyncio.new_event_loop()
        task = loop.create_task(self.run(inp))
        code = EXIT_INTERRUPTED

        def stop_run() -> None:
            if self.streaming:
                self.dbg.stop()
            else:  # at a prompt (or between runs): nothing runs, stop waiting for the answer
                task.cancel()

        def on_sigint() -> None:
            if self.interrupted:
                loop.remove_signal_handler(signal.SIGINT)
                raise KeyboardInterrupt
            self.interrupted = True
            self.console.err("stepwise: stopping the run (Ctrl+C again to quit at once)")
            stop_run()

        def on_stop_signal(signum: int) -> None:
            if self.stop_signal is None:
                self.stop_signal = signal.Signals(signum)
                stop_run()

        handled: list[int] = []
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGINT, on_sigint)
            handled.append(signal.SIGINT)
            for sig in STOP_SIGNALS:
                loop.add_signal_handler(sig, on_stop_signal, sig)
                handled.append(sig)
        try:
            code = loop.run_until_complete(task)
        except (asyncio.CancelledError, KeyboardInterrupt):
            if self.stop_signal is None:
                self.interrupted = True
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    loop.run_until_complete(task)
        finally:
            for sig in handled:
                with contextlib.suppress(Exception):
                    loop.remove_signal_handler(sig)
            cancel_leftovers(loop)  # else each one is "Task was destroyed but it is pending!"
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
        if self.stop_signal is not None and not self.interrupted:
            self.console.err(
                f"stepwise: stopped ({self.stop_signal.name}); the last checkpoint is intact"
            )
            return 128 + int(self.stop_signal)
        if self.interrupted:
            self.console.err("stepwise: stopped (Ctrl+C); the last checkpoint is intact")
            return EXIT_INTERRUPTED
        return code


def is_stop_code(code: int) -> bool:
    """True for the exit codes of a run stopped by Ctrl+C, SIGTERM or SIGHUP."""
    return code == EXIT_INTERRUPTED or code in {128 + int(s) for s in STOP_SIGNALS}


def run_agent(opts: RunOptions, console: Console) -> int:
    """``stepwise run``: load, record and run the agent; returns the exit code."""
    try:
        loaded = load_target(opts.spec)
        module_default = next(
            (getattr(loaded.module, a) for a in INPUT_ATTRS if hasattr(loaded.module, a)), None
        )
        graph = _attached(loaded.graph, opts)
        inp = build_input(graph, opts, module_default)
        context = build_context_json(opts.context_json)
        configurable = build_configurable(opts.configurable_json)
        dbg = _debugger(graph, opts)
    except (AgentLoadError, UsageError) as exc:
        console.err(f"stepwise: {exc}")
        return EXIT_USAGE
    _warn_break_when(graph, opts, console)
    from engine.middleware.pii import pii_text_filter

    redact = pii_text_filter(graph)  # what the agent redacts is redacted on screen too
    if redact is not None:
        console.filters.append(redact)
    for notice in getattr(graph, "notices", list)():
        console.err(f"stepwise: note: {notice}")
    attached = getattr(graph, "runtime", None) == "langgraph"
    thread = opts.thread or f"cli-{uuid.uuid4().hex[:8]}"
    recorder: SessionRecorder | None = None
    if opts.record:
        recorder = open_recorder(opts.session, console)
        if recorder is None:
            return EXIT_USAGE
        if not attached:  # attached graphs keep their langgraph saver
            graph = _with_saver(graph, recorder.checkpointer)
        recorder.attach(graph)
    elif not attached:
        from engine.checkpoint.memory import InMemorySaver

        graph = _with_saver(graph, InMemorySaver())
    renderer = TreeRenderer(color=opts.color)
    driver = Driver(target_for(graph), thread, dbg, console, renderer, context, configurable)
    return run_recorded(lambda: driver.main(inp), recorder, console)


def open_recorder(session: str | None, console: Console) -> SessionRecorder | None:
    """The session file a run records into (``session``, else a new one); None, said in one
    line, when it cannot be opened."""
    path = Path(session) if session else default_session_path()
    try:
        return SessionRecorder(path)
    except SessionError as exc:
        console.err(f"stepwise: {exc}")
        return None


def run_recorded(
    main: Callable[[], int], recorder: SessionRecorder | None, console: Console
) -> int:
    """``main()``'s exit code; the recorder (if any) closed after it, whatever happened, and
    where the session is said."""
    try:
        code = main()
    finally:
        if recorder is not None:
            try:
                recorder.close()
            except SessionError as exc:
                console.err(f"stepwise: {exc}")
    if recorder is not None:
        console.out(f"session: {recorder.path}  (stepwise replay {recorder.path})")
    return code
