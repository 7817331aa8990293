"""``node.started``'s input summary is written only as far as it is shown, and is exactly the
text rendering the whole input and cutting it gave."""

from __future__ import annotations

import dataclasses
import enum
from collections import OrderedDict
from typing import Any

import pytest
from pydantic import BaseModel

pytest.importorskip("langchain_core")
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from engine.attach.summary import summary
from engine.serde import to_jsonable


def whole(value: Any, limit: int = 300) -> str:
    return str(to_jsonable(value, max_str=200, max_items=5))[:limit]


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Point:
    x: int
    label: str


class Shape(BaseModel):
    points: list[int]
    name: str


def many_calls(n: int) -> AIMessage:
    calls = [
        {"name": "echo", "args": {"text": str(i)}, "id": f"c{i}", "type": "tool_call"}
        for i in range(n)
    ]
    return AIMessage("", tool_calls=calls)


def history(n: int) -> list[Any]:
    out: list[Any] = [HumanMessage("go " * 100)]
    for i in range(n):
        call = {"name": "echo", "args": {"text": str(i)}, "id": f"c{i}", "type": "tool_call"}
        out += [AIMessage("", tool_calls=[call]), ToolMessage(str(i), tool_call_id=f"c{i}")]
    return out


VALUES: list[Any] = [
    {"messages": history(30)},
    {"messages": history(1), "n": 3, "ok": True, "ratio": 0.5, "none": None},
    {"messages": history(30), "todos": [{"content": "x" * 500, "status": "pending"}]},
    {1: "int key", (2, 3): "tuple key", "nested": {"deep": [1, 2, (3, 4)]}},
    [1, 2, 3, 4, 5, 6, 7],
    (1, "two", 3.0),
    [],
    {},
    {"a": []},
    "a plain string input",
    "x" * 1000,
    42,
    None,
    OrderedDict(a=1, b=[1, 2]),
    {"point": Point(1, "p"), "color": Color.RED, "set": {1}},
    {"tool_call": {"name": "echo", "args": {"text": "hi"}}, "state": {"messages": history(8)}},
    [history(2), history(9)],
    # a model's dump is walked without leaving items out (as ``to_jsonable`` walks it), and
    # its long strings shortened
    {"messages": [many_calls(8)], "n": 1},
    [many_calls(3), AIMessage("y" * 900, additional_kwargs={"k": ["z" * 300, 1.5, None]})],
    {"model": Shape(points=list(range(12)), name="n" * 250)},
    {"model": Shape(points=[1], name="short")},
]


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("limit", [1, 40, 300, 100_000])
def test_the_summary_is_the_whole_rendering_cut(value: Any, limit: int) -> None:
    assert summary(value, limit, max_str=200, max_items=5) == whole(value, limit)


def test_a_long_history_is_dumped_only_as_far_as_the_summary_goes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dumped: list[Any] = []
    real = HumanMessage.model_dump

    def counting(self: Any, *args: Any, **kw: Any) -> Any:
        dumped.append(self)
        return real(self, *args, **kw)

    for cls in (HumanMessage, AIMessage, ToolMessage):
        monkeypatch.setattr(cls, "model_dump", counting)
    summary({"messages": history(30)}, 300, max_str=200, max_items=5)
    assert len(dumped) <= 2  # the whole rendering dumps the last 5
