"""diff_states: messages appended/replaced/removed, todo status changes, nested key changes."""

from __future__ import annotations

from engine.message_log import MessageList
from engine.messages import AIMessage, HumanMessage, ToolMessage
from studio.models.state_diff import diff_states
from tests.studio.tt_agents import build_seed, seed_input


def _ai(call_path: str) -> AIMessage:
    return AIMessage(
        "", id="a1", tool_calls=[{"name": "create_file", "args": {"path": call_path}, "id": "c1"}]
    )


def test_seed_checkpoints_diff_lists_the_expected_changes() -> None:
    seed = build_seed()
    seed.agent.invoke(seed_input(), seed.config())
    by_step = {s.metadata["step"]: s for s in seed.agent.get_state_history(seed.config())}
    # step 3: tools ran write_todos -> the ToolMessage is appended and the todos appear
    d = diff_states(by_step[2].values, by_step[3].values)
    assert [(m.kind, m.index, m.after.type) for m in d.messages] == [("appended", 2, "tool")]  # type: ignore[union-attr]
    assert [(t.kind, t.content, t.after) for t in d.todos] == [
        ("added", "create login.tsx", "in_progress"),
        ("added", "create register.tsx", "pending"),
    ]
    assert d.keys == ()
    assert d.summary() == "1 message appended · 2 todo changes"
    # two checkpoints further apart: step 3 -> step 9 appends four messages
    d = diff_states(by_step[3].values, by_step[9].values)
    assert [m.kind for m in d.messages] == ["appended"] * 4
    assert d.todos == ()
    # the same checkpoint against itself: nothing
    assert diff_states(by_step[9].values, by_step[9].values).is_empty


def test_replaced_and_removed_messages_with_field_paths() -> None:
    before = {
        "messages": [
            HumanMessage("hi", id="h1"),
            _ai("login.tsx"),
            ToolMessage("x", tool_call_id="c1", id="t1"),
        ]
    }
    after = {"messages": [HumanMessage("hi", id="h1"), _ai("logout.tsx")]}
    d = diff_states(before, after)
    kinds = [(m.kind, m.index, m.message_id) for m in d.messages]
    assert kinds == [("replaced", 1, "a1"), ("removed", 2, "t1")]
    replaced = d.messages[0]
    assert [(f.path, f.before, f.after) for f in replaced.fields] == [
        ("tool_calls[0].args.path", "login.tsx", "logout.tsx")
    ]
    assert d.lines()[0].startswith("~ messages[1] ai → create_file(")
    assert "tool_calls[0].args.path" in d.lines()[0]


def test_removing_a_tool_call_is_a_replacement() -> None:
    before = {"messages": [_ai("login.tsx")]}
    after = {"messages": [AIMessage("", id="a1")]}
    (change,) = diff_states(before, after).messages
    assert change.kind == "replaced"
    assert [f.path for f in change.fields] == ["tool_calls"]


def test_todo_status_changes_and_removals() -> None:
    before = {
        "todos": [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "pending"}]
    }
    after = {
        "todos": [{"content": "a", "status": "completed"}, {"content": "c", "status": "pending"}]
    }
    d = diff_states(before, after)
    assert [t.text() for t in d.todos] == [
        "~ todo 'a': in_progress → completed",
        "+ todo 'c' (pending)",
        "- todo 'b' (was pending)",
    ]


def test_other_keys_nested_paths() -> None:
    before = {"config": {"temperature": 0.2, "tags": ["a"]}, "gone": 1, "same": {"x": 1}}
    after = {"config": {"temperature": 0.7, "tags": ["a"], "seed": 3}, "new": "v", "same": {"x": 1}}
    d = diff_states(before, after)
    assert [c.text() for c in d.keys] == [
        "~ config.temperature: 0.2 → 0.7",
        "+ config.seed = 3",
        '+ new = "v"',
        "- gone (was 1)",
    ]
    assert "same" in d.unchanged_keys


class _NoFullScan(MessageList):
    """A message log that fails the test if anyone walks all of it."""

    __slots__ = ()

    def __iter__(self):  # type: ignore[override]
        raise AssertionError("the diff walked the whole history")


def test_append_only_message_logs_diff_without_walking_the_history() -> None:
    base = _NoFullScan([HumanMessage(f"m{i}", id=f"m{i}") for i in range(10_000)])
    grown = base.extended([AIMessage("done", id="last")])
    d = diff_states({"messages": base}, {"messages": grown})
    assert [(m.kind, m.index) for m in d.messages] == [("appended", 10_000)]
    # plain lists (e.g. a session's checkpoint values) take the common-prefix path
    d = diff_states(
        {"messages": list(MessageList.__iter__(base))}, {"messages": [*MessageList.__iter__(grown)]}
    )
    assert [(m.kind, m.index) for m in d.messages] == [("appended", 10_000)]


def test_a_message_card_says_what_its_text_alone_does_not() -> None:
    """The cards of the Diff view and of the What-if playground's answers: a tool call the
    model got wrong and a reply cut off at the token limit say so (in the danger colour)."""
    from engine.messages import AIMessage
    from studio.docks.diff.html import message_card
    from studio.look.palette import colors

    c = colors("light")
    bad = {"name": "get_weather", "args": '{"city": "s', "id": "x", "error": "bad json"}
    cut = AIMessage(
        "first, open the",
        invalid_tool_calls=[bad],
        response_metadata={"finish_reason": "length"},
    )
    html = message_card(cut, c)
    assert "first, open the" in html
    assert "→ get_weather ✗ invalid call: bad json" in html
    assert "⚠ cut off at its token limit (finish_reason: length)" in html
    assert html.count(c.danger) >= 2
    plain = message_card(AIMessage("all done", response_metadata={"finish_reason": "stop"}), c)
    assert "⚠" not in plain and "invalid call" not in plain
