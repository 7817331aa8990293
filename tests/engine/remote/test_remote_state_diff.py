"""``state.updated`` of a remote run is worked out from consecutive checkpoints' values: a list
that grew by its tail is an append (only the new items), anything else a set."""

from __future__ import annotations

from engine.remote.state_diff import value_changes


def test_a_grown_list_is_an_append_of_its_tail_only() -> None:
    before = {"messages": [{"type": "human", "content": "hi"}], "steps": ["plan"], "mode": "a"}
    after = {
        "messages": [{"type": "human", "content": "hi"}, {"type": "ai", "content": "yo"}],
        "steps": ["plan"],
        "mode": "b",
    }
    assert value_changes(before, after) == [
        {
            "channel": "messages",
            "op": "append",
            "appended": [{"type": "ai", "content": "yo"}],
            "length": 2,
        },
        {"channel": "mode", "op": "set", "value": "b"},
    ]


def test_a_rewritten_list_a_first_checkpoint_and_a_removed_key() -> None:
    assert value_changes({"steps": ["a", "b"]}, {"steps": ["b"]}) == [
        {"channel": "steps", "op": "set", "value": ["b"]}
    ]
    assert value_changes(None, {"steps": ["a"]}) == [
        {"channel": "steps", "op": "set", "value": ["a"]}
    ]
    assert value_changes({"mode": "x", "steps": []}, {"steps": []}) == [
        {"channel": "mode", "op": "clear"}
    ]
