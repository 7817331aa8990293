"""Stopping an attached ``stepwise run`` from outside while a node hangs: SIGTERM ends the
process, the tree closes the node and its superstep as cancelled, as in engine mode, and the
app's own database holds nothing of the stop (plain LangGraph reads the thread as waiting to run
the node again)."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.checkpoint.sqlite")

from tests.engine.cli.test_cli_subprocess import _env
from tests.fixtures.docs_apps import AppFile, write_app
from tests.fixtures.plain_langgraph import plain_module

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

CONFIG: Any = {"configurable": {"thread_id": "t"}}

HUNG_APP = """
import time
from typing import TypedDict
from langgraph.graph import END, START, StateGraph
SAVER_IMPORT

class State(TypedDict):
    n: int

def first(state):
    return {"n": 1}

HANG stuck(state):
    SLEEP
    return {"n": 2}

graph = (
    StateGraph(State).add_node("first", first).add_node("stuck", stuck)
    .add_edge(START, "first").add_edge("first", "stuck").add_edge("stuck", END)
    .compile(checkpointer=SAVER)
)
"""


def _app(tmp_path: Path, sync: bool) -> tuple[Path, list[str]]:
    db = tmp_path / "app.sqlite"
    if sync:  # LangGraph's sync stream (a sync-only saver), the node in a worker thread
        source = (
            HUNG_APP.replace(
                "SAVER_IMPORT",
                "import sqlite3\nfrom langgraph.checkpoint.sqlite import SqliteSaver",
            )
            .replace("SAVER", f"SqliteSaver(sqlite3.connect({str(db)!r}, check_same_thread=False))")
            .replace("HANG", "def")
            .replace("SLEEP", "time.sleep(600)")
        )
        extra: list[str] = []
    else:  # astream, on the AsyncSqliteSaver Stepwise opens
        source = (
            HUNG_APP.replace("SAVER_IMPORT", "import asyncio")
            .replace("SAVER", "None")
            .replace("HANG", "async def")
            .replace("SLEEP", "await asyncio.sleep(600)")
        )
        extra = ["--checkpointer", f"sqlite+aiosqlite:///{db}"]
    return write_app(tmp_path, source).path, extra


@pytest.mark.parametrize("sync", [True, False], ids=["sync-stream", "astream"])
def test_sigterm_ends_an_attached_run_whose_node_hangs(tmp_path: Path, sync: bool) -> None:
    path, extra = _app(tmp_path, sync)
    argv = [sys.executable, "-m", "engine.cli", "run", f"{path}:graph", "--input-json"]
    argv += ['{"n": 0}', "--thread", "t", "--no-session", "--color", "never", *extra]
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.strip() == "┌ node stuck":
                break
        proc.send_signal(signal.SIGTERM)
        # the node would sleep for 600 s: ending at all within 60 s means nobody waited for it
        rest, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "stepwise: stopped (SIGTERM); the last checkpoint is intact" in err
    assert "Traceback" not in err
    assert "└ node stuck ■ cancelled" in rest
    assert "└ superstep 2 ■ cancelled" in rest

    if sync:
        graph = plain_module(AppFile(path)).graph
        snap, tup = graph.get_state(CONFIG), graph.checkpointer.get_tuple(CONFIG)
    else:
        snap, tup = asyncio.run(_read_async(path, tmp_path / "app.sqlite"))
    assert snap.values == {"n": 1} and snap.next == ("stuck",)
    assert tup.pending_writes == []  # no error of the stop saved in the app's thread


async def _read_async(path: Path, db: Path) -> tuple[Any, Any]:
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    module = plain_module(AppFile(path))
    async with AsyncSqliteSaver.from_conn_string(str(db)) as saver:
        graph = module.graph.copy(update={"checkpointer": saver})
        return await graph.aget_state(CONFIG), await saver.aget_tuple(CONFIG)
