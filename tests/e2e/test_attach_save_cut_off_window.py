"""Attach mode through the real window: a checkpoint save cut off with the connection (the
PostgreSQL server stops right after committing it, before the reply), on the docs' agent (sync
tools, ``create_agent`` with summarization and human-in-the-loop middleware).  The Events dock
shows it as a failure whose outcome is unknown, not as "not saved", and plain LangGraph then
reads the checkpoint back from the app's database (``test_attach_save_cut_off`` checks the same
below the window)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.checkpoint.postgres")
pytest.importorskip("langchain.agents")

from tests.e2e.attach_window import Studio
from tests.engine.attach.test_attach_save_cut_off import _cut_off_at
from tests.engine.attach.test_attach_saver_truth import saved_ids
from tests.fixtures.docs_apps import agent_app
from tests.fixtures.plain_langgraph import plain_module
from tests.fixtures.postgres import postgres_server

__all__ = ["postgres_server"]


class _Loaded:
    """What ``_cut_off_at`` patches: the graph the window loaded (the app's own)."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph


def test_a_save_cut_off_with_the_connection_shows_unknown_and_the_database_holds_it(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path, postgres_server: Any
) -> None:
    app = agent_app(tmp_path, "sync", "postgres", pg_url=postgres_server.new_database())
    studio = Studio(qtbot, qloop, tmp_path, app)
    try:
        cut = _cut_off_at(_Loaded(studio.window.hub.graph.real), 1, then=postgres_server.stop)
        try:
            status = studio.trigger("run")
        finally:
            postgres_server.start()
        assert status == "error", (status, studio.ctl.last_error)
        assert f"checkpoint {cut[0]} is not known" in str(studio.ctl.last_error)
        tree = studio.window.docks["events"].widget().model.tree
        unknown = [
            r for r in tree.rows if r.event.__dict__.get("action") == "checkpoint_save_unknown"
        ]
        assert len(unknown) == 1 and unknown[0].failed
        assert unknown[0].event.detail["checkpoint_id"] == cut[0]
        assert not any(
            r.event.__dict__.get("action") == "checkpoint_not_saved"
            and r.event.detail["checkpoint_id"] == cut[0]
            for r in tree.rows
        )
        # plain LangGraph reads the checkpoint the window could not confirm
        assert cut[0] in saved_ids(app, plain_module(app).graph, studio.thread)
    finally:
        studio.close()
