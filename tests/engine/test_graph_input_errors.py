"""Clear errors and warnings for inputs and updates a graph cannot use."""

from __future__ import annotations

from typing import TypedDict

import pytest

from engine import END, START, Command, InvalidUpdateError, StateGraph
from engine.checkpoint import InMemorySaver
from engine.graph.state import UnknownStateKeyWarning


class S(TypedDict):
    n: int


def _graph(extra: dict | None = None):  # type: ignore[no-untyped-def]
    def step(state: S) -> dict:
        return {"n": state["n"] + 1, **(extra or {})}

    g = StateGraph(S)
    g.add_node("step", step)
    g.add_edge(START, "step")
    g.add_edge("step", END)
    return g.compile(checkpointer=InMemorySaver())


CFG = {"configurable": {"thread_id": "t"}}


def test_command_goto_an_unknown_node_names_it() -> None:
    graph = _graph()
    graph.invoke({"n": 0}, CFG)
    with pytest.raises(InvalidUpdateError, match=r"no node 'nowhere' \(nodes: step\)"):
        graph.invoke(Command(goto="nowhere"), CFG)


def test_command_update_of_unknown_keys_only_is_an_error() -> None:
    graph = _graph()
    graph.invoke({"n": 0}, CFG)
    with (
        pytest.warns(UnknownStateKeyWarning, match="'nope'"),
        pytest.raises(InvalidUpdateError, match="none of its keys are in the state"),
    ):
        graph.invoke(Command(update={"nope": 1}), CFG)


def test_node_writing_unknown_keys_warns() -> None:
    graph = _graph({"typo": 5})
    with pytest.warns(UnknownStateKeyWarning, match=r"node 'step' wrote 'typo'.*keys: n"):
        assert graph.invoke({"n": 0}, CFG) == {"n": 1}


def test_input_with_unknown_keys_warns() -> None:
    with pytest.warns(UnknownStateKeyWarning, match="the input wrote 'extra'"):
        _graph().invoke({"n": 0, "extra": 1}, CFG)


@pytest.mark.parametrize("limit", ["abc", 2.5j])
def test_recursion_limit_that_is_not_a_number(limit: object) -> None:
    with pytest.raises(ValueError, match="recursion_limit must be a whole number"):
        _graph().invoke({"n": 0}, {**CFG, "recursion_limit": limit})
