"""StateTree: lazy tree of a checkpoint's values, previews, search, copy."""

from __future__ import annotations

import json

from engine.message_log import MessageList
from engine.messages import AIMessage, HumanMessage, ToolMessage
from studio.models.state_tree import StateTree, inline_preview, message_preview
from tests.studio.tt_agents import build_seed, seed_input


def _values() -> dict:
    return {
        "messages": MessageList(
            [
                HumanMessage("Create login.tsx", id="h1"),
                AIMessage(
                    "",
                    id="a1",
                    tool_calls=[{"name": "create_file", "args": {"path": "login.tsx"}, "id": "c1"}],
                ),
                ToolMessage("File login.tsx created", tool_call_id="c1", id="t1"),
            ]
        ),
        "todos": [{"content": "create login.tsx", "status": "completed"}],
        "config": {"temperature": 0.2, "tags": ["a", "b"]},
    }


def test_top_level_and_lazy_children() -> None:
    tree = StateTree(_values())
    root = tree.root
    assert [c.key for c in root.children()] == ["messages", "todos", "config"]
    messages = root.child("messages")
    assert messages is not None
    assert messages._children is None  # nothing built until asked
    assert messages.child_count() == 3
    assert messages.type_label() == "3 messages"
    assert messages.preview() == "[3 messages]"
    ai = messages.child(1)
    assert ai is not None and ai.kind == "message" and ai.type_label() == "AIMessage"
    # meaningful fields first, empty bookkeeping hidden
    assert [c.key for c in ai.children()] == ["type", "content", "tool_calls", "id"]
    args = tree.node_at(("messages", 1, "tool_calls", 0, "args", "path"))
    assert args is not None and args.value == "login.tsx"
    assert args.path_text() == "messages[1].tool_calls[0].args.path"


def test_previews() -> None:
    tree = StateTree(_values())
    assert (
        tree.node_at(("todos",)).preview() == '[{content: "create login.tsx", status: "completed"}]'
    )  # type: ignore[union-attr]
    assert tree.node_at(("config",)).preview() == '{temperature: 0.2, tags: ["a", "b"]}'  # type: ignore[union-attr]
    assert message_preview(_values()["messages"][1]) == 'ai → create_file(path="login.tsx")'
    assert message_preview(_values()["messages"][2]) == "tool ✓ File login.tsx created"
    assert message_preview(_values()["messages"][0]) == "human: Create login.tsx"
    from engine.messages import AIMessage

    bad = {
        "name": "get_weather",
        "args": "{",
        "id": "x",
        "error": "bad json",
        "type": "invalid_tool_call",
    }
    assert (
        message_preview(AIMessage("", invalid_tool_calls=[bad]))
        == "ai → get_weather ✗ invalid call"
    )
    long = inline_preview({"k": "x" * 500}, limit=40)
    assert len(long) == 40 and long.endswith("…")


def test_search_finds_keys_and_values_and_resolves_paths() -> None:
    tree = StateTree(_values())
    hits = tree.find("LOGIN")
    texts = [tree.node_at(p).path_text() for p in hits]  # type: ignore[union-attr]
    assert texts == [
        "messages[0].content",
        "messages[1].tool_calls[0].args.path",
        "messages[2].content",
        "todos[0].content",
    ]
    assert [tree.node_at(p).path_text() for p in tree.find("temperature")] == ["config.temperature"]  # type: ignore[union-attr]
    assert tree.find("") == []
    assert len(tree.find("a", limit=2)) == 2


def test_copy_value_is_complete_json() -> None:
    tree = StateTree(_values())
    ai = tree.node_at(("messages", 1))
    data = json.loads(ai.to_json())  # type: ignore[union-attr]
    assert data["tool_calls"][0]["args"] == {"path": "login.tsx"}
    assert "additional_kwargs" in data  # hidden in the tree, present in the copy
    assert tree.node_at(("todos", 0, "status")).to_json() == "completed"  # type: ignore[union-attr]


def test_real_seed_state_after_write_todos() -> None:
    seed = build_seed()
    seed.agent.invoke(seed_input(), seed.config())
    snap = next(s for s in seed.agent.get_state_history(seed.config()) if s.metadata["step"] == 3)
    tree = StateTree(snap.values)
    todos = tree.node_at(("todos",))
    assert todos is not None and todos.child_count() == 2
    assert tree.node_at(("todos", 0, "status")).value == "in_progress"  # type: ignore[union-attr]
    assert tree.node_at(("messages",)).child_count() == 3  # type: ignore[union-attr]


class _NoFullScan(MessageList):
    """A message log that fails the test if anyone walks all of it."""

    __slots__ = ()

    def __iter__(self):  # type: ignore[override]
        raise AssertionError("the state tree walked the whole history")


def test_ten_thousand_messages_top_level_is_lazy() -> None:
    msgs = _NoFullScan([HumanMessage(f"message {i}", id=f"m{i}") for i in range(10_000)])
    tree = StateTree({"messages": msgs, "todos": []})
    top = tree.root.children()
    labels = [(c.display_key(), c.type_label(), c.preview()) for c in top]
    assert labels[0] == ("messages", "10000 messages", "[10000 messages]")
    # expanding the list builds its rows (once); reaching the last one works
    expanded = StateTree({"messages": MessageList(MessageList.__iter__(msgs))})
    assert expanded.node_at(("messages", 9_999, "content")).value == "message 9999"  # type: ignore[union-attr]
