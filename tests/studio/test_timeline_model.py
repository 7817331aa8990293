"""TimelineModel: the branch tree of a thread's checkpoints, from events and from a saver."""

from __future__ import annotations

from typing import Any

from engine.checkpoint import InMemorySaver, SqliteSaver
from engine.events import CheckpointSaved, MiddlewareAction, RunFinished
from engine.models.scripted import ScriptedChatModel
from engine.targets.checkpoint_list import records_from_events, records_from_saver
from studio.models.timeline import (
    Branch,
    CheckpointNode,
    CheckpointRecord,
    TimelineChange,
    TimelineModel,
    iter_tree,
)
from tests.studio.tt_agents import build_seed, call, seed_input, seed_script


def _rec(
    cid: str, parent: str | None, step: int, source: str = "loop", **kw: Any
) -> CheckpointRecord:
    return CheckpointRecord(cid, parent, step, source, **kw)


def _dump(model: TimelineModel) -> list[str]:
    out = []
    for depth, item in iter_tree(model):
        label = item.checkpoint_id if isinstance(item, CheckpointNode) else f"<{item.name}>"
        out.append("  " * depth + label)
    return out


def test_linear_chain_then_forks_make_branches() -> None:
    m = TimelineModel()
    for i, cid in enumerate(["a", "b", "c", "d"]):
        m.add(_rec(cid, None if i == 0 else "abcd"[i - 1], i - 1))
    m.add(_rec("e", "b", 1, "fork"))  # fork at b
    m.add(_rec("f", "e", 2))
    m.add(_rec("g", "b", 1, "update"))  # second fork at b
    m.add(_rec("h", "f", 3))
    assert _dump(m) == [
        "a",
        "b",
        "  <branch 1>",
        "    e",
        "    f",
        "    h",
        "  <branch 2>",
        "    g",
        "c",
        "d",
    ]
    b = m.get("b")
    assert b is not None
    assert [n.checkpoint_id for n in m.children(b)] == ["c", "e", "g"]
    assert [n.checkpoint_id for n in m.lineage("h")] == ["a", "b", "e", "f", "h"]
    assert [n.checkpoint_id for n in m.continuation("e")] == ["e", "f", "h"]
    assert m.common_ancestor("h", "d").checkpoint_id == "b"  # type: ignore[union-attr]
    assert [t.checkpoint_id for t in m.tips()] == ["d", "h", "g"]
    assert m.branches[1].title() == "branch 1 · forked at step 0 · 3 checkpoints"


def test_tree_protocol_is_consistent() -> None:
    m = TimelineModel()
    m.load(
        [
            _rec("a", None, -1, "input"),
            _rec("b", "a", 0),
            _rec("c", "b", 1),
            _rec("x", "a", 0, "fork"),
            _rec("y", "x", 1),
            _rec("orphan", "missing", 7),
        ]
    )

    def check(parent: CheckpointNode | Branch | None) -> int:
        count = 0
        for row in range(m.child_count(parent)):
            item = m.child(parent, row)
            assert m.row(item) == row
            assert m.tree_parent(item) is parent
            count += 1 + check(item)
        return count

    assert check(None) == len(m) + len(m.branches) - 1  # every node + every non-main header
    assert m.child_count(None) == 3 + 1  # main's nodes, then the orphan's root branch
    assert isinstance(m.child(None, 3), Branch)


def test_listeners_get_before_and_after_with_the_right_rows() -> None:
    m = TimelineModel()
    seen: list[tuple[str, str, Any, int, int]] = []

    def listener(phase: str, ch: TimelineChange) -> None:
        # "before" must come before the change is visible: rowCount still the old one
        if ch.kind == "insert":
            count = m.child_count(ch.parent)
            assert count == (ch.first if phase == "before" else ch.last + 1)
        seen.append((phase, ch.kind, ch.parent, ch.first, ch.last))

    m.subscribe(listener)
    m.add(_rec("a", None, -1))
    m.add(_rec("b", "a", 0))
    m.add(_rec("c", "a", 0, "fork"))
    a = m.get("a")
    assert seen[-1] == ("after", "insert", a, 0, 0)  # a branch header under a
    m.add(_rec("d", "c", 1))
    assert seen[-1] == ("after", "insert", m.branches[1], 1, 1)
    m.mark("d", "divergence", "call #2 differs")
    assert seen[-1][1] == "update"
    assert m.get("d").marker("divergence").text == "call #2 differs"  # type: ignore[union-attr]


def test_adding_a_known_checkpoint_completes_it_without_a_new_row() -> None:
    m = TimelineModel()
    m.add(_rec("a", None, -1, next=None))
    m.add(_rec("a", None, -1, writers=("model",), next=("tools",)))
    assert len(m) == 1
    node = m.get("a")
    assert node is not None and node.next == ("tools",) and node.writers == ("model",)


