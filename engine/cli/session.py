"""``stepwise replay`` and ``stepwise export``: reading a session file from the terminal.

Both tolerate damaged event rows (skipped, counted, reported in one line).  ``export`` never
writes over its own input; ``-o`` replaces a regular file only once the export is complete and
writes through to a device or FIFO (see ``engine.cli.output``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time
from pathlib import Path
from typing import Any, TextIO

from engine.checkpoint import SqliteSaver
from engine.cli.output import output_file
from engine.cli.prompt import Console
from engine.cli.render import TreeRenderer
from engine.cli.text import json_safe, terminal_safe
from engine.errors import CheckpointError
from engine.recording import Session, SessionError

__all__ = ["cmd_export", "cmd_replay", "cmd_unlock", "skipped_line"]

EXIT_OK = 0


def skipped_line(skipped: list[str]) -> str:
    """One line saying how many rows were left out, and why the first was."""
    first = skipped[0].split(": ", 1)[-1] if skipped else ""
    return f"stepwise: {len(skipped)} unreadable event row(s) skipped (first: {first[:90]})"


def _unfinished_notes(session: Session, runs_seen: int) -> list[str]:
    """Lines about runs that never finished: the process was killed or stopped, or recording
    into the file failed (then the run itself may have gone on)."""
    failed = session.recording_failure()
    why = (
        f"recording stopped when writing to the file failed ({failed}); the run itself may "
        "have gone on"
        if failed
        else "the process was killed or is still running"
    )
    notes: list[str] = []
    for run in session.runs():
        if run.status == "running":
            notes.append(f"run {run.run_id} never finished: its end was not recorded ({why})")
    if runs_seen == 0:
        for thread in session.threads():
            count = len(session.checkpoints(thread))
            if count:
                stopped = (
                    f"recording failed ({failed}) before its events were written"
                    if failed
                    else "the process was stopped before its events were written; the run "
                    "never finished"
                )
                notes.append(
                    f"thread {thread} has {count} checkpoint(s) but no recorded run: {stopped}"
                )
    if runs_seen == 0 and not notes:
        for thread, run, pid in session.abandoned_leases():
            notes.append(
                f"thread {thread} was taken by run {run} of process {pid}, which is gone (killed "
                "or crashed) before anything of that run was written"
            )
    if failed and not notes:
        notes.append(
            f"recording into this file stopped when writing failed ({failed}): what ran after "
            "that is not in it"
        )
    return notes


def cmd_replay(args: argparse.Namespace, console: Console, *, color: bool) -> int:
    renderer = TreeRenderer(color=color)
    skipped: list[str] = []
    with Session.open(args.session) as session:
        runs = session.runs()
        if args.run is not None:
            runs = [session.run(args.run)]
        total = 0
        for run in runs:
            for ev in session.iter_events(run.run_id, skipped=skipped):
                total += 1
                line = renderer.line(ev)
                if line is not None:
                    console.out(line, styled=True)
        if args.run is None:
            for note in _unfinished_notes(session, len(runs)):
                console.out(note)
        elif runs[0].status == "running":
            failed = session.recording_failure()
            because = f" (recording failed: {failed})" if failed else ""
            console.out(f"run {runs[0].run_id} never finished: its end was not recorded{because}")
        console.out(f"{len(runs)} run(s), {total} event(s) from {session.path}")
    if skipped:
        console.err(skipped_line(skipped))
    return EXIT_OK


def _check_output(output: Path, session: Path) -> None:
    if output.is_dir():
        raise SessionError(f"cannot export to {output}: it is a folder; name a file")
    if not output.parent.is_dir():
        raise SessionError(f"cannot export to {output}: folder {output.parent} does not exist")
    same = output.resolve() == session.resolve()
    with contextlib.suppress(OSError):
        same = same or (output.exists() and os.path.samefile(output, session))
    if same:
        raise SessionError(
            f"cannot export to {output}: it is the session being exported; choose another file"
        )


def _otel() -> object:
    """``engine.otel.sdk``, or a one-line error when the otel extra is not installed."""
    try:
        from engine.otel import sdk
    except ImportError as exc:
        raise SessionError(str(exc).splitlines()[0]) from None
    return sdk


class _JsonSafe:
    """A text stream for JSON: what it is given is written ``json_safe`` (the same JSON, no
    raw terminal controls)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, text: str) -> int:
        return self.out.write(json_safe(text))


