"""request_hash: ignores message ids, sees everything the model sees, stable across processes."""

from __future__ import annotations

import enum
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.messages import (
    AIMessage,
    AIMessageChunk,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from engine.models import canonical_request, request_hash
from engine.tools import tool

ROOT = Path(__file__).resolve().parents[3]

TOOLS: list[dict[str, Any]] = [
    {"name": "lookup", "description": "Look up", "parameters": {"type": "object"}}
]


def conversation(**overrides: Any) -> list[Any]:
    call = {"name": "lookup", "args": {"q": "x", "tags": ["a", "b"]}, "id": "call_1"}
    call.update(overrides.get("call", {}))
    return [
        SystemMessage("be brief"),
        HumanMessage(overrides.get("question", "what is x?")),
        AIMessage("", tool_calls=[call]),
        ToolMessage(
            overrides.get("result", "x is 42"),
            tool_call_id=overrides.get("tool_call_id", "call_1"),
            status=overrides.get("status", "success"),
        ),
    ]


def test_message_ids_and_bookkeeping_do_not_matter() -> None:
    a = conversation()
    b = conversation()
    for i, m in enumerate(b):
        m.id = f"other-{i}"
    b[2].usage_metadata = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
    b[2].response_metadata = {"latency": 3.2}
    b[3].artifact = {"raw": "bytes"}  # type: ignore[attr-defined]
    assert request_hash(a, TOOLS) == request_hash(b, TOOLS)


@pytest.mark.parametrize(
    "change",
    [
        {"question": "what is y?"},
        {"call": {"args": {"q": "y", "tags": ["a", "b"]}}},
        {"call": {"name": "search"}},
        {"call": {"id": "call_2"}},
        {"tool_call_id": "call_9"},
        {"status": "error"},
        {"result": "x is 43"},
    ],
)
def test_everything_the_model_sees_changes_the_hash(change: dict[str, Any]) -> None:
    assert request_hash(conversation(**change), TOOLS) != request_hash(conversation(), TOOLS)


def test_tools_choice_and_format_change_the_hash() -> None:
    base = request_hash(conversation(), TOOLS)
    other_tool = [{**TOOLS[0], "description": "Look it up"}]
    assert request_hash(conversation(), other_tool) != base
    assert request_hash(conversation()) != base
    assert request_hash(conversation(), TOOLS, tool_choice="any") != base
    fmt = {"type": "json_object"}
    assert request_hash(conversation(), TOOLS, response_format=fmt) != base


def test_message_type_and_name_matter() -> None:
    assert request_hash([HumanMessage("hi")]) != request_hash([SystemMessage("hi")])
    assert request_hash([HumanMessage("hi")]) != request_hash([HumanMessage("hi", name="bob")])


def test_a_chat_messages_role_matters() -> None:
    assert request_hash([ChatMessage("x", role="critic")]) != request_hash(
        [ChatMessage("x", role="judge")]
    )
    assert "role" not in canonical_request([HumanMessage("x")])["messages"][0]


def test_equivalent_inputs_hash_the_same() -> None:
    @tool
    def lookup(q: str) -> str:
        """Look up."""
        return q

    assert request_hash(["hi"]) == request_hash([HumanMessage("hi")])
    assert request_hash(["hi"], [lookup]) == request_hash(["hi"], [lookup.tool_call_schema])
    chunk = AIMessageChunk("done", tool_call_chunks=[{"name": "f", "args": '{"a": 1}', "index": 0}])
    assert request_hash([chunk]) == request_hash([chunk.to_message()])
    assert request_hash([AIMessage("x", tool_calls=[{"name": "f", "args": {"b": 1, "a": 2}}])]) == (
        request_hash([AIMessage("x", tool_calls=[{"name": "f", "args": {"a": 2, "b": 1}}])])
    )
    assert len(request_hash(["hi"])) == 64
    assert canonical_request(["hi"])["messages"][0]["content"] == "hi"


SCRIPT = """
from engine.messages import AIMessage, HumanMessage
from engine.models import request_hash
msgs = [HumanMessage("hello ü"), AIMessage("", tool_calls=[{"name": "f", "id": "c1",
        "args": {"s": {"b", "a", "c"}, "n": 1.5}}])]
print(request_hash(msgs, [{"name": "f", "parameters": {"type": "object"}}], "auto"))
"""


def test_stable_across_processes() -> None:
    hashes = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        hashes.add(out.stdout.strip())
    assert len(hashes) == 1
    assert len(hashes.pop()) == 64


def _fresh_hash(messages: list[Any], choice: str = "auto") -> str:
    """The hash computed from nothing kept: every message digested again."""
    from engine.models import hashing

    hashing._prefixes.clear()
    hashing._digests.clear()
    return request_hash(messages, TOOLS, choice)


def test_a_growing_conversation_hashes_only_its_new_messages(monkeypatch: Any) -> None:
    from engine.models import hashing

    history = conversation()
    digested: list[Any] = []
    real = hashing.message_digest

    def counting(message: Any) -> str:
        digested.append(message)
        return real(message)

    monkeypatch.setattr(hashing, "message_digest", counting)
    hashes = []
    for i in range(50):
        history = [*history, HumanMessage(f"q{i}"), AIMessage(f"a{i}")]
        hashes.append(request_hash(history, TOOLS, "auto"))
    assert len(digested) <= len(conversation()) + 2 * 50, "each request re-hashed its history"
    # the same hashes as computed from scratch; another conversation is not confused with it
    monkeypatch.setattr(hashing, "message_digest", real)
    assert hashes[-1] == _fresh_hash(history)
    assert request_hash(history[:-1], TOOLS, "auto") == _fresh_hash(history[:-1])
    edited = [*history[:3], HumanMessage("changed"), *history[4:]]
    assert request_hash(edited, TOOLS, "auto") == _fresh_hash(edited) != hashes[-1]
    assert request_hash(history, TOOLS, "none") == _fresh_hash(history, "none")


def test_a_system_prompt_made_afresh_each_call_still_hashes_only_new_messages(
    monkeypatch: Any,
) -> None:
    from engine.models import hashing

    history: list[Any] = [HumanMessage("start")]
    digested: list[Any] = []
    real = hashing.message_digest

    def counting(message: Any) -> str:
        digested.append(message)
        return real(message)

    monkeypatch.setattr(hashing, "message_digest", counting)
    hashes = []
    for i in range(40):
        history = [*history, AIMessage(f"a{i}"), HumanMessage(f"q{i}")]
        system = SystemMessage(f"be brief; step {i % 2}")  # a new object every call
        hashes.append(request_hash([system, *history], TOOLS, "auto"))
    assert len(digested) <= 1 + 3 * 40, "each request re-hashed its history"
    monkeypatch.setattr(hashing, "message_digest", real)
    assert hashes[-1] == _fresh_hash([SystemMessage("be brief; step 1"), *history])
    assert hashes[-2] == _fresh_hash([SystemMessage("be brief; step 0"), *history[:-2]])


def _schema(description: str) -> dict[str, Any]:
    return {
        "name": "lookup",
        "description": description,
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
    }


def test_tool_schemas_rebuilt_each_call_hash_by_their_value() -> None:
    msgs = [HumanMessage("hi", id="h")]
    first = request_hash(msgs, [_schema("Find things.")])
    assert request_hash(msgs, [_schema("Find things.")]) == first  # equal, not the same dict
    changed = request_hash(msgs, [_schema("Find other things.")])  # same name, new text
    assert changed != first
    assert request_hash(msgs, [_schema("Find things.")]) == first
    assert canonical_request(msgs, [_schema("Find other things.")])["tools"][0]["description"] == (
        "Find other things."
    )


class _Level(enum.IntEnum):
    HIGH = 1


class _Tag(str):
    pass


def test_the_hash_of_odd_values_is_the_one_recordings_hold() -> None:
    """Byte for byte the hash recorded sessions carry (replay matches on it): sets, tuples,
    enums, str subclasses as keys, big ints, non-ASCII text, content blocks (values computed
    before the canonical form got its fast paths; a change here breaks every replay)."""
    from engine.models import hashing

    args = {
        "s": {"b", "a", "c"},
        "n": 1.5,
        "t": (1, [2, {"z": None, "a": True}]),
        "e": _Level.HIGH,
        _Tag("k"): _Tag("v"),
        "big": 10**30,
    }
    msgs = [
        SystemMessage("be brief"),
        HumanMessage("hello ü \u2603"),
        AIMessage("", tool_calls=[{"name": "f", "id": "c1", "args": args}]),
        ToolMessage([{"type": "text", "text": "done"}], tool_call_id="c1", status="error"),
    ]
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"x": {"enum": [3, 1]}}}}]
    hashing._prefixes.clear()
    hashing._digests.clear()
    assert request_hash(msgs, tools, "auto", {"type": "json_schema", "strict": True}) == (
        "a3efecc4c8000a85f592089ac20033b1d129f2d35b8139beafbed0c437a86dc0"
    )
    assert [hashing.message_digest(m)[:16] for m in msgs] == [
        "34f5c6cfd11c3e81",
        "7a8024792a3ba181",
        "39a02a675e076ffe",
        "d0aa294ad237f852",
    ]
