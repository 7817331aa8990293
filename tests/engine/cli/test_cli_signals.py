"""Stopping ``stepwise run`` from outside: Ctrl+C with a hung sync node, SIGTERM, SIGHUP."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from engine.recording import Session
from tests.engine.cli import hang_agent
from tests.engine.cli.test_cli_subprocess import AGENTS, _env

HANG = str(Path(hang_agent.__file__))

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _start(spec: str, session: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "engine.cli",
            "run",
            spec,
            "--input-json",
            "{}",
            "--thread",
            "x",
            "--session",
            str(session),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    return proc


def _signal_when_running(proc: subprocess.Popen[str], node: str, sig: int) -> tuple[str, str]:
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.strip() == f"┌ node {node}":
                break
        proc.send_signal(sig)
        # the node would run for 600 s: finishing at all within 30 s means we did not wait
        rest, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return rest, err


def test_ctrl_c_exits_although_a_sync_node_hangs(tmp_path: Path) -> None:
    session = tmp_path / "h.stepwise"
    proc = _start(f"{HANG}:hang", session)
    _, err = _signal_when_running(proc, "stuck", signal.SIGINT)
    assert proc.returncode == 130, err
    assert "stepwise: stopped (Ctrl+C); the last checkpoint is intact" in err
    assert "Traceback" not in err and "Task was destroyed" not in err
    with Session.open(session) as s:
        (run,) = s.runs()
        assert run.status == "cancelled"
        s.integrity_check()


@pytest.mark.parametrize(("sig", "name"), [(signal.SIGTERM, "SIGTERM"), (signal.SIGHUP, "SIGHUP")])
def test_termination_signals_close_the_run_as_cancelled(
    tmp_path: Path, sig: int, name: str
) -> None:
    session = tmp_path / "t.stepwise"
    proc = _start(f"{AGENTS}:slow", session)
    rest, err = _signal_when_running(proc, "crawl", sig)
    assert proc.returncode == 128 + sig, err
    assert f"stepwise: stopped ({name}); the last checkpoint is intact" in err
    assert "Traceback" not in err and "Task was destroyed" not in err
    assert "└ node crawl ■ cancelled" in rest
    with Session.open(session) as s:
        (run,) = s.runs()
        assert run.status == "cancelled"


@pytest.mark.parametrize(
    ("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 128 + signal.SIGTERM)]
)
def test_tasks_a_stopped_run_leaves_behind_are_closed_quietly(
    tmp_path: Path, sig: int, code: int
) -> None:
    proc = _start(f"{HANG}:leaky", tmp_path / "l.stepwise")
    _, err = _signal_when_running(proc, "crawl", sig)
    assert proc.returncode == code, err
    assert "Task was destroyed" not in err and "Traceback" not in err
    assert err.strip().splitlines()[-1].endswith("the last checkpoint is intact")