def _write_export(args: argparse.Namespace, session: Session, out: TextIO) -> list[str]:
    skipped: list[str] = []
    if args.format == "otlp-json":
        from engine.otel import session_spans

        sdk: Any = _otel()
        sdk.write_otlp_json(session_spans(str(session.path), args.run, skipped), _JsonSafe(out))
        return skipped
    if args.format == "jsonl":
        for text in session.iter_valid_event_json(args.run, skipped=skipped):
            out.write(json_safe(text) + "\n")  # the same JSON, with no raw terminal controls
        return skipped
    runs = [session.run(args.run)] if args.run else session.runs()
    if not runs:
        raise SessionError(f"{session.path} has no runs", path=session.path)
    graph = session.drawable(runs[-1].run_id)
    if graph is None:
        raise SessionError(
            f"{session.path}: run {runs[-1].run_id} has no recorded graph shape",
            path=session.path,
        )
    path = None
    if getattr(args, "path", False):
        from engine.graph.run_path import RunPath

        kinds = ["node.started", "route"]
        path = RunPath.from_events(
            session.iter_events(runs[-1].run_id, kinds=kinds, skipped=skipped)
        )
    out.write(terminal_safe(graph.draw_mermaid(path=path)))
    return skipped


def _send_otlp(args: argparse.Namespace, console: Console) -> int:
    if not args.endpoint:
        raise SessionError("--format otlp needs --endpoint URL (e.g. http://localhost:4318)")
    if args.output:
        raise SessionError("--format otlp sends to --endpoint; use otlp-json to write a file")
    sdk: Any = _otel()
    from engine.otel import session_spans

    skipped: list[str] = []
    spans = session_spans(args.session, args.run, skipped)
    try:
        sent = sdk.send_otlp(spans, args.endpoint)
    except sdk.OtelExportError as exc:
        raise SessionError(str(exc)) from None
    if skipped:
        console.err(skipped_line(skipped))
    console.out(f"sent {sent} span(s) to {sdk.traces_url(args.endpoint)}")
    return EXIT_OK


def cmd_export(args: argparse.Namespace, console: Console) -> int:
    if args.format == "otlp":
        return _send_otlp(args, console)
    if getattr(args, "endpoint", None):
        raise SessionError("--endpoint is for --format otlp")
    output = Path(args.output) if args.output else None
    if output is not None:
        _check_output(output, Path(args.session))
    with Session.open(args.session) as session:
        if output is None:
            skipped = _write_export(args, session, console.stdout)
            console.stdout.flush()
        else:
            with output_file(output) as out:
                skipped = _write_export(args, session, out)
    if skipped:
        console.err(skipped_line(skipped))
    return EXIT_OK


def cmd_unlock(args: argparse.Namespace, console: Console) -> int:
    """Remove thread leases (``--thread``: one thread's) and say whose they were."""
    path = Path(args.session)
    if not path.is_file():
        raise SessionError(f"{path} does not exist", path=path)
    try:
        saver = SqliteSaver(path, heartbeat=False)
    except CheckpointError as exc:
        raise SessionError(str(exc), path=path) from exc
    try:
        broken = saver.break_leases(args.thread)
    finally:
        saver.close()
    if not broken:
        where = f" (thread {args.thread})" if args.thread else ""
        console.out(f"no locked threads in {path}{where}")
    now = time.time()
    for lease in broken:
        console.out(
            f"unlocked thread {lease.thread_id} (run {lease.owner}, pid {lease.pid} on "
            f"{lease.host}, last heartbeat {max(0.0, now - lease.heartbeat):.0f} s ago)"
        )
    return EXIT_OK
