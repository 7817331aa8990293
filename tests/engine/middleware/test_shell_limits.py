"""ShellToolMiddleware under hostile commands: output floods still time out, memory stays
bounded, the whole process group dies, no background job outlives the session."""

from __future__ import annotations

import os
import resource
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.graph.runtime import Runtime
from engine.messages import ToolMessage
from engine.middleware import HostExecutionPolicy, ShellToolMiddleware
from engine.middleware.shell_output import MAX_KEPT_BYTES, QUEUE_PIECES

pytestmark = pytest.mark.skipif(not hasattr(os, "killpg"), reason="POSIX process groups")

GUARD_S = 60.0
"""Longest wait for an answer (a broken timeout would otherwise hang the test run)."""


class Shell:
    def __init__(self, tmp_path: Path, **policy: Any) -> None:
        self.mw = ShellToolMiddleware(
            workspace_root=tmp_path, execution_policy=HostExecutionPolicy(**policy)
        )
        self.state: dict[str, Any] = {"messages": []}
        self.state.update(self.mw.before_agent(self.state, Runtime()) or {})
        self.resources = self.state["shell_session_resources"]

    @property
    def group(self) -> int:
        return os.getpgid(self.resources.session._process.pid)

    def run(self, command: str) -> ToolMessage:
        """The answer to ``command``; if none comes within GUARD_S, kill the shell and fail."""
        answers: list[Any] = []
        worker = threading.Thread(
            target=lambda: answers.append(
                self.mw._run_shell_tool(self.resources, {"command": command}, tool_call_id="c")
            ),
            daemon=True,
        )
        group = self.group
        worker.start()
        worker.join(GUARD_S)
        if worker.is_alive():
            os.killpg(group, 9)
            worker.join(GUARD_S)
            pytest.fail(f"{command!r} got no answer within {GUARD_S:.0f} s")
        return answers[0]

    def close(self) -> None:
        self.mw.after_agent(self.state, Runtime())


@pytest.fixture
def shell(tmp_path: Path) -> Iterator[Callable[..., Shell]]:
    opened: list[Shell] = []

    def make(**policy: Any) -> Shell:
        opened.append(Shell(tmp_path, **policy))
        return opened[-1]

    yield make
    for s in opened:
        s.close()


def _live(pid: int) -> tuple[bool, int]:
    """(is ``pid`` a live process (not a zombie), its process group)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False, -1
    fields = text.rsplit(")", 1)[1].split()
    return fields[0] != "Z", int(fields[2])


def _members(group: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            alive, pgrp = _live(int(entry))
            if alive and pgrp == group:
                out.append(int(entry))
    return out


def _wait_until(check: Callable[[], bool]) -> bool:
    """Wait (up to GUARD_S) until ``check`` holds: SIGKILL is delivered asynchronously."""
    end = time.monotonic() + GUARD_S
    while not check():
        if time.monotonic() > end:
            return False
        os.sched_yield()
    return True


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


@pytest.mark.parametrize("command", ["yes", "yes | tr -d '\\n'"])
def test_a_command_flooding_output_still_times_out(shell: Any, command: str) -> None:
    s = shell(command_timeout=2)
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    answer = s.run(command)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before
    assert grown < 200 * 1024, f"the process grew by {grown // 1024} MiB"
    assert answer.status == "error"
    assert answer.content == "Error: Command timed out after 2.0 seconds."
    assert s.run("echo alive").content == "alive\n"  # a fresh shell took over


def test_the_output_waiting_for_the_collector_is_bounded(shell: Any) -> None:
    s = shell(command_timeout=1)
    pending = s.resources.session._queue
    assert pending.maxsize == QUEUE_PIECES
    s.run("yes")
    assert s.resources.session._queue.maxsize == QUEUE_PIECES


@needs_proc
def test_a_timeout_kills_the_whole_process_group(shell: Any) -> None:
    s = shell(command_timeout=1)
    background = int(s.run("sleep 1000 >/dev/null 2>&1 & echo $!").content)
    group = s.group
    assert group != os.getpgrp() and _live(background) == (True, group)
    assert s.run("sleep 1000 | cat & yes").content.startswith("Error: Command timed out")
    assert _wait_until(lambda: not _members(group)), _members(group)
    assert s.group != group


@needs_proc
def test_ending_the_session_leaves_no_background_job(shell: Any) -> None:
    s = shell()
    background = int(s.run("sleep 1000 >/dev/null 2>&1 & echo $!").content)
    group = s.group
    assert _live(background) == (True, group)
    s.close()
    assert _wait_until(lambda: not _members(group)), _members(group)


def test_long_output_is_capped_with_a_truncation_note(shell: Any) -> None:
    s = shell()
    total = 3 * MAX_KEPT_BYTES
    answer = s.run(f"head -c {total} /dev/zero | tr '\\0' a")
    assert answer.status == "success"
    body, note = answer.content.rsplit("\n\n", 1)
    assert note == f"... Output truncated at {MAX_KEPT_BYTES} bytes (observed {total})."
    assert set(body) == {"a"} and len(body) <= MAX_KEPT_BYTES
    assert answer.artifact["truncated_by_bytes"] and answer.artifact["total_bytes"] == total
    assert answer.artifact["total_lines"] == 1


def test_output_without_a_final_newline_ends_the_command(shell: Any) -> None:
    s = shell(command_timeout=20)
    assert s.run("printf abc").content == "abc"
    assert s.run("printf 'x%.0s' $(seq 9000)").content == "x" * 9000
    assert s.run("printf oops >&2").content == "[stderr] oops"
