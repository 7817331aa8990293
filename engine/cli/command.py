"""The ``stepwise`` command.

    stepwise                          open the studio on the default scenario
    stepwise demo                     the same
    stepwise open FILE.py:ATTR [--thread ID] [--runtime ...] [--checkpointer URL] [--stream-tokens]
                                      open the studio on an agent (on a saved thread)
    stepwise open --server URL [--assistant NAME_OR_ID] [--thread ID] [--header NAME=ENV_VAR ...]
                                      open the studio on a graph on a LangGraph server
    stepwise run FILE.py:ATTR [--input TEXT | --input-json JSON] [--thread ID]
                 [--runtime auto|engine|langgraph] [--checkpointer URL] [--stream-tokens]
                 [--session PATH | --no-session] [--break NODE ...] [--break-after NODE ...]
                 [--break-tool NAME ...] [--break-on-failure] [--break-on-loop]
                 [--break-when EXPR ...] --headless
    stepwise run --server URL --assistant NAME [--thread ID] [--input TEXT | --input-json JSON]
                 [--break NODE ...] [--break-after NODE ...] [--header NAME=ENV_VAR ...] [--join]
                                      run (or --join) a graph on a LangGraph server; the API key
                                      comes from LANGGRAPH_API_KEY / LANGSMITH_API_KEY
    stepwise replay SESSION [--run RUN_ID]
    stepwise export SESSION --format jsonl|mermaid|otlp-json [--run RUN_ID] [--path] [-o FILE]
    stepwise export SESSION --format otlp --endpoint URL [--run RUN_ID]
                                      OpenTelemetry traces (GenAI conventions; the otel extra;
                                      headers from OTEL_EXPORTER_OTLP_HEADERS)
    stepwise unlock SESSION [--thread ID]   break a thread lease left by a run that is gone

Without a display (no DISPLAY / WAYLAND_DISPLAY and no QT_QPA_PLATFORM on Linux), or while the
studio is not installed, the studio commands say so in one line and run headless instead.
Exit codes: 0 done, 2 bad arguments / agent file / session file, 3 the run failed,
130 stopped with Ctrl+C.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from engine.cli.prompt import Console
from engine.cli.run import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    RunOptions,
    is_stop_code,
    run_agent,
)
from engine.cli.session import cmd_export, cmd_replay, cmd_unlock
from engine.core.process_exit import exit_without_waiting
from engine.recording import SessionError

if TYPE_CHECKING:
    from engine.cli.remote import RemoteOptions

__all__ = ["DEFAULT_SCENARIO", "DEMO_TEXT", "build_parser", "main"]

DEFAULT_SCENARIO = "resources/scenarios/retry_todos.py"
DEMO_TEXT = "帮我创建 login.tsx 和 register.tsx 两个文件"
"""Seed 000's task: the demo's first message when the scenario file gives no ``INPUT``."""


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so ``main`` returns the exit code."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _ArgError(f"{self.prog}: {message}")


class _ArgError(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="stepwise", description="A debugger for LLM agents.")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    sub.add_parser("demo", help="open the studio on the default scenario")
    op = sub.add_parser("open", help="open the studio on an agent")
    op.add_argument("agent", nargs="?", help="path/to/file.py:attr or package.module:attr")
    op.add_argument(
        "--thread", metavar="ID", help="show this thread (e.g. one saved in production)"
    )
    op.add_argument("--input", dest="input_text", metavar="TEXT", help="first message to run")
    op.add_argument("--input-json", metavar="JSON", help="the input to run, as JSON")
    _context_option(op)
    op.add_argument(
        "--no-stream-tokens",
        action="store_true",
        help="attach mode: do not stream the models (the studio streams them by default)",
    )
    _attach_options(op)
    _server_options(op)

    run = sub.add_parser("run", help="run an agent in the terminal")
    run.add_argument(
        "agent",
        nargs="?",
        help="path/to/file.py:attr or package.module:attr (attr defaults to agent)",
    )
    run.add_argument(
        "--input",
        dest="input_text",
        metavar="TEXT",
        help="first message (graphs with a messages key)",
    )
    run.add_argument("--input-json", metavar="JSON", help="the input as JSON")
    _context_option(run)
    run.add_argument("--thread", metavar="ID", help="thread id (default: a new one)")
    _attach_options(run)
    run.add_argument(
        "--session",
        metavar="PATH",
        help="session file (default: ./.stepwise/sessions/<time>.stepwise)",
    )
    run.add_argument("--no-session", action="store_true", help="do not record a session")
    run.add_argument(
        "--break",
        dest="breaks",
        action="append",
        default=[],
        metavar="NODE",
        help="pause before NODE",
    )
    run.add_argument(
        "--break-after", action="append", default=[], metavar="NODE", help="pause after NODE"
    )
    run.add_argument(
        "--break-tool",
        action="append",
        default=[],
        metavar="NAME",
        help="pause when tool NAME starts",
    )
    run.add_argument(
        "--break-on-failure", action="store_true", help="pause at any failed attempt or error"
    )
    run.add_argument(
        "--break-on-loop",
        action="store_true",
        help="pause when the run loops (the same tool call 3 times, or 3 answers of only failing "
        "tool calls in a row)",
    )
    run.add_argument(
        "--break-when",
        action="append",
        default=[],
        metavar="EXPR",
        help="pause when EXPR over the state turns true",
    )
    run.add_argument(
        "--headless", action="store_true", help="run in the terminal (run always does)"
    )
    _server_options(run)
    run.add_argument(
        "--join",
        action="store_true",
        help="--server: watch the run another client has going on --thread (or its next one)",
    )
    _color_option(run)

    rp = sub.add_parser("replay", help="print a recorded session as an event tree")
    rp.add_argument("session", help="a .stepwise file")
    rp.add_argument("--run", metavar="RUN_ID", help="only this run")
    _color_option(rp)

    ex = sub.add_parser("export", help="export a recorded session")
    ex.add_argument("session", help="a .stepwise file")
    ex.add_argument("--format", choices=("jsonl", "mermaid", "otlp-json", "otlp"), required=True)
    ex.add_argument("--run", metavar="RUN_ID", help="only this run (mermaid: default the last run)")
    ex.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    ex.add_argument(
        "--path",
        action="store_true",
        help="mermaid: draw the run's path (nodes it ran with counts, edges it took)",
    )
    ex.add_argument(
        "--endpoint",
        metavar="URL",
        help="otlp: the collector's OTLP/HTTP URL (http://localhost:4318); headers are read "
        "from OTEL_EXPORTER_OTLP_HEADERS",
    )

    un = sub.add_parser("unlock", help="break thread leases left by runs that are gone")
    un.add_argument("session", help="a .stepwise (or checkpoint) file")
    un.add_argument("--thread", metavar="ID", help="only this thread (default: every thread)")
    return p


def _attach_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--runtime",
        choices=("auto", "engine", "langgraph"),
        default="auto",
        help="run on our engine or attach to the real langgraph (auto: by the object's type)",
    )
    p.add_argument(
        "--checkpointer",
        metavar="URL",
        help="attach mode: langgraph saver (memory, sqlite:///path, postgres://...)",
    )
    p.add_argument(
        "--stream-tokens",
        action="store_true",
        help="attach mode: stream the models, so their tokens show (LangGraph's messages mode)",
    )


def _context_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--context-json",
        metavar="JSON",
        help="the run context as JSON, for graphs with a context_schema (context=...)",
    )
    p.add_argument(
        "--configurable-json",
        metavar="JSON",
        help='the app\'s own config["configurable"] keys as a JSON object ({"user_id": "u1"})',
    )


def _server_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", metavar="URL", help="a LangGraph server (langgraph dev, ...)")
    p.add_argument("--assistant", metavar="NAME_OR_ID", help="--server: the graph or assistant")
    p.add_argument(
        "--header",
        dest="headers",
        action="append",
        default=[],
        metavar="NAME=ENV_VAR",
        help="--server: send header NAME with the value of environment variable ENV_VAR",
    )


def _remote_options(args: argparse.Namespace, console: Console) -> RemoteOptions:
    from engine.cli.remote import RemoteOptions

    if args.agent:
        raise _ArgError(f"stepwise {args.command}: give either an agent or --server, not both")
    unsupported = []
    if args.command == "run":
        unsupported = [
            flag
            for flag, given in (
                ("--break-tool", args.break_tool),
                ("--break-when", args.break_when),
            )
            if given
        ]
    return RemoteOptions(
        server=args.server,
        assistant=args.assistant,
        thread=args.thread,
        input_text=getattr(args, "input_text", None),
        input_json=getattr(args, "input_json", None),
        context_json=getattr(args, "context_json", None),
        configurable_json=getattr(args, "configurable_json", None),
        headers=list(args.headers),
        breaks=list(getattr(args, "breaks", [])),
        breaks_after=list(getattr(args, "break_after", [])),
        break_on_failure=bool(getattr(args, "break_on_failure", False)),
        unsupported=unsupported,
        join=bool(getattr(args, "join", False)),
        session=getattr(args, "session", None),
        record=not getattr(args, "no_session", False),
        color=use_color(getattr(args, "color", "auto"), console.stdout),
    )


def _color_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto", help="colour the tree"
    )


def use_color(choice: str, stream: TextIO) -> bool:
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def has_display() -> bool:
    """Can a Qt window open here?  (Always assumed on macOS and Windows.)"""
    if sys.platform in ("darwin", "win32"):
        return True
    return any(os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))


def default_scenario() -> Path:
    import resources

    return Path(resources.__file__).resolve().parent / "scenarios" / "retry_todos.py"


# -- commands -------------------------------------------------------------------------------------


def _headless(spec: str | None, console: Console, why: str) -> int:
    if spec is None:
        path = default_scenario()
        if not path.exists():
            console.err(
                f"stepwise: {why}, and the default scenario {DEFAULT_SCENARIO} is missing (not written yet?)"
            )
            return EXIT_USAGE
        console.err(f"stepwise: {why}: running the default scenario headless")
        opts = RunOptions(spec=f"{path}:agent", fallback_text=DEMO_TEXT)
    else:
        console.err(f"stepwise: {why}: running {spec} headless")
        opts = RunOptions(spec=spec)
    opts.color = use_color("auto", console.stdout)
    return run_agent(opts, console)


FRONTENDS = "stepwise.frontends"
"""Entry-point group a GUI registers itself under (the studio: ``studio = studio.app.entry:main``).
The engine never names the studio: it looks it up, so it depends on no GUI code."""


def cmd_studio(argv: list[str], spec: str | None, console: Console) -> int:
    """Open the GUI registered as the ``studio`` frontend, or run headless when it cannot open."""
    if not has_display():
        return _headless(spec, console, "no display found")
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group=FRONTENDS) if ep.name == "studio"]
    if not found:
        return _headless(spec, console, "the studio is not installed")
    try:
        studio_main = found[0].load()
    except ImportError as exc:
        missing = getattr(exc, "name", None) in ("studio", "studio.app.entry")
        why = (
            "the studio is not available yet (no studio.app.entry)"
            if missing
            else f"the studio cannot start ({exc})"
        )
        return _headless(spec, console, why)
    takes_args = bool(inspect.signature(studio_main).parameters)
    try:
        result = studio_main(argv) if takes_args else studio_main()
    except RuntimeError as exc:
        if not getattr(exc, "headless_fallback", False):  # the frontend's "cannot open here"
            raise
        console.err(f"stepwise: {exc}")
        return _headless(spec, console, "the studio cannot open a window")
    return int(result or 0)


def _cmd_remote(args: argparse.Namespace, args_list: list[str], console: Console) -> int:
    """``open`` / ``run`` with ``--server``."""
    from engine.cli.remote import run_remote, show_remote

    if not args.server:
        console.err(f"stepwise {args.command}: --assistant and --header need --server URL")
        return EXIT_USAGE
    try:
        opts = _remote_options(args, console)
    except _ArgError as exc:
        console.err(str(exc))
        return EXIT_USAGE
    if args.command == "run":
        return run_remote(opts, console)
    if not has_display():
        console.err("stepwise: no display found: listing the server's threads instead")
        return show_remote(opts, console)
    return cmd_studio(args_list, None, console)


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Entry point of the ``stepwise`` console script; returns the exit code.

    Called as the program (``argv`` None), a stopped run ends the process without waiting for
    worker threads that still hang (see ``exit_without_waiting``)."""
    if argv is not None:
        return _main(list(argv), stdin, stdout, stderr)
    try:
        code = _main(sys.argv[1:], stdin, stdout, stderr)
    except KeyboardInterrupt:  # a second Ctrl+C while closing: quit, no traceback
        code = EXIT_INTERRUPTED
    if is_stop_code(code):
        exit_without_waiting(code)
    return code


