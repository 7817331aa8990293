"""A checkpoint save cut off with the connection, on a real PostgreSQL: the server committed the
checkpoint, the client lost the reply.  Attach mode reports what the database holds: saved when
it can read the checkpoint back, "outcome unknown" when the server is gone too, never "not
saved" for a checkpoint the user then finds in the database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.checkpoint.postgres")

from engine.attach import attach
from tests.engine.attach.test_attach_saver_truth import run_once, saved_ids
from tests.fixtures.docs_apps import agent_app
from tests.fixtures.plain_langgraph import plain_module


def _cut_off_at(module: Any, step: int, then: Any = None) -> list[str]:
    """Make the app's PostgresSaver commit the checkpoint of ``step`` and then raise as when
    the connection drops before the reply (``then`` runs in between); returns the id."""
    import psycopg

    saver = module.graph.checkpointer
    base = type(saver)
    cut: list[str] = []

    class CutOff(base):  # type: ignore[misc, valid-type]
        def put(self, config: Any, checkpoint: Any, metadata: Any, versions: Any) -> Any:
            out = base.put(self, config, checkpoint, metadata, versions)
            if metadata.get("step") == step and not cut:
                cut.append(str(checkpoint["id"]))
                if then is not None:
                    then()
                raise psycopg.OperationalError(
                    "consuming input failed: server closed the connection unexpectedly"
                )
            return out

    saver.__class__ = CutOff
    return cut


def _actions(events: list[Any], action: str) -> set[str]:
    return {
        e.__dict__["detail"]["checkpoint_id"]
        for e in events
        if e.kind == "middleware.action" and e.__dict__["action"] == action and not e.ns
    }


def _shown(events: list[Any]) -> list[str]:
    return [e.checkpoint_id for e in events if e.kind == "checkpoint.saved" and not e.ns]


def test_a_committed_checkpoint_whose_reply_was_lost_is_read_back_and_shown_saved(
    postgres_server: Any, tmp_path: Path
) -> None:
    app = agent_app(tmp_path, "sync", "postgres", pg_url=postgres_server.new_database())
    module = plain_module(app)
    cut = _cut_off_at(module, 1)
    outcome, events = run_once(attach(module.graph), "t", module.INPUT)
    assert cut and outcome.status == "error" and outcome.error is not None
    assert "consuming input failed" in outcome.error
    in_db = saved_ids(app, module.graph, "t")
    assert cut[0] in in_db and cut[0] in _shown(events)
    assert sorted(_shown(events)) == sorted(in_db)
    assert not _actions(events, "checkpoint_save_unknown")
    assert not (_actions(events, "checkpoint_not_saved") & set(in_db))


def test_a_committed_checkpoint_the_stopped_server_cannot_confirm_is_reported_unknown(
    postgres_server: Any, tmp_path: Path
) -> None:
    app = agent_app(tmp_path, "sync", "postgres", pg_url=postgres_server.new_database())
    module = plain_module(app)
    cut = _cut_off_at(module, 1, then=postgres_server.stop)
    graph = attach(module.graph)
    try:
        outcome, events = run_once(graph, "t", module.INPUT)
    finally:
        postgres_server.start()
    assert cut and outcome.status == "error" and outcome.error is not None
    assert f"whether the app's database holds checkpoint {cut[0]} is not known" in outcome.error
    in_db = saved_ids(app, module.graph, "t")
    assert cut[0] in in_db  # the server did commit it
    assert _actions(events, "checkpoint_save_unknown") == {cut[0]}
    assert cut[0] not in _shown(events) and set(_shown(events)) <= set(in_db)
    assert set(in_db) - set(_shown(events)) == {cut[0]}
    assert not (_actions(events, "checkpoint_not_saved") & set(in_db))
    # the thread's next run on a dead connection: the database still cannot say
    _dead, still = run_once(graph, "t", module.INPUT)
    assert not _actions(still, "checkpoint_save_resolved")
    assert graph.unknown_saves.pending("t") == cut
    # a new connection, as a pool would hand out: the database is asked again, and says
    import psycopg
    from psycopg.rows import dict_row

    saver = module.graph.checkpointer
    saver.conn = psycopg.Connection.connect(
        app.db, autocommit=True, prepare_threshold=0, row_factory=dict_row
    )
    _again, later = run_once(graph, "t", module.INPUT)
    resolved = [
        e.__dict__["detail"]
        for e in later
        if e.kind == "middleware.action" and e.__dict__["action"] == "checkpoint_save_resolved"
    ]
    assert [(d["checkpoint_id"], d["saved"]) for d in resolved] == [(cut[0], True)]
    assert later[0].kind == "run.started" and graph.unknown_saves.pending("t") == []
    _third, after = run_once(graph, "t", module.INPUT)  # said once
    assert not _actions(after, "checkpoint_save_resolved")


from tests.fixtures.postgres import postgres_server  # noqa: E402

__all__ = ["postgres_server"]
