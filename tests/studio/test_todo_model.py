"""The Todos board's plain-Python model: cards and their changes, the draft, the state update."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from engine.events import CheckpointSaved
from engine.messages import AIMessage, HumanMessage, ToolMessage
from studio.models.todos import (
    EDITED_NOTE,
    BoardState,
    TodoDraft,
    normalise_todos,
    tip_writer,
    todo_cards,
    todos_update,
)


def todo(content: str, status: str = "pending") -> dict[str, str]:
    return {"content": content, "status": status}


def changes(current: list[dict[str, str]], previous: list[dict[str, str]] | None) -> list:
    cards, removed = todo_cards(current, previous)
    return [(c.content, c.change, c.before) for c in cards] + [
        ("removed", r["content"]) for r in removed
    ]


def test_normalise() -> None:
    assert normalise_todos(None) == []
    assert normalise_todos([{"content": "a", "status": "weird"}, "b"]) == [todo("a"), todo("b")]


def test_no_previous_list_means_no_highlight() -> None:
    assert changes([todo("a"), todo("b", "completed")], None) == [
        ("a", None, None),
        ("b", None, None),
    ]


def test_every_kind_of_change() -> None:
    before = [todo("login"), todo("register"), todo("deploy"), todo("docs")]
    after = [
        todo("register"),
        todo("log in page", "in_progress"),  # most like login, which is gone: reworded
        todo("deploy", "completed"),
        todo("tests"),
    ]
    assert changes(after, before) == [
        ("register", None, None),
        ("log in page", "reworded", "login"),  # (its status changed too: rewording wins)
        ("deploy", "status", "pending"),
        ("tests", "added", None),  # nothing like it was there
        ("removed", "docs"),
    ]
    abc = [todo("a"), todo("b"), todo("c")]
    assert changes([todo("c"), todo("a"), todo("b")], abc) == [
        ("c", "moved", None),  # the fewest moves explain the new order
        ("a", None, None),
        ("b", None, None),
    ]
    assert changes([todo("b"), todo("a"), todo("c")], abc) == [
        ("b", "moved", None),
        ("a", None, None),
        ("c", None, None),
    ]
    assert changes([todo("a"), todo("new")], [todo("a")]) == [
        ("a", None, None),
        ("new", "added", None),
    ]
    assert changes([todo("a")], [todo("a"), todo("gone")]) == [
        ("a", None, None),
        ("removed", "gone"),
    ]
    state = BoardState.of([todo("a", "in_progress"), todo("new")], [todo("a")])
    assert [c.content for c in state.column("in_progress")] == ["a"]
    assert state.changed == 2


def test_draft_edits() -> None:
    draft = TodoDraft([todo("a"), todo("b")])
    fired: list[int] = []
    draft.changed_listeners.append(lambda: fired.append(1))
    assert not draft.dirty
    draft.add("c", "in_progress", index=0)
    draft.reword(1, "  A  ")
    draft.set_status(2, "completed")
    draft.move(0, 2)
    assert draft.result() == [todo("A"), todo("b", "completed"), todo("c", "in_progress")]
    draft.remove(1)
    assert draft.dirty and len(fired) == 5
    with pytest.raises(ValueError, match="needs some text"):
        draft.add("  ")
    with pytest.raises(ValueError, match="Unknown status"):
        draft.set_status(0, "blocked")
    with pytest.raises(IndexError):
        draft.reword(7, "x")
    draft.reset()
    assert draft.result() == [todo("a"), todo("b")] and not draft.dirty


def test_update_rewrites_the_last_write_todos_result_in_place() -> None:
    old = ToolMessage(
        content="Updated todo list to [...]", tool_call_id="c1", name="write_todos", id="m3"
    )
    values = {
        "messages": [
            HumanMessage("go", id="m1"),
            AIMessage(
                content="", tool_calls=[{"name": "write_todos", "args": {}, "id": "c1"}], id="m2"
            ),
            old,
            AIMessage(
                content="", tool_calls=[{"name": "create_file", "args": {}, "id": "c2"}], id="m4"
            ),
        ]
    }
    new = [todo("login", "completed"), todo("register", "in_progress")]
    update = todos_update(values, new)
    assert update["todos"] == new
    [message] = update["messages"]
    assert (message.id, message.tool_call_id, message.name) == ("m3", "c1", "write_todos")
    assert message.text == f"Updated todo list to {new}\n\n{EDITED_NOTE}"


def test_update_without_a_write_todos_result() -> None:
    new = [todo("a")]
    finished = {"messages": [HumanMessage("hi", id="h"), AIMessage("hello", id="a")]}
    [note] = todos_update(finished, new)["messages"]
    assert isinstance(note, HumanMessage) and "I set the todo list to" in note.text
    waiting = {
        "messages": [
            AIMessage(content="", tool_calls=[{"name": "x", "args": {}, "id": "c"}], id="a")
        ]
    }
    assert todos_update(waiting, new) == {"todos": new}  # a message here would break the turn


def test_tip_writer() -> None:
    snapshot = SimpleNamespace(config={"configurable": {"checkpoint_id": "cp2"}}, metadata={})
    events = [
        CheckpointSaved(run_id="r", checkpoint_id="cp1", writer_nodes=["model"]),
        CheckpointSaved(run_id="r", checkpoint_id="cp2", writer_nodes=["tools"]),
    ]
    assert tip_writer(events, snapshot) == "tools"
    both = [CheckpointSaved(run_id="r", checkpoint_id="cp2", writer_nodes=["a", "b"])]
    assert tip_writer(both, snapshot) is None
    updated = SimpleNamespace(config=snapshot.config, metadata={"writes": {"model": {}}})
    assert tip_writer([], updated) == "model"
    assert tip_writer([], snapshot) is None
