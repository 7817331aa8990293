"""compare_branches: two branches' messages side by side and the diff of their final states."""

from __future__ import annotations

import pytest

from engine.messages import AIMessage
from studio.history.timetravel import compare_branches
from studio.models.timeline import TimelineModel
from tests.studio.tt_agents import build_seed, call, seed_input


def test_fork_with_a_different_continuation_compares_side_by_side() -> None:
    seed = build_seed()
    timeline = TimelineModel("seed")
    seed.agent.subscribe(lambda ev: timeline.apply_events([ev]))
    seed.agent.invoke(seed_input(), seed.config())
    main = timeline.main
    assert main is not None
    after_todos = next(n for n in main.nodes if n.writers == ("tools",))
    seed.model.push(
        call(
            "write_todos", {"todos": [{"content": "create login.tsx", "status": "completed"}]}, "t2"
        ),
        AIMessage("Only login.tsx was needed."),
    )
    seed.agent.invoke(None, seed.config(checkpoint_id=after_todos.checkpoint_id))
    fork = timeline.branches[1]

    def values(cid: str) -> dict:
        return seed.agent.get_state(seed.config(checkpoint_id=cid)).values

    cmp = compare_branches(values, timeline, main.tip.checkpoint_id, fork.tip.checkpoint_id)
    assert cmp.ancestor is after_todos
    assert cmp.shared == 3  # human, write_todos call, its ToolMessage
    statuses = [r.status for r in cmp.rows]
    assert statuses == ["changed", "changed", "changed", "left_only", "left_only"]
    first = cmp.rows[0]
    assert first.left.tool_calls[0]["name"] == "create_file"  # type: ignore[union-attr]
    assert first.right.tool_calls[0]["name"] == "write_todos"  # type: ignore[union-attr]
    assert cmp.rows[2].right.text == "Only login.tsx was needed."  # type: ignore[union-attr]
    assert [t.text() for t in cmp.state.todos] == [
        "~ todo 'create login.tsx': in_progress → completed",
        "- todo 'create register.tsx' (was pending)",
    ]
    assert cmp.differences == 5
    # a checkpoint against its own branch's ancestor: the later messages are one-sided
    cmp = compare_branches(values, timeline, after_todos.checkpoint_id, main.tip.checkpoint_id)
    assert cmp.ancestor is after_todos
    assert {r.status for r in cmp.rows} == {"right_only"}
    with pytest.raises(KeyError):
        compare_branches(values, timeline, "nope", main.tip.checkpoint_id)
