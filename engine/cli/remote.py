"""``stepwise run --server URL --assistant NAME`` and ``stepwise open --server URL`` without a
display: a graph on a LangGraph server, in the terminal.

``run`` prints the same live tree as the other modes, pauses at ``--break`` / ``--break-after``
(the server stops there: answer at the prompt, ``c`` to continue, ``n`` to step to the next
node, ``q`` to stop), prompts for an ``interrupt()``'s answer (typed as JSON), records the run
into a session file, and exits 0 when the run ends (2 for bad arguments or a server that cannot
be used, 3 when the run failed).  ``--join`` watches the run another client has going on the
thread (or the next one) instead of starting one.  Credentials come from the environment only
(``LANGGRAPH_API_KEY`` / ``LANGSMITH_API_KEY``, ``--header NAME=ENV_VAR``).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.cli.prompt import Console
from engine.cli.render import TreeRenderer
from engine.cli.run import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_USAGE,
    Driver,
    UsageError,
    build_configurable,
    build_context_json,
    open_recorder,
    run_recorded,
)
from engine.debug import Debugger
from engine.recording import SessionRecorder
from engine.targets import RunOutcome, TargetError

if TYPE_CHECKING:
    from engine.remote.target import RemoteTarget

__all__ = ["RemoteOptions", "run_remote", "show_remote"]


@dataclass
class RemoteOptions:
    server: str
    assistant: str | None = None
    thread: str | None = None
    input_text: str | None = None
    input_json: str | None = None
    context_json: str | None = None
    configurable_json: str | None = None
    headers: list[str] = field(default_factory=list)
    breaks: list[str] = field(default_factory=list)
    breaks_after: list[str] = field(default_factory=list)
    break_on_failure: bool = False
    unsupported: list[str] = field(default_factory=list)
    """Options given that a server cannot honour (``--break-tool``...), named for the error."""
    join: bool = False
    session: str | None = None
    record: bool = True
    color: bool = False


class _Usage(Exception):
    pass


def _input(target: RemoteTarget, opts: RemoteOptions) -> Any:
    if opts.input_text is not None and opts.input_json is not None:
        raise _Usage("give either --input or --input-json, not both")
    if opts.input_json is not None:
        try:
            return json.loads(opts.input_json)
        except json.JSONDecodeError as exc:
            raise _Usage(f"--input-json is not valid JSON: {exc}") from None
    has_messages = "messages" in target.state_keys()
    if opts.input_text is not None:
        if not has_messages:
            raise _Usage(
                f"{target.name} has no 'messages' key: give its input as JSON with --input-json"
            )
        from engine.messages import HumanMessage

        return {"messages": [HumanMessage(content=opts.input_text)]}
    if has_messages:
        raise _Usage(
            "no input: give the first message with --input TEXT (or JSON with --input-json)"
        )
    return {}


async def _waiting(target: RemoteTarget, opts: RemoteOptions) -> bool:
    """True when ``--thread`` is given without an input and the thread waits on the server (at
    an ``interrupt()`` or a breakpoint): the run then continues it (and prompts for the
    answer) rather than starting over with a new input."""
    if not opts.thread or opts.input_text is not None or opts.input_json is not None:
        return False
    snap = await target.state(opts.thread)
    return snap is not None and bool(snap.next)


def _debugger(target: RemoteTarget, opts: RemoteOptions) -> Debugger:
    if opts.unsupported:
        why = target.capabilities.why_not("pause_in_node")
        raise _Usage(f"{', '.join(opts.unsupported)}: not with --server ({why})")
    nodes = target.root_nodes
    inner = set(target.shape(xray=True).nodes) - set(nodes)
    dbg = Debugger()
    for flag, names, add in (
        ("--break", opts.breaks, dbg.break_before),
        ("--break-after", opts.breaks_after, dbg.break_after),
    ):
        for name in names:
            if name in inner:
                raise _Usage(
                    f"{flag} {name}: a server stops only at the nodes of the root graph "
                    f"({', '.join(nodes)})"
                )
            if name not in nodes:
                raise _Usage(
                    f"{flag}: {target.name} has no node {name!r} (nodes: {', '.join(nodes)})"
                )
            add(name)
    if opts.break_on_failure:
        dbg.break_on_failure()
    return dbg


class RemoteDriver(Driver):
    """``Driver`` (the live tree, prompts, Ctrl+C) on a remote target; ``join`` watches
    another client's run instead of starting one; the connection closes with the run."""

    def __init__(
        self,
        target: RemoteTarget,
        thread: str,
        dbg: Debugger,
        console: Console,
        renderer: TreeRenderer,
        join: bool = False,
        context: Any = None,
        configurable: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(target, thread, dbg, console, renderer, context, configurable)
        self.remote = target
        self.join = join

    async def run(self, inp: Any) -> int:
        try:
            if not self.join:
                return await super().run(inp)
            self.streaming = True
            handle = self.remote.join(self.thread, self.dbg)
            async for ev in handle:
                await self._on_event(ev)
            outcome = handle.outcome or RunOutcome(handle.run_id, "cancelled")
            if outcome.status == "error":
                self.console.err(f"stepwise: the run failed: {outcome.error}")
                return EXIT_ERROR
            return EXIT_OK
        finally:
            self.streaming = False
            await self.remote.aclose()

    def kept(self) -> str:
        """The thread waits on the server: the same command with ``--thread`` answers it."""
        url = self.remote.client.display_url
        return (
            f" on the server (answer it later: stepwise run --server {url} "
            f"--assistant {self.remote.name} --thread {self.thread})"
        )


async def _connect(opts: RemoteOptions, console: Console) -> RemoteTarget | None:
    from engine.remote import connect

    try:
        target = await connect(opts.server, opts.assistant, headers=opts.headers)
    except TargetError as exc:
        console.err(f"stepwise: {exc}")
        return None
    target.notice_handlers.append(lambda text: console.err(f"stepwise: note: {text}"))
    return target


def run_remote(opts: RemoteOptions, console: Console) -> int:
    """``stepwise run --server``: returns the exit code (see module docstring)."""
    try:
        context = build_context_json(opts.context_json)
        configurable = build_configurable(opts.configurable_json)
    except UsageError as exc:
        console.err(f"stepwise: {exc}")
        return EXIT_USAGE

    async def prepare() -> tuple[RemoteTarget, Any, Debugger, str] | None:
        target = await _connect(opts, console)
        if target is None:
            return None
        try:
            if opts.join and not opts.thread:
                raise _Usage("--join needs --thread (the thread whose run to watch)")
            dbg = _debugger(target, opts)
            inp = None if opts.join or await _waiting(target, opts) else _input(target, opts)
            thread = opts.thread or await target.new_thread()
        except (_Usage, TargetError) as exc:
            console.err(f"stepwise: {exc}")
            return None
        finally:  # the run has a loop of its own (Driver.main): so will its connection
            await target.client.aclose()
        return target, inp, dbg, thread

    ready = asyncio.run(prepare())
    if ready is None:
        return EXIT_USAGE
    return _run_on(*ready, opts, console, context, configurable)


def _run_on(
    target: RemoteTarget,
    inp: Any,
    dbg: Debugger,
    thread: str,
    opts: RemoteOptions,
    console: Console,
    context: Any = None,
    configurable: dict[str, Any] | None = None,
) -> int:
    console.err(
        f"stepwise: {target.assistant.label} on {target.client.display_url}, thread {thread}"
    )
    recorder: SessionRecorder | None = None
    if opts.record:
        recorder = open_recorder(opts.session, console)
        if recorder is None:
            return EXIT_USAGE
        recorder.attach(target)
    renderer = TreeRenderer(color=opts.color)
    driver = RemoteDriver(
        target,
        thread,
        dbg,
        console,
        renderer,
        join=opts.join,
        context=context,
        configurable=configurable,
    )
    return run_recorded(lambda: driver.main(inp), recorder, console)


def show_remote(opts: RemoteOptions, console: Console) -> int:
    """``stepwise open --server`` without a display: the assistants and threads (or the
    ``--thread``'s checkpoints) in the terminal."""

    async def show() -> int:
        target = await _connect(opts, console)
        if target is None:
            return EXIT_USAGE
        try:
            console.out(f"{target.assistant.label} on {target.client.display_url}")
            if opts.thread:
                history = await target.history(opts.thread, limit=50)
                if not history:
                    console.out(f"thread {opts.thread}: no checkpoints")
                for snap in history:
                    meta = snap.metadata or {}
                    cid = str(snap.config["configurable"].get("checkpoint_id", ""))
                    nxt = ", ".join(snap.next) or "(end)"
                    console.out(f"  step {meta.get('step')!s:>3}  {cid}  next: {nxt}")
                return EXIT_OK
            for info in await target.threads():
                console.out(f"  {info.thread_id}  {info.status or '':<11}  {info.updated_at or ''}")
            return EXIT_OK
        except TargetError as exc:
            console.err(f"stepwise: {exc}")
            return EXIT_USAGE
        finally:
            await target.aclose()

    return asyncio.run(show())
