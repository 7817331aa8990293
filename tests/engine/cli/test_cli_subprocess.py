"""``stepwise`` as a real process: exit codes, piped stdin at a breakpoint, Ctrl+C, no display."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import command as cli
from engine.recording import Session
from tests.engine.cli import agents

ROOT = Path(__file__).resolve().parents[3]
AGENTS = str(Path(agents.__file__))


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **extra}
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        if var not in extra:
            env.pop(var, None)
    return env


def stepwise(
    *argv: str, stdin: str = "", cwd: Path | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env=_env(**env),
    )


def test_run_headless_and_replay(tmp_path):
    session = tmp_path / "p.stepwise"
    done = stepwise(
        "run", AGENTS, "--input", "hi", "--thread", "p", "--session", str(session), "--headless"
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.startswith('┌ run loop  thread p  input "hi"\n')
    assert "\x1b[" not in done.stdout
    replay = stepwise("replay", str(session))
    assert replay.returncode == 0
    assert (
        replay.stdout.splitlines()[:-1] == done.stdout.splitlines()[:-1]
    )  # same tree, other footer


def test_breakpoint_driven_by_piped_stdin(tmp_path):
    result = stepwise(
        "run", AGENTS, "--input", "hi", "--no-session", "--break", "act", stdin="n\nc\n"
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert (
        "⏸ paused (breakpoint: before node act) at node.started\n(stepwise) [c/s/n/o/q/state] > n\n"
        in out
    )
    assert "⏸ paused (step) at node.started\n(stepwise) [c/s/n/o/q/state] > c\n" in out
    assert "└ run loop ✓ done" in out


def test_exit_codes_and_one_line_errors(tmp_path):
    missing = stepwise("run", str(tmp_path / "none.py"))
    assert missing.returncode == 2
    assert missing.stderr == f"stepwise: {tmp_path / 'none.py'}: file not found\n"
    bad = tmp_path / "bad.py"
    bad.write_text("agent = (\n")
    syntax = stepwise("run", str(bad))
    assert (syntax.returncode, syntax.stderr) == (
        2,
        f"stepwise: {bad}:1: syntax error: '(' was never closed\n",
    )
    usage = stepwise("run", AGENTS, "--bogus")
    assert usage.returncode == 2 and usage.stderr == "stepwise: unrecognized arguments: --bogus\n"
    failed = stepwise("run", f"{AGENTS}:broken", "--input-json", "{}", "--no-session")
    assert failed.returncode == 3
    assert failed.stderr == "stepwise: the run failed: ValueError: boom\n"
    for result in (missing, syntax, usage, failed):
        assert "Traceback" not in result.stderr + result.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_stops_the_run_cleanly(tmp_path):
    session = tmp_path / "c.stepwise"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "engine.cli",
            "run",
            f"{AGENTS}:slow",
            "--input-json",
            "{}",
            "--thread",
            "c",
            "--session",
            str(session),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        assert proc.stdout is not None
        seen = []
        for line in proc.stdout:  # wait until the slow node is running
            seen.append(line)
            if line.strip() == "┌ node crawl":
                break
        assert seen and seen[-1].strip() == "┌ node crawl", seen
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "stepwise: stopping the run (Ctrl+C again to quit at once)" in err
    assert "stepwise: stopped (Ctrl+C); the last checkpoint is intact" in err
    assert "Traceback" not in err
    assert "└ node crawl ■ cancelled" in rest
    with Session.open(session) as s:
        (run,) = s.runs()
        assert run.status == "cancelled"
        assert s.checkpoints("c")[-1].next == ("crawl",)
        s.integrity_check()


def test_no_display_runs_the_default_scenario_headless(tmp_path):
    result = stepwise(cwd=tmp_path)
    first = result.stderr.splitlines()[0]
    if cli.default_scenario().exists():
        assert first == "stepwise: no display found: running the default scenario headless"
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("┌ run ")
    else:
        assert result.returncode == 2
        assert first == (
            "stepwise: no display found, and the default scenario resources/scenarios/retry_todos.py "
            "is missing (not written yet?)"
        )


@pytest.mark.parametrize(
    "body",
    [
        "class Halt(BaseException):\n    pass\nraise Halt('stop here')\n",
        "raise GeneratorExit('closing')\n",
    ],
)
def test_an_agent_file_raising_a_base_exception_is_one_line_rc_2(tmp_path, body):
    bad = tmp_path / "odd.py"
    bad.write_text(body)
    done = stepwise("run", f"{bad}:agent", "--input", "hi", "--no-session")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert (
        done.stderr.startswith(f"stepwise: {bad}:") and "importing the file raised" in done.stderr
    )
