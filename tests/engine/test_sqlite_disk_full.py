"""A full disk surfaces as the disk error, never as a failed ROLLBACK."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

import pytest

from engine import START, CheckpointError, StateGraph
from engine.checkpoint import SqliteSaver


class S(TypedDict):
    text: str


def _graph(saver: SqliteSaver):  # type: ignore[no-untyped-def]
    def grow(state: S) -> S:
        return {"text": state["text"] + "x" * 200_000}

    g = StateGraph(S)
    g.add_node("grow", grow)
    g.add_edge(START, "grow")
    return g.compile(checkpointer=saver)


def test_full_disk_reports_the_disk_error(tmp_path: Path) -> None:
    saver = SqliteSaver(tmp_path / "full.sqlite", heartbeat=False)
    graph = _graph(saver)
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"text": ""}, cfg)
    pages = saver.conn.execute("PRAGMA page_count").fetchone()[0]
    saver.conn.execute(f"PRAGMA max_page_count={pages + 2}")  # no room for the next checkpoint
    with pytest.raises(CheckpointError) as info:
        graph.invoke({"text": "y" * 400_000}, cfg, durability="sync")
    text = str(info.value)
    assert "full" in text and "rollback" not in text.lower()
    assert str(tmp_path / "full.sqlite") in text
    saver.conn.execute("PRAGMA max_page_count=1073741823")
    assert graph.get_state(cfg).values["text"].endswith("x")  # what was saved is intact
