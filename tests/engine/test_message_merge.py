"""Streamed pieces add up as langchain_core adds them: ``merge_content`` / ``merge_dicts``
against langchain_core's on generated cases (same result, or the same error)."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from engine.message_merge import merge_content, merge_dicts

pytest.importorskip("langchain_core")


def _value(rng: random.Random, depth: int) -> Any:
    choices: list[Any] = [None, "a", "b", 1, 2, 1.5]
    if depth < 2:
        choices += [{"k": _value(rng, depth + 1)}, [_value(rng, depth + 1)]]
    return rng.choice(choices)


def _dict(rng: random.Random) -> dict[str, Any]:
    keys = ["id", "index", "type", "text", "model_provider", "created", "foo"]
    return {k: _value(rng, 0) for k in rng.sample(keys, rng.randrange(4))}


def _content(rng: random.Random) -> Any:
    if rng.random() < 0.3:
        return rng.choice(["", "x", "yz"])

    def block() -> Any:
        b: dict[str, Any] = {"type": rng.choice(["text", "thinking"]), "text": rng.choice("ab")}
        if rng.random() < 0.7:
            b["index"] = rng.randrange(3)
        return rng.choice([b, b, "s", ""])

    return [block() for _ in range(rng.randrange(3))]


def _outcome(fn: Any, *args: Any) -> Any:
    try:
        return ("ok", fn(*copy.deepcopy(args)))
    except Exception as exc:
        return ("error", type(exc).__name__, str(exc))


def test_merging_matches_langchain_core() -> None:
    from langchain_core.messages.base import merge_content as theirs_content
    from langchain_core.utils._merge import merge_dicts as theirs_dicts

    rng = random.Random(7)
    for _ in range(3000):
        a, b = _dict(rng), _dict(rng)
        assert _outcome(merge_dicts, a, b) == _outcome(theirs_dicts, a, b), (a, b)
        c, d = _content(rng), _content(rng)
        assert _outcome(merge_content, c, d) == _outcome(theirs_content, c, d), (c, d)


def test_indexed_blocks_of_a_stream_add_up() -> None:
    from engine.messages import AIMessageChunk

    total = (
        AIMessageChunk(content=[{"type": "thinking", "thinking": "Let me ", "index": 0}])
        + AIMessageChunk(content=[{"type": "thinking", "thinking": "think.", "index": 0}])
        + AIMessageChunk(content=[{"type": "text", "text": "Hi", "index": 1}])
        + AIMessageChunk(content="", additional_kwargs={"reasoning_content": "r1"})
        + AIMessageChunk(content="", additional_kwargs={"reasoning_content": "r2"})
    )
    assert total.content == [
        {"type": "thinking", "thinking": "Let me think.", "index": 0},
        {"type": "text", "text": "Hi", "index": 1},
    ]
    assert total.additional_kwargs == {"reasoning_content": "r1r2"}
