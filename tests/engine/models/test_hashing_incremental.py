"""The incremental request hash (kept digests, a conversation's kept hash state, kept tool
heads) gives exactly the hash computed from nothing, over varied histories: messages
appended, dropped, copied, replaced, and edited after they were hashed (a field set anew)."""

from __future__ import annotations

import hashlib
import json
import random
import re
from typing import Any

import pytest

from engine import message_edits
from engine.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from engine.models import canonical_request, hashing, request_hash

_UUID = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|call_[0-9a-f]{24}"
)


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def reference_hash(
    messages: list[Any],
    tools: list[Any] | None = None,
    tool_choice: str | None = None,
    response_format: dict[str, Any] | None = None,
) -> str:
    """The full computation, nothing kept: the canonical request, each message digested."""
    canonical = canonical_request(messages, tools, tool_choice, response_format)
    rest = {k: v for k, v in canonical.items() if k != "messages"}
    h = hashlib.sha256(_dumps(rest))
    for message in canonical["messages"]:
        h.update(hashlib.sha256(_dumps(message)).hexdigest().encode("ascii"))
    return h.hexdigest()


def _tools(variant: int) -> list[dict[str, Any]]:
    return [
        {"name": "lookup", "description": f"Look up ({variant})", "parameters": {"type": "object"}},
        {"name": "echo", "parameters": {"type": "object", "properties": {"t": {"type": "string"}}}},
    ]


def _call(rng: random.Random, i: int) -> dict[str, Any]:
    args: dict[str, Any] = {"q": f"q{i}", "n": rng.choice([1, 1.5, True, None]), "l": [i, "x"]}
    return {"name": rng.choice(["lookup", "echo"]), "args": args, "id": f"call_{i}"}


