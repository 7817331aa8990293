"""A persistent shell process that runs one command at a time: ``ShellSession``.

The shell reads commands from its stdin; two reader threads put every stdout / stderr line
(or chunk of a long line) on one bounded queue, in arrival order (see ``shell_output``). After
each command the session writes a *done marker* to both streams (stdout's carries the
command's exit status), so it knows when the command's output is complete without waiting a
fixed time. A command that outlives its timeout, however much it prints, gets the shell
restarted and its whole process group killed; ending the session kills the group too, so no
background job outlives it. A command that ends the shell (``exit 3``) reports the shell's
exit status. A shell that died between commands (a launcher such as
``docker run`` failing at start) is reported once, with what it printed and its status; after
that ``execute`` raises until the session is restarted.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from engine.middleware.shell_execution import BaseExecutionPolicy
from engine.middleware.shell_output import (
    QUEUE_PIECES,
    CommandExecutionResult,
    CommandOutput,
    Piece,
    read_pieces,
)

__all__ = ["CommandExecutionResult", "ShellSession"]

LOGGER = logging.getLogger(__name__)
DONE_MARKER_PREFIX = "__STEPWISE_SHELL_DONE__"
STDERR_GRACE_SECONDS = 2.0
"""How long to wait for the stderr done marker once stdout's arrived (only a shell whose
stderr was redirected for good, e.g. ``exec 2>/dev/null``, makes this wait matter)."""
EXIT_DRAIN_SECONDS = 1.0
"""After the shell exited: the longest wait for the reader threads to reach end-of-stream."""


class ShellSession:
    """One long-lived shell; ``execute`` runs commands in it sequentially."""

    def __init__(
        self,
        workspace: Path,
        policy: BaseExecutionPolicy,
        command: tuple[str, ...],
        environment: Mapping[str, str],
    ) -> None:
        self._workspace = workspace
        self._policy = policy
        self._command = command
        self._environment = dict(environment)
        self._process: Any = None  # subprocess.Popen[str] (tests put a stand-in here)
        self._stdin: IO[str] | None = None
        self._queue: queue.Queue[Piece] = queue.Queue(QUEUE_PIECES)
        self._readers_closed = threading.Event()
        self._group: int | None = None
        """The shell's own process group (killed when the session ends or a command times out)."""
        self._lock = threading.Lock()
        self._terminated = False
        self._exit_reported = False

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Start the shell and its reader threads (no-op while it is running)."""
        if self.running:
            return
        process = self._policy.spawn(
            workspace=self._workspace, env=self._environment, command=self._command
        )
        if process.stdin is None or process.stdout is None or process.stderr is None:
            raise RuntimeError("Failed to initialize shell session pipes.")
        self._process = process
        self._stdin = process.stdin
        self._terminated = False
        self._exit_reported = False
        self._group = _own_group(process.pid)
        self._queue = queue.Queue(QUEUE_PIECES)
        self._readers_closed = threading.Event()
        for stream, label in ((process.stdout, "stdout"), (process.stderr, "stderr")):
            threading.Thread(
                target=read_pieces,
                args=(stream, label, self._queue, self._readers_closed),
                name=f"stepwise-shell-{label}",
                daemon=True,
            ).start()

    def restart(self) -> None:
        self.stop(self._policy.termination_timeout)
        self.start()

    def stop(self, timeout: float) -> None:
        """Ask the shell to exit; kill it (and its process group) after ``timeout`` seconds."""
        process = self._process
        if process is None:
            return
        if process.poll() is None and not self._terminated:
            try:
                self._write("exit\n")
            except (BrokenPipeError, OSError):
                LOGGER.debug("Could not ask the shell to exit; killing it.", exc_info=True)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pass
        finally:
            self._kill_process()  # the shell if it is still there, and its background jobs
            self._readers_closed.set()
            self._terminated = True
            if self._stdin is not None:
                with contextlib.suppress(Exception):
                    self._stdin.close()
            self._process = None

    def execute(self, command: str, *, timeout: float) -> CommandExecutionResult:
        """Run ``command``; its output (stderr lines prefixed ``[stderr]``) and exit code."""
        deadline = time.monotonic() + timeout
        if not self.running:
            if self._process is not None and not self._exit_reported:
                # the shell died since the last command (e.g. a launcher that failed at
                # start): this call reports what it printed and its status, later ones raise
                with self._lock:
                    return self._collect_after_exit(deadline)
            status = self._process.poll() if self._process is not None else None
            why = f" (the shell exited with status {status})" if status is not None else ""
            raise RuntimeError(
                f"Shell session is not running{why}; restart it (restart=true) to continue."
            )
        marker = f"{DONE_MARKER_PREFIX}{uuid.uuid4().hex}"
        with self._lock:
            self._discard_pending()
            text = command if command.endswith("\n") else f"{command}\n"
            try:
                self._write(text + f"printf '{marker} %s\\n' $?; printf '{marker}\\n' >&2\n")
            except (BrokenPipeError, OSError):
                return self._collect_after_exit(deadline)  # the shell is gone (e.g. `exit 1`)
            return self._collect(marker, deadline, timeout)

    # -- internals ----------------------------------------------------------------------

    def _write(self, text: str) -> None:
        if self._stdin is None:
            raise BrokenPipeError("no shell stdin")
        self._stdin.write(text)
        self._stdin.flush()

    def _new_output(self) -> CommandOutput:
        return CommandOutput(self._policy.max_output_lines, self._policy.max_output_bytes)

    def _collect(self, marker: str, deadline: float, timeout: float) -> CommandExecutionResult:
        out = self._new_output()
        exit_code: int | None = None
        stdout_done = stderr_done = False
        stdout_done_at = 0.0
        eofs = 0
        while not (stdout_done and stderr_done):
            if stdout_done:  # only stderr's marker is missing: wait briefly for it
                limit = min(deadline, stdout_done_at + STDERR_GRACE_SECONDS)
            else:
                limit = deadline
            left = limit - time.monotonic()
            try:  # checked before every piece: a command that floods output still times out
                if left <= 0:
                    raise queue.Empty
                source, line = self._queue.get(timeout=left)
            except queue.Empty:
                if stdout_done:
                    break
                return self._timed_out(out, timeout)
            if line is None:
                eofs += 1
                if eofs == 2:  # both streams closed: the shell exited mid-command
                    return out.result(self._exit_status())
                continue
            at = line.find(marker)
            if at >= 0:  # after output that did not end its line, the marker follows it
                if at:
                    out.add(source, line[:at])
                if source == "stdout":
                    exit_code = _to_int(line[at + len(marker) :].strip())
                    stdout_done, stdout_done_at = True, time.monotonic()
                else:
                    stderr_done = True
                continue
            out.add(source, line)
        return out.result(exit_code)

    def _timed_out(self, out: CommandOutput, timeout: float) -> CommandExecutionResult:
        LOGGER.warning("Command timed out after %.2f seconds; restarting shell session.", timeout)
        # the shell is busy with the command: asking it to exit would only wait out the
        # termination timeout, so end it (and the command) at once
        self._kill_process()
        self._terminated = True
        self.restart()
        return out.result(None, timed_out=True)

    def _collect_after_exit(self, deadline: float) -> CommandExecutionResult:
        """What the shell printed before it exited, and its exit status."""
        out = self._new_output()
        limit = min(deadline, time.monotonic() + EXIT_DRAIN_SECONDS)
        eofs = 0
        while eofs < 2:
            left = limit - time.monotonic()
            try:
                if left <= 0:
                    raise queue.Empty
                source, line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                eofs += 1
            else:
                out.add(source, line)
        return out.result(self._exit_status())

    def _exit_status(self) -> int | None:
        self._exit_reported = True
        if self._process is None:
            return None
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self._process.wait(timeout=EXIT_DRAIN_SECONDS)
        return self._process.poll()

    def _discard_pending(self) -> None:
        """Drop output that arrived between commands (background jobs, a late stderr line)."""
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                return

    def _kill_process(self) -> None:
        """Kill the shell's whole process group when it has its own (background jobs too),
        else just the shell. The group is the one the shell got at start (it outlives the
        shell); a shell whose group was not recorded is looked up now, and left alone if gone."""
        process = self._process
        if process is None:
            return
        group = self._group
        if group is None and hasattr(os, "killpg"):
            try:
                group = _own_group(process.pid, strict=True)
            except ProcessLookupError:
                return  # nobody left to kill
        if group is not None:
            try:
                os.killpg(group, signal.SIGKILL)
                return
            except ProcessLookupError:
                return  # nobody left in it
            except OSError:
                LOGGER.warning("Group kill failed; falling back to direct kill.", exc_info=True)
        try:
            process.kill()  # Popen.kill does nothing for a shell that already exited
        except ProcessLookupError:
            pass
        except OSError:
            LOGGER.warning("Direct kill failed.", exc_info=True)


def _own_group(pid: int, *, strict: bool = False) -> int | None:
    """The process group ``pid`` leads, or None when it shares ours (or there are none).
    ``strict``: a process that is gone raises ``ProcessLookupError``."""
    if not hasattr(os, "killpg"):
        return None
    try:
        group = os.getpgid(pid)
    except ProcessLookupError:
        if strict:
            raise
        return None
    except OSError:
        return None
    # never signal our own group (HostExecutionPolicy(create_process_group=False))
    return group if group != os.getpgrp() else None


def _to_int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None
