"""``branch_events``: one branch of a thread, up to one checkpoint (view model, no Qt)."""

from __future__ import annotations

from typing import Any

from engine.events import CheckpointSaved, EventBase, NodeStarted, RunStarted
from studio.models.branch_events import branch_events, live_tip

_seq = iter(range(1, 10_000))


def ev(cls: type[EventBase], run: str, cp: str | None, **fields: Any) -> EventBase:
    return cls(run_id=run, seq=next(_seq), checkpoint_id=cp, **fields)


def thread() -> list[EventBase]:
    """Run r1: c0 -a-> c1 -b-> c2.  Run r2 forks from c1: c1 -b-> c3 (another branch)."""
    return [
        ev(RunStarted, "r1", None, span_id="r1"),
        ev(CheckpointSaved, "r1", "c0"),
        ev(NodeStarted, "r1", "c0", node="a", task_id="t"),
        ev(CheckpointSaved, "r1", "c1", parent_id="c0"),
        ev(NodeStarted, "r1", "c1", node="b", task_id="t"),
        ev(CheckpointSaved, "r1", "c2", parent_id="c1"),
        ev(RunStarted, "r2", None, span_id="r2"),
        ev(NodeStarted, "r2", "c1", node="b", task_id="t"),
        ev(CheckpointSaved, "r2", "c3", parent_id="c1"),
        ev(NodeStarted, "r2", "c3", node="c", task_id="t"),
    ]


def nodes(events: list[EventBase]) -> list[str]:
    return [e.__dict__["node"] for e in events if e.kind == "node.started"]


def test_live_is_the_newest_branch_with_its_running_work() -> None:
    events = thread()
    assert live_tip(events) == "c3"
    assert nodes(branch_events(events)) == ["a", "b", "c"]  # not the old branch's "b"


def test_a_past_checkpoint_shows_only_what_led_to_it() -> None:
    events = thread()
    assert nodes(branch_events(events, "c2")) == ["a", "b"]
    assert nodes(branch_events(events, "c3")) == ["a", "b"]  # r2's own "b", not r1's
    assert nodes(branch_events(events, "c1")) == ["a"]
    assert nodes(branch_events(events, "c0")) == []


def test_a_checkpoint_known_only_to_the_saver_links_through_parent_of() -> None:
    events = [
        *thread()[:6],
        ev(NodeStarted, "r3", "u1", node="b", task_id="t"),  # after update_state wrote u1 on c1
    ]
    without = nodes(branch_events(events))
    with_parent = nodes(branch_events(events, parent_of={"u1": "c1"}.get))
    assert without == ["b"] and with_parent == ["a", "b"]


def test_a_subgraphs_events_go_with_the_root_checkpoint_their_step_ran_on() -> None:
    """A subgraph's events carry its own checkpoints: they are not the live tip, and they
    belong to the branch whose root step ran them (r2's call of "sub", not r1's)."""
    events = [
        *thread(),
        ev(NodeStarted, "r2", "s1", node="inner", task_id="u", ns="c:1"),  # inside "c", on c3
        ev(CheckpointSaved, "r2", "s2", parent_id="s1", ns="c:1"),
    ]
    events.insert(5, ev(NodeStarted, "r1", "s9", node="inner", task_id="v", ns="b:9"))  # on c1
    assert live_tip(events) == "c3"
    assert nodes(branch_events(events)) == ["a", "b", "c", "inner"]
    assert nodes(branch_events(events, "c2")) == ["a", "b", "inner"]  # r1's call, on c1
    assert nodes(branch_events(events, "c3")) == ["a", "b"]  # r2's "b" ran no subgraph
