"""``Session.outline``: runs' spans, model responses and root checkpoints, each with where it lies
(the run's row number in the file, its ``seq``), read without decoding the other events."""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Annotated

from typing_extensions import TypedDict

from engine import END, START, StateGraph
from engine.recording import Session, SessionRecorder


class Loop(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


def _record(path: Path, runs: int) -> None:
    rec = SessionRecorder(path)
    graph = (
        StateGraph(Loop)
        .add_node("step", lambda s: {"n": s["n"] + 1, "log": [f"step {s['n']}"]})
        .add_conditional_edges("step", lambda s: END if s["n"] % 3 == 0 else "step", ["step", END])
        .add_edge(START, "step")
        .compile(checkpointer=rec.checkpointer)
    )
    rec.attach(graph)
    for _ in range(runs):
        graph.invoke({"n": 0, "log": []}, {"configurable": {"thread_id": "t"}})
    rec.close()


def test_the_outline_places_every_span_and_root_checkpoint_of_the_runs(tmp_path: Path) -> None:
    path = tmp_path / "loop.stepwise"
    _record(path, runs=3)
    with Session.open(path) as session:
        runs = [r.run_id for r in session.runs("t")]
        outline = session.outline(runs[:2])
        events = {r: session.events(r) for r in runs}
        checkpoints = session.checkpoints("t")
    places = [row.at for row in outline.spans]
    assert places == sorted(places) and len(set(places)) == len(places)
    # the two runs' span openers, in order, each where it was recorded
    openers = [
        (i, e) for i, r in enumerate(runs[:2]) for e in events[r] if e.kind.endswith("started")
    ]
    assert [(row.kind, row.span_id) for row in outline.spans] == [
        (e.kind, e.span_id) for _, e in openers
    ]
    rows = sorted({row.at[0] for row in outline.spans})
    assert len(rows) == 2
    assert [(rows[i], e.seq) for i, e in openers] == places
    # every root checkpoint of those two runs, at its checkpoint.saved, with its step
    saved = {
        e.checkpoint_id: (rows[i], e.seq, e.step, e.parent_id)
        for i, r in enumerate(runs[:2])
        for e in events[r]
        if e.kind == "checkpoint.saved" and not e.ns
    }
    assert {cid: (*c.at, c.step, c.parent_id) for cid, c in outline.checkpoints.items()} == saved
    third = {c.checkpoint_id for c in checkpoints if c.run_id == runs[2]}
    assert third and not third & set(outline.checkpoints)  # the third run's are not read
    assert not outline.responses and not outline.response_at  # no model in this graph


def test_a_runs_loaded_events_are_left_out_but_its_checkpoints_are_placed(tmp_path: Path) -> None:
    path = tmp_path / "loop.stepwise"
    _record(path, runs=1)
    with Session.open(path) as session:
        (run,) = [r.run_id for r in session.runs("t")]
        whole = session.outline([run])
        part = session.outline([run], loaded={run: lambda seq: seq > 5})
    assert part.spans == [row for row in whole.spans if row.at[1] <= 5]
    placed = {cid: (c.at, c.step, c.parent_id) for cid, c in whole.checkpoints.items()}
    assert {cid: (c.at, c.step, c.parent_id) for cid, c in part.checkpoints.items()} == placed
    # those saved in the part left out are marked so (time travel finds them in the gap)
    left_out = {cid for cid, c in whole.checkpoints.items() if c.at[1] <= 5}
    places = {cid: c.place for cid, c in part.checkpoints.items()}
    assert left_out and {cid for cid, p in places.items() if p == "left out"} == left_out
    assert {cid for cid, p in places.items() if p == "loaded"} == set(places) - left_out
    assert {c.place for c in whole.checkpoints.values()} == {"unloaded run"}  # read whole
