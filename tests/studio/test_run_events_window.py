"""A long session's run left in the file: the Timeline's menu shows its events in a window of
their own, read from the file, the checkpoint picked selected (the main window keeps the loaded
runs); a run longer than the limit shows the part around that checkpoint."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.recording import Session
from studio.dialogs.run_events import RunEventsWindow
from studio.docks.timeline.menus import timeline_menu
from studio.history.long_run import run_around
from tests.studio.app_agents import make_window, open_in_window
from tests.studio.long_runs import record_loop
from tests.studio.test_replay_older_runs import _per_run, _record

SHOW = "Show this run's events"


def _opened_on_newest_runs(
    qtbot: Any, qloop: Any, tmp_path: Path, feed_limit: Callable[[int], None]
) -> tuple[Path, Any]:
    """A 5-run priced agent session, opened in a real window on its newest runs (2.5 runs'
    worth of events: the 3 oldest stay in the file)."""
    path = tmp_path / "priced.stepwise"
    _record(path)
    feed_limit(int(_per_run(path) * 2.5))
    window = make_window(qtbot, tmp_path)
    open_in_window(qloop, window, path)
    return path, window


def _entries(menu: Any) -> list[str]:
    return [a.text() for a in menu.actions()]


def test_the_timeline_shows_the_events_of_a_run_left_in_the_file(
    qtbot: Any, qloop: Any, tmp_path: Path, feed_limit: Callable[[int], None]
) -> None:
    path, window = _opened_on_newest_runs(qtbot, qloop, tmp_path, feed_limit)
    hub = window.hub
    loaded = len(hub.events)
    with Session.open(path) as session:
        runs = [r.run_id for r in session.runs("t")]
        theirs = session.events(runs[1])
        listed = [c for c in session.checkpoints("t") if c.run_id == runs[1]]
    assert runs[1] not in {e.run_id for e in hub.events}  # an older run, left in the file
    picked = listed[len(listed) // 2]
    timeline = window.docks["timeline"].widget()
    here = next(e for e in hub.events if e.kind == "checkpoint.saved")
    assert not any(
        SHOW in t
        for t in _entries(timeline_menu(timeline, timeline.timeline.get(here.checkpoint_id)))
    )

    menu = timeline_menu(timeline, timeline.timeline.get(picked.checkpoint_id))
    assert hub.selected_checkpoint == picked.checkpoint_id  # the menu's checkpoint is shown
    next(a for a in menu.actions() if SHOW in a.text()).trigger()
    (shown,) = window.run_windows
    assert shown.isVisible() and shown.left_out == 0
    tree = shown.dock.tree
    assert tree.event_count == len(theirs)
    assert [e.seq for e in shown.hub.events] == [e.seq for e in theirs]
    assert {e.run_id for e in shown.hub.events} == {runs[1]}
    row = shown.dock.selected_row()
    assert row is not None and row.event.kind == "checkpoint.saved"
    assert row.event.checkpoint_id == picked.checkpoint_id
    assert shown.dock.details.row is row  # its payload in the details pane
    # the playground asks the main window's run about its calls: not offered here
    assert not shown.dock.whatif_button.isVisibleTo(shown.dock)
    assert not shown.dock.offers_playground  # nor in the row menu
    assert f"{len(theirs):,} events of run …{runs[1][-8:]}" in shown.header.text()
    # the main window keeps its loaded runs
    assert len(hub.events) == loaded and hub.selected_checkpoint == picked.checkpoint_id
    # picking another checkpoint's row there shows that moment in the main window
    other = next(
        e
        for e in shown.hub.events
        if e.kind == "checkpoint.saved" and e.checkpoint_id != picked.checkpoint_id
    )
    assert shown.dock.select_seq(other.seq, runs[1])
    assert hub.selected_checkpoint == other.checkpoint_id
    assert f"step {other.step} of a run not loaded" in window.status.message_label.full_text()
    assert len(hub.events) == loaded
    shown.close()
    assert window.run_windows == []  # closed: let go of, its events with it


def test_a_run_longer_than_the_limit_shows_the_part_around_the_checkpoint(
    qtbot: Any, tmp_path: Path
) -> None:
    path = tmp_path / "long.stepwise"
    total = record_loop(path)
    limit = total // 4
    with Session.open(path) as session:
        (run,) = [r.run_id for r in session.runs("t")]
        middle = next(c for c in session.checkpoints("t") if c.step == 40)
        at = session.checkpoint_seq(run, middle.checkpoint_id)
        assert at is not None
        events, left_out = run_around(session, run, at, limit)
    seqs = [e.seq for e in events]
    assert len(events) <= limit and left_out == total - len(events) > 0
    assert seqs == sorted(seqs) and events[0].kind == "run.started"
    assert at in seqs and seqs[-1] > at  # what led to the moment, and some of what followed
    # every event nests under a span that is loaded too (none left at the tree's root)
    opened = {e.span_id for e in events if e.kind.endswith(".started") and e.span_id}
    assert all(e.parent_span_id in opened for e in events[1:] if e.parent_span_id)

    shown = RunEventsWindow(path, run, middle.checkpoint_id, limit=limit)
    qtbot.addWidget(shown)
    tree = shown.dock.tree
    assert tree.event_count == len(events) and len(tree.children(tree.root)) == 1
    row = shown.dock.selected_row()
    assert row is not None and row.event.seq == at
    assert f"({left_out:,} more stay in the file" in shown.header.text()


def test_a_run_that_cannot_be_read_says_so_in_one_line(
    qtbot: Any, qloop: Any, tmp_path: Path, feed_limit: Callable[[int], None], monkeypatch: Any
) -> None:
    _, window = _opened_on_newest_runs(qtbot, qloop, tmp_path, feed_limit)
    errors: list[tuple[str, str]] = []
    monkeypatch.setattr(
        window, "show_error", lambda title, message, *a: errors.append((title, message))
    )
    window.show_run_events("no-such-run", "no-such-checkpoint")
    assert not getattr(window, "run_windows", [])
    assert errors and errors[0][0] == "The run's events could not be read"
    assert "\n" not in errors[0][1]
