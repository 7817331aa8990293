"""A node start delivered just before its superstep's start (attach mode: two nodes starting
at once on worker threads) still lands under that superstep, not at the log's top level."""

from __future__ import annotations

from itertools import count
from typing import Any

from engine.events import EventBase, NodeStarted, RunStarted, SuperstepStarted
from studio.models.batch_order import openers_first
from studio.models.event_tree import EventTree
from studio.qtmodels.event_tree import EventTreeModel

_seq = count(1)


def ev(cls: type[EventBase], **fields: Any) -> EventBase:
    return cls(run_id="r", seq=next(_seq), **fields)


def _raced() -> list[EventBase]:
    return [
        ev(RunStarted, span_id="run", graph="g"),
        ev(NodeStarted, span_id="n2", parent_span_id="s1", node="square", task_id="t2"),
        ev(SuperstepStarted, span_id="s1", parent_span_id="run", step=1),
        ev(NodeStarted, span_id="n1", parent_span_id="s1", node="flaky", task_id="t1"),
    ]


def test_a_child_delivered_before_its_superstep_goes_under_it(qtbot: Any) -> None:
    model = EventTreeModel()
    model.add_events(_raced())
    tree = model.tree
    [run] = tree.root.children
    [step] = run.children
    assert step.kind == "superstep.started"
    assert [r.node for r in step.children] == ["square", "flaky"]
    assert model.rowCount() == 1  # the view shows one top-level row: the run


def test_events_in_order_are_left_as_they_are() -> None:
    batch = [e for e in _raced() if e.kind != "node.started"]
    assert openers_first(batch, {}) is batch
    raced = _raced()
    ordered = openers_first(raced, {})
    assert [e.kind for e in ordered] == [
        "run.started",
        "superstep.started",
        "node.started",
        "node.started",
    ]
    assert openers_first(raced, {"s1": object()}) is raced  # the span is known already


def test_a_plain_event_tree_takes_the_same_order() -> None:
    tree = EventTree()
    tree.add_batch(iter(_raced()))  # an iterator, as pages of a session come
    [run] = tree.root.children
    assert [r.kind for r in run.children] == ["superstep.started"]
