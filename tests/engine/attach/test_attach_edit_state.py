"""Edit state on an attached app (``update_state`` from a checkpoint, as the studio's Edit state
does), on LangGraph's in-memory and SQLite savers: plain LangGraph reads the edit back."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")

from engine.attach import attach
from engine.targets import AttachTarget
from tests.fixtures.docs_app_sources import STATEGRAPH_APP
from tests.fixtures.docs_apps import write_app
from tests.fixtures.plain_langgraph import plain_module, reader


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_an_edit_from_a_past_checkpoint_is_saved_where_langgraph_reads_it(
    tmp_path: Path, saver: str
) -> None:
    source = STATEGRAPH_APP
    if saver == "sqlite":
        db = tmp_path / "app.sqlite"
        source = source.replace(
            "from langgraph.checkpoint.memory import InMemorySaver",
            "import sqlite3\nfrom langgraph.checkpoint.sqlite import SqliteSaver",
        ).replace(
            "compile(checkpointer=InMemorySaver())",
            f"compile(checkpointer=SqliteSaver(sqlite3.connect({str(db)!r}, check_same_thread=False)))",
        )
    app = write_app(tmp_path, source)
    if saver == "sqlite":
        app = type(app)(app.path, db=str(tmp_path / "app.sqlite"), saver="sqlite")
    module = plain_module(app)
    graph = attach(module.graph)
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke(module.INPUT, cfg)
    target = AttachTarget(graph)

    async def edit() -> tuple[str, Any]:
        history = await target.history("t")
        past = next(s for s in history if s.next == ("review",))
        cid = past.config["configurable"]["checkpoint_id"]
        new = await target.update_state(
            "t", {"draft": "edited"}, as_node="write", checkpoint_id=cid
        )
        return new, past

    new_id, past = asyncio.run(edit())
    plain = reader(app, module.graph)
    snap = plain.get_state({"configurable": {"thread_id": "t", "checkpoint_id": new_id}})
    assert snap.values["draft"] == "edited" and snap.next == ("review",)
    parent = (snap.parent_config or {})["configurable"]["checkpoint_id"]
    assert parent == past.config["configurable"]["checkpoint_id"]
