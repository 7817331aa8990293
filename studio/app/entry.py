"""The studio's entry point: ``main(argv) -> exit code``.

    main([])                          the default scenario (seed 000), loaded and ready
    main(["demo"])                    the same
    main(["open", "file.py:attr"])    an agent file (without ":attr", pick one of its graphs)
    main(["session", "x.stepwise"])   a recorded session, for replay
    main(["open", "--server", URL])   a graph on a LangGraph server (--assistant, --thread)
    options: --theme light|dark, --scenario NAME

One asyncio loop, the Qt loop (qasync).  The window is shown and painted first; the agent is
loaded right after, so the cold start to a painted window stays short.  With
``STEPWISE_EXIT_AFTER_PAINT=1`` the app prints ``painted <unix time>`` after its first paint and
quits; with ``=ready`` it also loads the agent and prints ``ready <unix time>`` first (the
start-up benchmark, ``tests/bench/bench_studio_start.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, TypeVar

Driver = Callable[[Any], Awaitable[Any]]
T = TypeVar("T")

__all__ = ["main", "parse_args", "run_on_qt"]


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="stepwise", description="Stepwise studio")
    p.add_argument("command", nargs="?", default="demo", help="demo | open | session (or a file)")
    p.add_argument("target", nargs="?", help="file.py[:attr] for open, FILE.stepwise for session")
    p.add_argument("--theme", choices=("light", "dark"))
    p.add_argument("--scenario", help="a built-in scenario to open instead of the default")
    p.add_argument("--thread", help="open: show this saved thread")
    p.add_argument("--runtime", choices=("auto", "engine", "langgraph"), default="auto")
    p.add_argument("--checkpointer", help="open, attach mode: the app's saver URL")
    p.add_argument("--stream-tokens", action="store_true", help="open, attach mode (default)")
    p.add_argument(
        "--no-stream-tokens", action="store_true", help="open, attach mode: no model tokens"
    )
    p.add_argument("--input", dest="input_text", help="open: the first message to run")
    p.add_argument("--input-json", help="open: the input to run, as JSON")
    p.add_argument("--context-json", help="open: the run context, as JSON (context_schema)")
    p.add_argument(
        "--configurable-json",
        help='open: the app\'s own config["configurable"] keys, as JSON ({"user_id": "u1"})',
    )
    p.add_argument("--server", help="open: a LangGraph server's URL")
    p.add_argument("--assistant", help="open --server: the graph or assistant")
    p.add_argument("--header", dest="headers", action="append", default=[], help="NAME=ENV_VAR")
    args = p.parse_args(list(argv))
    if args.server:
        if args.command not in ("demo", "open") or args.target:
            p.error("--server opens a graph on a server: give no file with it")
        args.command = "open"
        return args
    if args.command not in ("demo", "open", "session", "replay"):  # a bare file
        args.target, args.command = (
            args.command,
            "session" if args.command.endswith(".stepwise") else "open",
        )
    if args.command in ("open", "session", "replay") and not args.target:
        p.error(f"{args.command} needs a file")
    if args.input_text is not None and args.input_json is not None:
        p.error("give either --input or --input-json, not both")
    for option in ("input_json", "context_json", "configurable_json"):
        text = getattr(args, option)
        if text is not None:
            try:
                json.loads(text)
            except json.JSONDecodeError as exc:
                p.error(f"--{option.replace('_', '-')} is not valid JSON: {exc}")
    if args.configurable_json is not None:
        from engine.targets.graph_run import configurable_problem

        problem = configurable_problem(json.loads(args.configurable_json))
        if problem is not None:
            p.error(f"--configurable-json: {problem}")
    return args


def _load_initial(window: object, args: argparse.Namespace) -> None:
    from studio.app.main_window import MainWindow
    from studio.app.scenarios import DEFAULT_SCENARIO

    assert isinstance(window, MainWindow)
    if getattr(args, "configurable_json", None) is not None:
        window.controller.configurable = json.loads(args.configurable_json) or None
    if args.command in ("session", "replay"):
        window.open_session(args.target)
    elif getattr(args, "server", None):
        from studio.run.remote_open import connect_and_open

        window.remote_opening = asyncio.ensure_future(  # type: ignore[attr-defined]
            connect_and_open(window, args.server, args.assistant, args.thread, args.headers)
        )
    elif args.command == "open":
        from engine.attach.options import AttachOptions
        from studio.run.saved_threads import open_in_window

        window.controller.attach = AttachOptions(
            args.runtime, args.checkpointer, not args.no_stream_tokens
        )
        given = _given_input(args)
        target = str(args.target)
        if target.endswith(".py") and os.path.isfile(target):
            loaded = window.open_agent_file(target)
        else:
            loaded = asyncio.get_event_loop().create_future()
            loaded.set_result(window.load_spec(target))
        if given is not None:
            loaded.add_done_callback(lambda done: done.result() and _use_input(window, *given))
        if args.thread:
            thread = str(args.thread)
            loaded.add_done_callback(
                lambda done: done.result() and asyncio.ensure_future(open_in_window(window, thread))
            )
    else:
        name = args.scenario or DEFAULT_SCENARIO
        if window.load_scenario(name) and window.controller.default_input is None:
            from engine.cli import DEMO_TEXT
            from studio.run.controller import user_message

            window.controller.default_input = user_message(DEMO_TEXT)
    window.activateWindow()


def _given_input(args: argparse.Namespace) -> tuple[Any, Any] | None:
    """(input, context) from ``--input`` / ``--input-json`` / ``--context-json`` (None when
    none is given; ``parse_args`` checked the JSON)."""
    if args.input_text is None and args.input_json is None and args.context_json is None:
        return None
    inp: Any = None if args.input_json is None else json.loads(args.input_json)
    context: Any = None if args.context_json is None else json.loads(args.context_json)
    if args.input_text is not None:
        from studio.run.controller import user_message

        inp = user_message(args.input_text)
    return inp, context


def _use_input(window: Any, inp: Any, context: Any) -> None:
    """The given input and context: what Run starts with (Restart too)."""
    if inp is not None:
        window.controller.typed_input = inp
        window.controller.default_input = inp
    if context is not None:
        window.controller.context = context


class _FirstPaint:
    """Runs ``callback`` once, after the window's first paint."""

    def __init__(self, window: object, callback: object) -> None:
        from PySide6.QtCore import QEvent, QObject

        class Filter(QObject):
            def eventFilter(self, obj: QObject, event: QEvent) -> bool:
                if event.type() == QEvent.Type.Paint and not done[0]:
                    done[0] = True
                    from PySide6.QtCore import QTimer

                    QTimer.singleShot(0, callback)  # type: ignore[arg-type]
                return False

        done = [False]
        self.filter = Filter()
        window.installEventFilter(self.filter)  # type: ignore[attr-defined]