class _History:
    """A conversation driven by random steps, each leaving a new list (as a graph's state)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.messages: list[BaseMessage] = [HumanMessage("start")]
        self.system: SystemMessage | None = SystemMessage("be brief")
        self.i = 0

    def request(self) -> list[BaseMessage]:
        return [self.system, *self.messages] if self.system is not None else list(self.messages)

    def step(self) -> str:
        rng, msgs = self.rng, self.messages
        self.i += 1
        i = self.i
        earlier = [m for m in msgs[:-1]] or msgs
        op = rng.choice(
            [
                "human", "tool_round", "tool_round", "blocks", "chunk", "system_afresh",
                "system_text", "no_system", "content_set", "tool_calls_set", "name_set",
                "status_set", "copy_replaced", "equal_copy", "dropped", "truncated",
            ]
        )  # fmt: skip
        if op == "human":
            self.messages = [*msgs, HumanMessage(f"question {i} ü")]
        elif op == "tool_round":
            call = _call(rng, i)
            self.messages = [
                *msgs,
                AIMessage("", tool_calls=[call]),
                ToolMessage(f"result {i}", tool_call_id=call["id"]),
            ]
        elif op == "blocks":
            blocks = [{"type": "text", "text": f"part {i}"}, {"type": "image", "url": "x"}]
            self.messages = [*msgs, AIMessage(blocks)]
        elif op == "chunk":
            chunk = AIMessageChunk(
                f"streamed {i}",
                tool_call_chunks=[
                    {"name": "echo", "args": '{"t": "1"}', "id": f"k{i}", "index": 0}
                ],
            )
            self.messages = [*msgs, chunk]
        elif op == "system_afresh":  # the same text, a new object (middleware rebuilding it)
            self.system = SystemMessage(self.system.content if self.system else "be brief")
        elif op == "system_text":
            self.system = SystemMessage(f"be brief, step {i}")
        elif op == "no_system":
            self.system = None
        elif op == "content_set":  # an edit of a message already sent: a field set anew
            rng.choice(earlier).content = f"edited {i}"
        elif op == "tool_calls_set":
            ais = [m for m in earlier if type(m) is AIMessage]
            if ais:
                rng.choice(ais).tool_calls = [_call(rng, 1000 + i)]
        elif op == "name_set":
            rng.choice(earlier).name = f"name{i}"
        elif op == "status_set":
            tools = [m for m in earlier if isinstance(m, ToolMessage)]
            if tools:
                target = rng.choice(tools)
                target.status = "error" if target.status == "success" else "success"
        elif op == "copy_replaced":
            k = rng.randrange(len(msgs))
            copy = msgs[k].model_copy(update={"content": f"copied {i}"})
            self.messages = [*msgs[:k], copy, *msgs[k + 1 :]]
        elif op == "equal_copy":
            k = rng.randrange(len(msgs))
            self.messages = [*msgs[:k], msgs[k].model_copy(), *msgs[k + 1 :]]
        elif op == "dropped" and len(msgs) > 1:
            k = rng.randrange(len(msgs))
            self.messages = [*msgs[:k], *msgs[k + 1 :]]
        elif op == "truncated" and len(msgs) > 2:
            self.messages = msgs[: len(msgs) // 2]
        return op


@pytest.mark.parametrize("seed", range(6))
def test_varied_histories_hash_as_the_full_computation(seed: int) -> None:
    history = _History(seed)
    for _ in range(80):
        op = history.step()
        request = history.request()
        variant = history.rng.choice([0, 0, 0, 1])
        tools = _tools(variant)  # rebuilt every call, as an agent does; sometimes another text
        choice = history.rng.choice([None, None, "auto"])
        assert request_hash(request, tools, choice) == reference_hash(request, tools, choice), op
        # the same request again (everything kept) and another conversation in between
        assert request_hash(request, tools, choice) == reference_hash(request, tools, choice), op
        other = [HumanMessage(f"other {op}"), AIMessage("fine")]
        assert request_hash(other) == reference_hash(other)


def test_an_edited_message_is_hashed_again_even_when_kept_elsewhere() -> None:
    """A message edited after it was hashed: the kept digest, the conversation's kept hash
    state and a second conversation holding the same message all see the edit."""
    ai = AIMessage("", tool_calls=[{"name": "echo", "args": {"t": "a"}, "id": "c1"}])
    first = [HumanMessage("hi"), ai, ToolMessage("a", tool_call_id="c1")]
    second = [HumanMessage("other"), ai]
    for request in (first, second):
        assert request_hash(request) == reference_hash(request)
    before = request_hash([*first, HumanMessage("next")])
    ai.tool_calls = [{"name": "echo", "args": {"t": "b"}, "id": "c1"}]  # a reviewer's edit
    for request in (first, second, [*first, HumanMessage("next")]):
        assert request_hash(request) == reference_hash(request)
    assert request_hash([*first, HumanMessage("next")]) != before
    first[0].content = "hello"
    assert request_hash(first) == reference_hash(first)
    assert hashing.message_digest(first[0]) == hashing.message_digest(HumanMessage("hello"))


def test_only_edits_of_watched_messages_move_the_epoch() -> None:
    fresh = AIMessage("reply")
    before = message_edits.epoch()
    fresh.name = "agent"  # a reply named before anyone hashed it
    fresh.id = "x"
    assert message_edits.epoch() == before
    hashing.message_digest(fresh)
    fresh.id = "y"  # not a field the model sees
    fresh.response_metadata = {"latency": 1}
    assert message_edits.epoch() == before
    fresh.content = "changed"
    assert message_edits.epoch() != before


def test_tool_heads_kept_by_identity_see_another_response_format() -> None:
    tools = _tools(0)
    msgs = [HumanMessage("hi")]
    fmt = {"type": "json_schema", "schema": {"type": "object"}}
    for rf in (None, fmt, None, {**fmt, "strict": True}, fmt):
        for choice in (None, "auto", None):
            assert request_hash(msgs, tools, choice, rf) == reference_hash(msgs, tools, choice, rf)


def test_a_recorded_run_holds_the_hashes_of_the_full_computation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seed 000's run (middleware rebuilding the system prompt, retries, tool rounds): every
    ``model.request`` carries the same hash and the same message JSON with the caches as with
    every request hashed from nothing."""
    from resources.scenarios.retry_todos import INPUT, build_agent

    def requests() -> list[tuple[Any, ...]]:
        agent = build_agent(initial_delay=0.0)
        seen: list[Any] = []
        agent.subscribe(seen.append)
        agent.invoke({"messages": [HumanMessage(INPUT)]}, {"configurable": {"thread_id": "t"}})
        return [
            (e.request_hash, _UUID.sub("<id>", json.dumps(e.messages)), e.messages_reused)
            for e in seen
            if e.kind == "model.request"
        ]

    kept = requests()
    real = hashing.request_hash

    def from_nothing(*args: Any) -> str:
        hashing._prefixes.clear()
        hashing._digests.clear()
        hashing._heads.clear()
        hashing._heads_by_id.clear()
        return real(*args)

    monkeypatch.setattr(hashing, "request_hash", from_nothing)
    assert len(kept) >= 4
    assert requests() == kept
