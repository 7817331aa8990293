"""Attach mode on LangGraph's PostgreSQL saver: a throwaway server (``initdb`` + ``pg_ctl`` in a
temp dir, random port on 127.0.0.1) holds a thread that we open and fork.

Skipped when the PostgreSQL binaries, ``langgraph-checkpoint-postgres`` or ``psycopg`` are
missing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("langgraph.checkpoint.postgres")
pytest.importorskip("psycopg")

from engine.attach import attach
from engine.attach.savers import open_saver
from engine.loader import load_agent
from engine.types import Command
from tests.engine.attach.test_attach_langgraph import collect, counter_graph
from tests.fixtures.postgres import postgres_server, postgres_url

__all__ = ["postgres_server", "postgres_url"]


def test_a_thread_saved_in_postgres_is_opened_and_forked(postgres_url: str) -> None:
    cfg = {"configurable": {"thread_id": "pg-1"}}
    first = attach(counter_graph()).with_checkpointer(open_saver(postgres_url))
    collect(first, {"n": 1, "log": []}, cfg)
    collect(first, Command(resume="yes"), cfg)
    # a new process would open the same thread: a fresh saver on the same database
    again = attach(counter_graph()).with_checkpointer(open_saver(postgres_url))
    assert again.get_state(cfg).values["n"] == 4
    past = next(s for s in again.get_state_history(cfg) if s.next == ("ask",))
    fork = collect(again, None, past.config)
    assert fork[-1].__dict__["status"] == "interrupted"
    done = collect(again, Command(resume="no"), cfg)
    assert done[-1].__dict__["output"]["n"] == 2
    assert len(list(again.get_state_history(cfg))) > 4


def test_open_lists_a_thread_saved_in_postgres_without_a_display(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import textwrap

    from engine.cli import main
    from tests.engine.attach.apps import REVIEW_APP

    app = tmp_path / "app.py"
    app.write_text(textwrap.dedent(REVIEW_APP))
    production = attach(load_agent(f"{app}:graph")).with_checkpointer(open_saver(postgres_url))
    collect(production, {"n": 7}, {"configurable": {"thread_id": "pg-open"}})  # waits at review
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    out, err = io.StringIO(), io.StringIO()
    argv = ["open", f"{app}:graph", "--thread", "pg-open", "--checkpointer", postgres_url]
    assert main(argv, stdout=out, stderr=err) == 0
    assert out.getvalue().startswith("thread pg-open: 3 checkpoints, newest first")
    assert '{"n": 8}' in out.getvalue()