async def _run(args: argparse.Namespace, driver: Driver | None = None) -> int:
    """Show the window, load what ``args`` say after the first paint, then run ``driver``
    (scripts that take screenshots drive the real app this way) until the window closes."""
    from PySide6.QtWidgets import QApplication

    from studio.app.main_window import MainWindow
    from studio.app.settings_store import StudioSettings
    from studio.look.theme import apply_theme

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    settings = StudioSettings.load()
    if args.theme:
        settings.theme = args.theme
    apply_theme(app, settings.theme)
    window = MainWindow(settings=settings)
    from studio.app.gc_policy import GcPolicy

    window.gc_policy = GcPolicy(window.hub)  # type: ignore[attr-defined]
    closed = asyncio.get_running_loop().create_future()
    app.lastWindowClosed.connect(lambda: closed.done() or closed.set_result(0))
    exit_when = os.environ.get("STEPWISE_EXIT_AFTER_PAINT", "")
    exit_after_paint = exit_when in ("1", "ready")
    tasks: list[asyncio.Future[Any]] = []

    def after_paint() -> None:
        if exit_after_paint:
            print(f"painted {time.time():.4f}", flush=True)
            if exit_when != "ready":
                window.close()
                return
        _load_initial(window, args)
        if exit_when == "ready":
            print(f"ready {time.time():.4f}", flush=True)
            window.close()
            return
        if driver is not None:
            tasks.append(asyncio.ensure_future(driver(window)))

    hook = _FirstPaint(window, after_paint)
    window.open_on_screen()  # inside the screen, where it was last closed if that still fits
    try:
        return int(await closed)
    finally:
        del hook


def main(argv: list[str] | None = None) -> int:
    """Open the studio; returns the process exit code."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from studio.app.platform_check import check_can_open_window

    check_can_open_window()  # before Qt can abort the process with its plugin message
    from PySide6.QtWidgets import QApplication

    from studio.app import qt_refcount

    app = QApplication.instance() or QApplication(sys.argv[:1])
    qt_refcount.protect()  # a no-op unless this PySide6 build drops references (see the module)
    app.setApplicationName("Stepwise")
    app.setOrganizationName("Stepwise")
    QApplication.setQuitOnLastWindowClosed(False)  # the loop ends when the future above resolves
    try:
        return run_on_qt(app, _run(args), quit_if_stuck=CLOSE_GRACE)
    except asyncio.CancelledError:
        return 0


CLOSE_GRACE = 3.0
"""Seconds the program may take to end after its window closed: then a thread stuck in a sync
tool or node of a stopped run (Python cannot cancel it, and joins it at exit) is left behind
instead of keeping the closed studio alive; the session is already closed."""


def run_on_qt(app: Any, main: Coroutine[Any, Any, T], *, quit_if_stuck: float | None = None) -> T:
    """Run ``main`` on a qasync loop over ``app``, the app's one loop.

    Only this loop is a Qt loop.  ``qasync.run`` on Python 3.11 installs an event-loop policy
    whose *every* new loop is a Qt loop, for the whole process: an event loop that code on a
    worker thread makes for itself (LangChain does for each callback of a sync tool, a tool
    calls ``asyncio.run``) then tries to run the Qt application there and fails (``QApplication
    ::exec: Must be called from the main thread``, ``Event loop stopped before Future
    completed``).  Here, worker threads get plain asyncio loops, as on Python 3.12+.

    With ``quit_if_stuck``, once ``main`` has ended the process ends at the latest that many
    seconds later (see ``CLOSE_GRACE``)."""
    import qasync

    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        asyncio.set_event_loop(runner.get_loop())  # for Qt slots that ask for "the" loop
        try:
            return runner.run(main)
        finally:
            asyncio.set_event_loop(None)
            if quit_if_stuck is not None:  # before the runner joins the loop's worker threads
                from engine.core.process_exit import exit_if_stuck

                exit_if_stuck(1 if sys.exc_info()[0] else 0, quit_if_stuck)


if __name__ == "__main__":
    from studio.app.platform_check import QtUnavailable

    try:
        sys.exit(main())
    except QtUnavailable as exc:
        print(f"stepwise: {exc}", file=sys.stderr)
        sys.exit(2)