def _main(
    args_list: list[str],
    stdin: TextIO | None,
    stdout: TextIO | None,
    stderr: TextIO | None,
) -> int:
    args_list = list(args_list)
    console = Console(stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr)
    parser = build_parser()
    try:
        args = parser.parse_args(args_list)
    except _ArgError as exc:
        console.err(str(exc))
        return EXIT_USAGE
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    try:
        if args.command in (None, "demo"):
            return cmd_studio(args_list, None, console)
        if args.command in ("open", "run") and (args.server or args.assistant or args.headers):
            return _cmd_remote(args, args_list, console)
        if args.command in ("open", "run") and not args.agent:
            # the agent is required unless --server names a graph on a server
            console.err(f"stepwise {args.command}: the following arguments are required: agent")
            return EXIT_USAGE
        if args.command == "open":
            if args.thread and not has_display():
                from engine.attach.options import AttachOptions
                from engine.cli.thread import show_thread

                console.err("stepwise: no display found: listing the thread instead")
                options = AttachOptions(args.runtime, args.checkpointer, args.stream_tokens)
                return show_thread(args.agent, args.thread, options, console)
            return cmd_studio(args_list, args.agent, console)
        if args.command == "run":
            opts = RunOptions(
                spec=args.agent,
                input_text=args.input_text,
                input_json=args.input_json,
                context_json=args.context_json,
                configurable_json=args.configurable_json,
                thread=args.thread,
                runtime=args.runtime,
                checkpointer=args.checkpointer,
                stream_tokens=args.stream_tokens,
                session=args.session,
                record=not args.no_session,
                breaks=args.breaks,
                breaks_after=args.break_after,
                break_tools=args.break_tool,
                break_on_failure=args.break_on_failure,
                break_on_loop=args.break_on_loop,
                break_when=args.break_when,
                color=use_color(args.color, console.stdout),
            )
            return run_agent(opts, console)
        if args.command == "unlock":
            return cmd_unlock(args, console)
        if args.command == "replay":
            return cmd_replay(args, console, color=use_color(args.color, console.stdout))
        return cmd_export(args, console)
    except (SessionError, KeyError) as exc:
        console.err(f"stepwise: {exc.args[0] if isinstance(exc, KeyError) else exc}")
        return EXIT_USAGE
    except BrokenPipeError:  # `stepwise replay x | head`
        return EXIT_OK
    except RecursionError:  # a value nested deeper than Python can walk (a crafted file)
        console.err("stepwise: a value is nested too deeply to read or print")
        return EXIT_USAGE
