"""``studio.app.main``: arguments, and the real app starting in a fresh process (offscreen)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from studio.app.entry import parse_args


def test_parse_args() -> None:
    assert (parse_args([]).command, parse_args([]).target) == ("demo", None)
    args = parse_args(["open", "agents/x.py:graph", "--theme", "dark"])
    assert (args.command, args.target, args.theme) == ("open", "agents/x.py:graph", "dark")
    assert (parse_args(["run.stepwise"]).command, parse_args(["run.stepwise"]).target) == (
        "session",
        "run.stepwise",
    )
    assert parse_args(["my_agent.py"]).command == "open"
    assert parse_args(["demo", "--scenario", "parallel_tools"]).scenario == "parallel_tools"
    with pytest.raises(SystemExit):
        parse_args(["open"])


def _start(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "STEPWISE_EXIT_AFTER_PAINT": "ready",
        "STEPWISE_SESSION_DIR": str(tmp_path / "sessions"),
        "STEPWISE_CONFIG_DIR": str(tmp_path / "config"),
    }
    code = f"import sys; from studio.app.entry import main; sys.exit(main({list(argv)!r}))"
    return subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def test_the_demo_starts_paints_and_loads_seed_000(tmp_path: Path) -> None:
    done = _start(tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [line.split()[0] for line in done.stdout.splitlines()]
    assert lines == ["painted", "ready"]
    assert list((tmp_path / "sessions").glob("*-retry_todos.stepwise")), (
        "the session file is created on load"
    )


def test_open_an_agent_file(tmp_path: Path) -> None:
    done = _start(tmp_path, "open", "resources/scenarios/structured_output.py:agent")
    assert done.returncode == 0, done.stderr
    assert list((tmp_path / "sessions").glob("*structured_output.py-agent.stepwise"))
