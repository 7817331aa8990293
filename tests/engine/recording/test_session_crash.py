"""Crash safety: a recording process killed with SIGKILL mid-run leaves a sound session file.

The child records a graph that loops forever and prints every event's ``seq`` and ``ts`` as it
is delivered.  The parent polls the session file until it holds events, kills the child with
``kill -9``, and then checks the file: it opens, passes SQLite's integrity check, holds a gapless
prefix of the run's events, and loses at most the events of the last flush interval (100 ms,
plus a margin for a loaded machine).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine.recording import Session, SessionError, SessionRecorder
from tests.engine.recording.helpers import every_kind

ROOT = Path(__file__).resolve().parents[3]
MARGIN_S = 0.5  # scheduling slack on top of the 100 ms flush interval

CHILD = r"""
import asyncio, sys
from typing import TypedDict
from engine import START, StateGraph
from engine.recording import SessionRecorder

class S(TypedDict):
    n: int

async def tick(state):
    await asyncio.sleep(0.001)
    return {"n": state["n"] + 1}

rec = SessionRecorder(sys.argv[1])
b = StateGraph(S)
b.add_node("tick", tick)
b.add_edge(START, "tick")
b.add_conditional_edges("tick", lambda s: "tick", ["tick"])
graph = b.compile(checkpointer=rec.checkpointer, name="forever")
rec.attach(graph)
out = sys.stdout
graph.subscribe(lambda ev: (out.write(f"{ev.seq} {ev.ts!r}\n"), out.flush()))
graph.invoke({"n": 0}, {"configurable": {"thread_id": "crash"}, "recursion_limit": 10**9})
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_kill_9_mid_run_leaves_a_sound_session(tmp_path):
    path = tmp_path / "crash.stepwise"
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, str(script), str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    emitted: list[tuple[int, float]] = []

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            seq, ts = line.split()
            emitted.append((int(seq), float(ts)))

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while True:  # poll the file until the recorder has committed a good number of events
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                with Session.open(path) as s:
                    if s.count() >= 600:
                        break
            except SessionError:
                pass  # not created yet
            assert time.monotonic() < deadline, "the child recorded nothing"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    with Session.open(path) as s:
        s.integrity_check()
        (run,) = s.runs()
        assert (run.graph, run.thread_id, run.status, run.finished) == (
            "forever",
            "crash",
            "running",
            None,
        )
        recorded = [e.seq for e in s.iter_events(run.run_id)]
        assert recorded == list(range(1, len(recorded) + 1))  # a gapless prefix
        assert len(recorded) >= 600
        last_seq, last_ts = emitted[-1]
        assert last_seq >= recorded[-1]
        must_have = [seq for seq, ts in emitted if ts <= last_ts - 0.1 - MARGIN_S]
        if must_have:
            assert recorded[-1] >= must_have[-1], (recorded[-1], must_have[-1], last_seq)
        # checkpoints written before the kill are readable, with their state
        cps = s.checkpoints("crash")
        assert len(cps) > 10
        assert s.state("crash", cps[-1].checkpoint_id)["n"] == cps[-1].step

    # the file takes new recordings
    with SessionRecorder(path) as rec:
        for ev in every_kind():
            rec.record(ev)
    with Session.open(path) as s:
        assert len(s.runs()) == 2
        s.integrity_check()
