"""Re-run from a checkpoint with ReplayChatModel: served until divergence, reported at the right call."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.checkpoint import InMemorySaver
from engine.models.scripted import ScriptedChatModel
from studio.history.timetravel import arerun, replay_plan
from studio.models.timeline import TimelineModel
from tests.studio.tt_agents import build_seed, seed_input


@pytest.fixture
def recorded() -> tuple[Any, TimelineModel]:
    """The seed run, recorded: its agent (events, checkpointer) and its timeline."""
    seed = build_seed(checkpointer=InMemorySaver())
    timeline = TimelineModel("seed")
    seed.agent.subscribe(lambda ev: timeline.apply_events([ev]))
    seed.agent.invoke(seed_input(), seed.config())
    return seed, timeline


def _after_write_todos(timeline: TimelineModel) -> str:
    main = timeline.main
    assert main is not None
    return next(n for n in main.nodes if n.writers == ("tools",)).checkpoint_id


def _rerun(recorded: Any, timeline: TimelineModel, cid: str, **build: Any) -> Any:
    seed, _ = recorded
    plan = replay_plan(seed.events, timeline, cid, fallback=build.pop("fallback", None))
    again = build_seed(plan.model, checkpointer=seed.agent.checkpointer, **build)
    again.agent.subscribe(lambda ev: timeline.apply_events([ev]))
    result = asyncio.run(arerun(again.agent, plan, "seed"))
    return plan, again, result


def test_the_same_agent_replays_every_recorded_call(recorded: Any) -> None:
    seed, timeline = recorded
    cid = _after_write_todos(timeline)
    plan, again, result = _rerun(recorded, timeline, cid)
    assert plan.offset == 1  # write_todos was asked before the checkpoint
    assert plan.available == 3
    assert result.status == "done" and plan.divergence is None
    assert plan.model.served == 3
    assert again.files == ["login.tsx", "register.tsx"]  # tools run again; the model does not
    original = seed.agent.get_state(
        seed.config(checkpoint_id=timeline.main.tip.checkpoint_id)
    ).values
    replayed = again.agent.get_state(seed.config()).values
    assert [m.text for m in replayed["messages"]] == [m.text for m in original["messages"]]
    assert result.tip_id is not None and timeline.get(result.tip_id).branch.id == 1  # type: ignore[union-attr]
    assert len(timeline.main.nodes) == 13  # type: ignore[union-attr]


def test_a_changed_prompt_diverges_at_the_first_call_after_the_checkpoint(recorded: Any) -> None:
    _, timeline = recorded
    cid = _after_write_todos(timeline)
    plan, again, result = _rerun(recorded, timeline, cid, system_prompt="You are a terse engineer.")
    assert result.status == "diverged"
    assert plan.diverged_at_call == 2  # call #1 (write_todos) was before the checkpoint
    assert plan.model.served == 0
    assert plan.describe().startswith("model call #2 differs from the recording")
    assert again.files == []  # stopped: no live model configured
    marked = [n for n in timeline.by_id.values() if n.marker("divergence")]
    assert [n.checkpoint_id for n in marked] == [result.tip_id]
    assert marked[0].marker("divergence").text.startswith("call #2 differs from the recording")  # type: ignore[union-attr]


def test_rerun_from_the_start_with_a_changed_prompt_diverges_at_call_one(recorded: Any) -> None:
    _, timeline = recorded
    first = timeline.main.nodes[0].checkpoint_id  # type: ignore[union-attr]
    plan, _, result = _rerun(recorded, timeline, first, system_prompt="Another prompt")
    assert result.status == "diverged" and plan.diverged_at_call == 1 and plan.offset == 0


def test_a_different_tool_result_diverges_later_and_the_live_model_takes_over(
    recorded: Any,
) -> None:
    seed, timeline = recorded
    cid = _after_write_todos(timeline)
    live = ScriptedChatModel(["I could not create register.tsx: the disk is full."])
    plan = replay_plan(seed.events, timeline, cid, fallback=live)
    # same prompt, but register.tsx now fails twice: the call after it sees an error ToolMessage
    broken = build_seed(plan.model, checkpointer=seed.agent.checkpointer)
    broken.fail_next["register.tsx"] = 2
    result = asyncio.run(arerun(broken.agent, plan, "seed"))
    assert result.status == "done"
    assert plan.model.served == 2  # login, register
    assert plan.diverged_at_call == 4  # the final answer's request now carries the error
    assert live.remaining == 0
    final = broken.agent.get_state(seed.config()).values["messages"][-1]
    assert final.text == "I could not create register.tsx: the disk is full."
