"""``to_jsonable``: the display rendering events carry (fast paths give what the general one does)."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from engine.message_log import MessageList
from engine.messages import AIMessage, HumanMessage
from engine.serde import to_jsonable


class Color(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


@dataclasses.dataclass
class Point:
    x: int
    tags: tuple[str, ...]


class Config(dict):  # type: ignore[type-arg]
    """A dict subclass takes the general path."""


def test_plain_data_is_copied_as_plain_json() -> None:
    value: dict[Any, Any] = {"a": [1, 2.5, None, True, "x"], 3: ("t", {"n": 1}), None: {}}
    out = to_jsonable(value)
    assert out == {"a": [1, 2.5, None, True, "x"], "3": ["t", {"n": 1}], "None": {}}
    assert out is not value and out["a"] is not value["a"]
    assert type(out["3"]) is list


def test_odd_values_inside_plain_containers() -> None:
    value = {"c": Color.RED, "l": Level.HIGH, "p": Point(1, ("a",)), "s": {2}, "d": Config(k=1)}
    assert to_jsonable(value) == {
        "c": "red",
        "l": 3,
        "p": {"x": 1, "tags": ["a"]},
        "s": [2],
        "d": {"k": 1},
    }
    assert type(to_jsonable([Level.HIGH])[0]) is Level  # an int subclass is kept as it was


def test_limits_apply_inside_messages_and_containers() -> None:
    msg = AIMessage("word " * 10, id="m1")
    full = to_jsonable(msg)
    assert full == msg.model_dump(mode="json")
    short = to_jsonable({"m": [msg]}, max_str=8)
    assert short["m"][0]["content"] == "word wor… (+42 chars)"
    assert short["m"][0]["id"] == "m1"
    assert to_jsonable(list(range(30)), max_items=3) == ["… 27 earlier items", 27, 28, 29]
    assert to_jsonable(tuple(range(3)), max_items=3) == [0, 1, 2]
    log = MessageList([HumanMessage("a", id="h"), AIMessage("b", id="a")])
    assert [m["id"] for m in to_jsonable({"messages": log})["messages"]] == ["h", "a"]
    assert to_jsonable({"long": "y" * 12}, max_str=4) == {"long": "yyyy… (+8 chars)"}


def test_a_model_with_a_limit_renders_as_the_general_walk_at_and_around_the_limit() -> None:
    """Within ``max_str`` a model is its JSON dump as is; past it, only the long strings are
    cut (the dump's size decides, every string is checked on the way)."""
    msg = AIMessage(
        "é" * 40,
        id="m1",
        tool_calls=[{"name": "t", "args": {"x": "y" * 30, "n": 1.5}, "id": "c"}],
    )
    dump = msg.model_dump(mode="json")
    assert to_jsonable(msg, max_str=100_000) == dump
    for limit in (10, 29, 30, 39, 40, 41):
        out = to_jsonable(msg, max_str=limit)
        assert out == to_jsonable(dump, max_str=limit)
        assert (out["content"] == "é" * 40) is (limit >= 40)
        assert (out["tool_calls"][0]["args"]["x"] == "y" * 30) is (limit >= 30)
