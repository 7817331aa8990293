"""Closing the studio after stopping a run whose sync node hangs: the window closes, the
session keeps the run as cancelled, and the process ends without waiting for the stuck thread
(Python cannot cancel it and would join it at exit: 600 s here)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from engine.recording import Session

ROOT = Path(__file__).resolve().parents[2]
ENGINE_APP = "tests/engine/cli/hang_agent.py:hang"
LANGGRAPH_APP = "tests/studio/hung_langgraph_app.py:graph"


def _close_while_hung(spec: str, folder: Path, env: dict[str, str]) -> tuple[str, str, int]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.studio.close_while_hung", spec, str(folder)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen", **env},
    )
    try:
        out, err = proc.communicate(timeout=120)  # the node would hang for 600 s
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"the studio did not end after its window closed:\n{out}\n{err}")
    return out, err, proc.returncode


def _recorded_status(folder: Path) -> str:
    (path,) = folder.glob("*.stepwise")
    with Session.open(path) as session:
        (run,) = session.runs()
        session.integrity_check()
        return run.status


def test_closing_after_stopping_a_hung_engine_node_ends_the_process(tmp_path: Path) -> None:
    out, err, code = _close_while_hung(ENGINE_APP, tmp_path, {})
    assert code == 0, err
    assert out.splitlines() == ["running", "stopped cancelled", "closing"], err
    assert "Traceback" not in err
    assert _recorded_status(tmp_path) == "cancelled"


def test_closing_after_stopping_a_hung_langgraph_node_ends_the_process(tmp_path: Path) -> None:
    pytest.importorskip("langgraph.checkpoint.sqlite")
    db = tmp_path / "app.db"
    out, err, code = _close_while_hung(LANGGRAPH_APP, tmp_path, {"HUNG_APP_DB": str(db)})
    assert code == 0, err
    assert out.splitlines() == ["running", "stopped cancelled", "closing"], err
    assert "Traceback" not in err
    assert _recorded_status(tmp_path) == "cancelled"
    with sqlite3.connect(db) as conn:  # the app's thread holds no trace of Stepwise's stop
        (writes,) = conn.execute(
            "select count(*) from writes where channel like '%error%' or channel like '%stepwise%'"
        ).fetchone()
    assert writes == 0
