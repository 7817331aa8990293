"""A recorded session opened in a fresh hub shows what the docks showed live."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.messages import AIMessage
from engine.recording import SessionRecorder
from studio.history.replay import open_session
from studio.history.timetravel import aresume_from
from studio.models.hub import Hub
from tests.studio.tt_studio import (
    make_docks,
    make_studio,
    seed_input,
    state_dump,
    timeline_dump,
    todo_dump,
)


def _views(s: Any) -> dict[str, Any]:
    """What every dock shows at the selected checkpoint."""
    return {
        "timeline": timeline_dump(s.timeline),
        "state": state_dump(s.state),
        "diff": s.diff.diff.lines() if s.diff.diff is not None else None,
        "todos": todo_dump(s.todos),
    }


def test_a_recorded_session_matches_the_live_run(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    path = tmp_path / "seed.stepwise"
    rec = SessionRecorder(path)
    live = make_studio(qtbot, checkpointer=rec.checkpointer)
    rec.attach(live.agent)
    qloop.run_until_complete(live.agent.ainvoke(seed_input(), live.hub.config()))
    fork_at = live.after_write_todos()
    live.model.push(AIMessage("Only login.tsx is needed; stopping here."))
    qloop.run_until_complete(aresume_from(live.agent, "t1", fork_at.checkpoint_id))
    moments = [
        fork_at.checkpoint_id,
        live.pending_create_file().checkpoint_id,
        live.main_nodes[-1].checkpoint_id,
        live.timeline.timeline.branches[1].tip.checkpoint_id,
    ]
    expected = {}
    for cid in moments:
        live.hub.select_checkpoint(cid)
        expected[cid] = _views(live)
    live_events = [(e.run_id, e.seq, e.kind) for e in live.hub.events]
    rec.close()

    hub = Hub()
    offline = make_docks(hub, qtbot)
    opened = open_session(hub, path)
    qloop.run_until_complete(opened.afeed_rest())
    offline.timeline.reload()
    assert hub.status == "replay" and offline.timeline.summary_label.text().startswith(
        "16 checkpoints · 2 branches"
    )
    assert [(e.run_id, e.seq, e.kind) for e in hub.events] == live_events
    for cid in moments:
        hub.select_checkpoint(cid)
        assert _views(offline) == expected[cid], cid
    # offline, nothing can run or be edited; re-running with replay is offered (it needs the code)
    hub.select_checkpoint(moments[0])
    assert not offline.timeline.resume_button.isEnabled()
    assert (
        not offline.timeline.edit_button.isEnabled() and not offline.state.edit_button.isEnabled()
    )
    assert offline.timeline.rerun_button.isEnabled()
    opened.close()