def test_live_seed_run_then_a_fork_keeps_the_old_branch() -> None:
    seed = build_seed()
    m = TimelineModel(thread_id="seed")
    seed.agent.subscribe(lambda ev: m.apply_events([ev]))
    seed.agent.invoke(seed_input(), seed.config())
    main = m.main
    assert main is not None and len(m.branches) == 1
    steps = [n.step for n in main.nodes]
    assert steps == list(range(-1, len(steps) - 1))
    after_todos = next(n for n in main.nodes if n.writers == ("tools",))
    assert after_todos.next == ("model",)
    old_ids = [n.checkpoint_id for n in main.nodes]

    # a different continuation from the checkpoint after write_todos
    seed.model.push(call("create_file", {"path": "logout.tsx"}, "call_logout"), "Done differently.")
    seed.agent.invoke(None, seed.config(checkpoint_id=after_todos.checkpoint_id))
    assert len(m.branches) == 2
    fork = m.branches[1]
    assert fork.fork_point is after_todos
    assert fork.nodes[0].source == "fork" and fork.nodes[0].step == after_todos.step + 1  # type: ignore[operator]
    assert [n.checkpoint_id for n in main.nodes] == old_ids  # the old branch is intact
    assert fork.tip.next == ()
    assert "logout.tsx" in seed.files


def test_saver_listing_matches_the_events(tmp_path: Any) -> None:
    for saver in (InMemorySaver(), SqliteSaver(tmp_path / "cp.sqlite")):
        seed = build_seed(checkpointer=saver)
        seed.agent.invoke(seed_input(), seed.config())
        seed.agent.update_state(seed.config(), {"todos": []}, as_node="tools")
        from_events = {r.checkpoint_id: r for r in records_from_events(seed.events, "seed")}
        listed = records_from_saver(saver, "seed", seed.agent.nodes)
        assert len(listed) == len(from_events)
        for rec in listed:
            ev = from_events[rec.checkpoint_id]
            assert (rec.parent_id, rec.step, rec.source, rec.next) == (
                ev.parent_id,
                ev.step,
                ev.source,
                ev.next,
            )
            assert rec.writers == ev.writers, rec
        # without the graph, next is unknown but the tree is the same
        assert all(r.next is None for r in records_from_saver(saver, "seed"))


def test_divergence_marks_the_checkpoint_the_diverging_step_wrote() -> None:
    m = TimelineModel()
    base = dict(run_id="r1", thread_id="t")
    m.apply_events([CheckpointSaved(checkpoint_id="a", step=0, seq=1, **base)])
    m.apply_events(
        [
            MiddlewareAction(
                middleware="ReplayChatModel",
                action="replay_diverged",
                detail={"message": "call #2 differs from the recording"},
                checkpoint_id="a",
                seq=2,
                **base,
            ),
            CheckpointSaved(
                checkpoint_id="b", parent_id="a", step=1, seq=3, writer_nodes=["model"], **base
            ),
        ]
    )
    assert m.get("a").markers == []  # type: ignore[union-attr]
    assert m.get("b").marker("divergence").text == "call #2 differs from the recording"  # type: ignore[union-attr]
    # a run that stops at the divergence (no fallback) marks its last checkpoint
    m.apply_events(
        [
            MiddlewareAction(
                middleware="ReplayChatModel",
                action="replay_diverged",
                checkpoint_id="b",
                seq=4,
                **base,
            ),
            RunFinished(status="error", checkpoint_id="b", seq=5, **base),
        ]
    )
    assert m.get("b").marker("divergence").text == "replay diverged"  # type: ignore[union-attr]


def test_events_of_other_threads_and_subgraphs_are_ignored() -> None:
    m = TimelineModel(thread_id="t")
    m.apply_events(
        [
            CheckpointSaved(run_id="r", thread_id="other", checkpoint_id="x"),
            CheckpointSaved(run_id="r", thread_id="t", checkpoint_id="y", ns="sub:1"),
            CheckpointSaved(run_id="r", thread_id="t", checkpoint_id="z"),
        ]
    )
    assert list(m.by_id) == ["z"]


def test_ten_thousand_checkpoints_with_twenty_forks() -> None:
    # speed is measured by tests/bench/bench_timeline.py; this checks the shape
    recs = [_rec(f"{i:08d}", f"{i - 1:08d}" if i else None, i - 1) for i in range(10_000)]
    recs += [_rec(f"{i:08d}f", f"{i:08d}", i, "fork") for i in range(0, 10_000, 500)]
    m = TimelineModel()
    m.load(recs)
    assert len(m) == 10_020 and len(m.branches) == 21


def test_scripted_model_helper_is_exhausted_after_the_seed() -> None:
    # guards the helper itself: the seed conversation uses every scripted response
    seed = build_seed(ScriptedChatModel(seed_script()))
    seed.agent.invoke(seed_input(), seed.config())
    assert seed.model.remaining == 0
    assert seed.files == ["login.tsx", "register.tsx"]
