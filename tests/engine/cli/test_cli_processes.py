"""The first round's process faults, through the real ``stepwise`` command: two processes on
one thread of one session, and ``kill -9`` while recording (what the next run and ``replay``
make of it).  Each waits on the child's output, never on time."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from engine.recording import Session
from tests.engine.cli.test_cli_signals import _start
from tests.engine.cli.test_cli_subprocess import AGENTS, stepwise

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _wait_for(proc: subprocess.Popen[str], text: str) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.strip() == text:
            return
    raise AssertionError(f"the child ended before printing {text!r}")


def _stop(proc: subprocess.Popen[str], sig: int) -> str:
    try:
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return err


def test_a_second_process_on_a_running_thread_is_refused_in_one_line(tmp_path: Path) -> None:
    session = tmp_path / "shared.stepwise"
    first = _start(f"{AGENTS}:slow", session)  # thread "x", crawling until stopped
    try:
        _wait_for(first, "┌ node crawl")
        second = stepwise(
            "run", f"{AGENTS}:slow", "--input-json", "{}", "--thread", "x", "--session",
            str(session),
        )  # fmt: skip
        assert second.returncode != 0
        lines = second.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in second.stderr
        assert "stepwise unlock" in lines[0]
        other = stepwise(
            "run", f"{AGENTS}:agent", "--input", "hi", "--thread", "y", "--session", str(session)
        )  # another thread of the same file is free
        assert other.returncode == 0, other.stderr
    finally:
        err = _stop(first, signal.SIGTERM)
    assert first.returncode == 128 + signal.SIGTERM, err
    with Session.open(session) as s:
        assert sorted(r.status for r in s.runs()) == ["cancelled", "done"]
        s.integrity_check()


def test_after_kill_9_replay_says_killed_and_the_thread_can_run_again(tmp_path: Path) -> None:
    session = tmp_path / "killed.stepwise"
    proc = _start(f"{AGENTS}:slow", session)
    _wait_for(proc, "┌ node crawl")
    _stop(proc, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    replay = stepwise("replay", str(session))
    assert replay.returncode == 0, replay.stderr
    killed = (  # killed after the run's first events were written, or before (100 ms flushes)
        "never finished: its end was not recorded (the process was killed",
        "but no recorded run: the process was stopped before its events were written",
        "which is gone (killed or crashed) before anything of that run was written",
    )
    assert any(says in replay.stdout for says in killed), replay.stdout
    again = stepwise(  # the dead process's lease does not hold the thread
        "run", f"{AGENTS}:agent", "--input", "hi", "--thread", "x", "--session", str(session)
    )
    assert again.returncode == 0, again.stderr
    with Session.open(session) as s:
        assert [r.status for r in s.runs()][-1] == "done"
        s.integrity_check()


KILLED_HOLDING_A_THREAD = """
import os, signal, sys
from engine.recording import SessionRecorder
recorder = SessionRecorder(sys.argv[1])
recorder.checkpointer.acquire_thread("x", "run-1")
print("held", flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_replay_of_a_file_whose_run_was_killed_before_anything_was_written(
    tmp_path: Path,
) -> None:
    """Killed after it took its thread, before its first checkpoint or event reached the file:
    replay says so instead of printing an empty session without a word."""
    session = tmp_path / "empty.stepwise"
    proc = subprocess.run(
        [sys.executable, "-c", KILLED_HOLDING_A_THREAD, str(session)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == -signal.SIGKILL and proc.stdout.strip() == "held", proc.stderr
    replay = stepwise("replay", str(session))
    assert replay.returncode == 0, replay.stderr
    assert "0 run(s)" in replay.stdout
    assert "thread x was taken by run run-1 of process " in replay.stdout
    assert "which is gone (killed or crashed)" in replay.stdout
