"""A message's display form is rendered once per message object (``engine.attach.rendering``)
and is exactly what ``to_jsonable`` gives, for every ``max_str`` / ``max_items`` the events use;
a message whose field is set anew is rendered again."""

from __future__ import annotations

import dataclasses
import enum
from collections import OrderedDict
from typing import Any

import pytest

pytest.importorskip("langchain_core")
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from engine.attach import rendering
from engine.attach.converted import ours
from engine.attach.rendering import render, render_repr
from engine.serde import to_jsonable


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Point:
    x: int
    label: str


def history(n: int) -> list[Any]:
    out: list[Any] = [SystemMessage("be brief"), HumanMessage("go " * 100)]
    for i in range(n):
        call = {
            "name": "echo",
            "args": {"text": "t" * (i * 400)},
            "id": f"c{i}",
            "type": "tool_call",
        }
        out += [
            AIMessage(f"step {i}", tool_calls=[call], response_metadata={"n": i}),
            ToolMessage("r" * (i * 900), tool_call_id=f"c{i}", artifact={1: "int key"}),
        ]
    return out


VALUES: list[Any] = [
    history(6),
    {"messages": history(6), "n": 3, "ok": True, "ratio": 0.5, "none": None},
    [ours(m) for m in history(6)],
    {"messages": [ours(m) for m in history(3)], "todos": [{"content": "x" * 5000}]},
    {1: "int key", (2, 3): "tuple key", "nested": {"deep": [1, 2, (3, 4)]}},
    (1, "two", 3.0, HumanMessage("in a tuple")),
    [],
    {},
    "x" * 5000,
    42,
    None,
    OrderedDict(a=1, b=[HumanMessage("in an ordered dict")]),
    {"point": Point(1, "p"), "color": Color.RED, "set": {1}},
    [history(2), history(9)],
    AIMessage("x" * 3000, additional_kwargs={"k": "y" * 2500}),
    HumanMessage('é\n"' * 190),  # escapes make its JSON text longer than its strings
    HumanMessage("é" * 199),
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
@pytest.mark.parametrize(
    ("max_str", "max_items"), [(None, None), (200, 5), (2000, 20), (4000, None), (2000, None)]
)
def test_render_is_to_jsonable(value: Any, max_str: int | None, max_items: int | None) -> None:
    expected = to_jsonable(value, max_str=max_str, max_items=max_items)
    for _ in range(2):  # rendered, then from the kept dump
        assert render(value, max_str=max_str, max_items=max_items) == expected
    if max_str is not None and max_items is not None:
        assert render_repr(value, max_str=max_str, max_items=max_items) == repr(expected)


def test_a_message_is_dumped_once_per_object(monkeypatch: pytest.MonkeyPatch) -> None:
    message = AIMessage("hello", tool_calls=[{"name": "echo", "args": {}, "id": "c1"}])
    first = render(message)
    dumps: list[Any] = []
    real = rendering.to_jsonable

    def counting(value: Any, **kw: Any) -> Any:
        dumps.append(value)
        return real(value, **kw)

    monkeypatch.setattr(rendering, "to_jsonable", counting)
    assert render(message) is first
    assert render({"messages": [message]}, max_str=2000, max_items=20) == {"messages": [first]}
    shown = render_repr(message, max_str=2000, max_items=5)
    assert shown == repr(to_jsonable(message, max_str=2000))
    assert dumps == []  # shorter than 2,000 characters: the dump is its own shortened form


def test_a_field_set_anew_renders_again() -> None:
    message = AIMessage("before", id="m1")
    assert render(message)["content"] == "before"
    message.content = "after"  # a reviewer's edit (HumanInTheLoopMiddleware sets it anew)
    assert render(message)["content"] == "after"
    message.id = "m2"  # add_messages gives an id in place
    assert render(message, max_str=10)["id"] == "m2"
    assert render(message) == to_jsonable(message)


def test_long_strings_are_shortened_per_limit() -> None:
    message = ToolMessage("z" * 5000, tool_call_id="c1")
    for limit in (4000, 2000, 200, 4000):
        assert render(message, max_str=limit) == to_jsonable(message, max_str=limit)
    assert render(message) == to_jsonable(message)
