"""Managed values: ``RemainingSteps`` and ``IsLastStep`` are filled in per task, never stored."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, NotRequired, TypedDict

from engine.checkpoint import InMemorySaver
from engine.graph import END, START, IsLastStep, RemainingSteps, StateGraph
from engine.types import Command


class State(TypedDict):
    seen: Annotated[list[tuple[int, bool]], operator.add]
    remaining_steps: RemainingSteps
    is_last_step: NotRequired[IsLastStep]


def _loop_graph(**kw: Any):  # type: ignore[no-untyped-def]
    def tick(state: State) -> Command[Literal["tick", "__end__"]]:
        return Command(
            update={"seen": [(state["remaining_steps"], state["is_last_step"])]},
            goto=END if state["is_last_step"] else "tick",
        )

    g = StateGraph(State)
    g.add_node("tick", tick)
    g.add_edge(START, "tick")
    return g.compile(**kw)


def test_the_state_knows_its_managed_keys() -> None:
    assert set(StateGraph(State).managed) == {"remaining_steps", "is_last_step"}


def test_each_task_sees_the_steps_left_and_the_last_one_ends_the_loop() -> None:
    graph = _loop_graph(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}, "recursion_limit": 4}
    out = graph.invoke({"seen": []}, cfg)
    # the input is step 0, the first node step 1: with a limit of 4, 3 steps are left
    # (LangGraph's create_react_agent sees 24 at its first call with the default 25)
    assert out["seen"] == [(3, False), (2, False), (1, True)]
    assert "remaining_steps" not in out and "is_last_step" not in out
    assert "remaining_steps" not in graph.get_state(cfg).values
