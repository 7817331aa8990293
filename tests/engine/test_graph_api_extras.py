"""Graph API corners: dataclass state, update_state's special nodes, with_config, delete_thread."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, TypedDict

import pytest

from engine import END, START, Command, EmptyInputError, StateGraph
from engine.checkpoint import InMemorySaver, SqliteSaver


class Log(TypedDict):
    log: Annotated[list, operator.add]


def chain(checkpointer=None, **kw):
    g = StateGraph(Log)
    g.add_node("x", lambda s: {"log": ["x"]})
    g.add_node("y", lambda s: {"log": ["y"]})
    g.add_edge(START, "x")
    g.add_edge("x", "y")
    g.add_edge("y", END)
    return g.compile(checkpointer=checkpointer or InMemorySaver(), **kw)


def cfg(t: str = "t") -> dict:
    return {"configurable": {"thread_id": t}}


@dataclass
class DState:
    items: Annotated[list[int], operator.add] = field(default_factory=list)
    label: str = "none"


def test_dataclass_state_schema():
    def add(state: DState) -> dict:
        assert isinstance(state, DState)
        return {"items": [len(state.items)], "label": f"had {len(state.items)}"}

    g = StateGraph(DState)
    g.add_node("add", add)
    g.add_edge(START, "add")
    out = g.compile().invoke({"items": [7, 8]})
    assert out == {"items": [7, 8, 2], "label": "had 2"}
    assert g.compile().invoke(DState(items=[1]))["items"] == [1, 1]


def test_update_state_as_input_copy_and_end():
    g = chain(interrupt_before=["y"])
    g.invoke({"log": []}, cfg())
    assert g.get_state(cfg()).next == ("y",)
    # values=None, as_node=END clears the pending tasks
    g.update_state(cfg(), None, as_node=END)
    snap = g.get_state(cfg())
    assert snap.next == () and snap.metadata["source"] == "update"
    # __input__ acts as new input: the run starts over from START
    g.update_state(cfg(), {"log": ["again"]}, as_node="__input__")
    snap = g.get_state(cfg())
    assert snap.next == ("__start__",) and snap.metadata["source"] == "input"
    # __copy__ clones the tip as a fork checkpoint with the same values: a sibling of the
    # original (same parent), as in LangGraph
    before = g.get_state(cfg())
    new_cfg = g.update_state(cfg(), None, as_node="__copy__")
    copy = g.get_state(new_cfg)
    assert copy.metadata["source"] == "fork"
    assert copy.values == before.values and copy.next == before.next
    assert (
        copy.parent_config["configurable"]["checkpoint_id"]
        == before.parent_config["configurable"]["checkpoint_id"]
    )
    assert (
        copy.config["configurable"]["checkpoint_id"]
        != before.config["configurable"]["checkpoint_id"]
    )


def test_update_state_on_a_past_checkpoint_starts_a_branch():
    g = chain()
    g.invoke({"log": []}, cfg())
    history = list(g.get_state_history(cfg()))
    past = next(s for s in history if s.next == ("y",))
    branch = g.update_state(past.config, {"log": ["edited"]}, as_node="x")
    snap = g.get_state(branch)
    assert snap.values["log"] == ["x", "edited"] and snap.next == ("y",)
    assert g.invoke(None, branch)["log"] == ["x", "edited", "y"]
    assert len(list(g.get_state_history(cfg()))) == len(history) + 2  # the old branch is kept


def test_with_config_binds_defaults():
    g = chain().with_config(recursion_limit=2)
    from engine import GraphRecursionError

    with pytest.raises(GraphRecursionError):
        g.invoke({"log": []}, cfg())
    assert g.with_config(recursion_limit=10).invoke({"log": []}, cfg("ok"))["log"] == ["x", "y"]


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_delete_thread(kind, tmp_path):
    saver = InMemorySaver() if kind == "memory" else SqliteSaver(tmp_path / "d.sqlite")
    g = chain(saver)
    g.invoke({"log": []}, cfg("a"))
    g.invoke({"log": []}, cfg("b"))
    saver.delete_thread("a")
    assert list(g.get_state_history(cfg("a"))) == []
    assert g.get_state(cfg("a")).values == {}
    assert g.get_state(cfg("b")).values["log"] == ["x", "y"]


def test_empty_inputs_are_refused():
    g = chain()
    with pytest.raises(EmptyInputError):
        g.invoke(None, cfg("fresh"))
    g.invoke({"log": []}, cfg("done"))
    with pytest.raises(EmptyInputError, match="empty Command"):
        g.invoke(Command(), cfg("done"))


def test_checkpointer_needs_a_thread_id():
    with pytest.raises(ValueError, match="thread_id"):
        chain().invoke({"log": []})
