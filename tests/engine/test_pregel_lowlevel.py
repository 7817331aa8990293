"""The low-level Pregel API: NodeBuilder nodes over explicit channels."""

from __future__ import annotations

import asyncio
import operator
from typing import Any

import pytest

from engine.checkpoint import InMemorySaver
from engine.graph import (
    BinaryOperatorAggregate,
    GraphRecursionError,
    InvalidUpdateError,
    LastValue,
    NodeBuilder,
    Pregel,
    Topic,
)


def double(x: int) -> int:
    return x * 2


def relay() -> Pregel:
    first = NodeBuilder().subscribe_only("seed").do(double).write_to("mid")
    second = NodeBuilder().subscribe_only("mid").do(double).write_to("result")
    return Pregel(
        nodes={"first": first, "second": second},
        channels={"seed": LastValue(int), "mid": LastValue(int), "result": LastValue(int)},
        input_channels="seed",
        output_channels="result",
    )


def test_single_and_dict_io() -> None:
    app = relay()
    assert app.invoke(3) == 12
    assert app.invoke(3, output_keys=["result", "mid"]) == {"result": 12, "mid": 6}
    assert app.batch([1, 2]) == [4, 8]
    with pytest.raises(GraphRecursionError):
        app.invoke(3, {"recursion_limit": 1})


def test_streams_values_of_all_channels_and_updates_per_node() -> None:
    app = relay()
    assert list(app.stream(1)) == [  # no chunk for the input itself, as LangGraph's
        {"seed": 1, "mid": 2},
        {"seed": 1, "mid": 2, "result": 4},
    ]
    assert list(app.stream(1, stream_mode="updates")) == [
        {"first": {"mid": 2}},
        {"second": {"result": 4}},
    ]


def test_io_schemas() -> None:
    app = relay()
    assert app.input_schema.model_json_schema() == {"title": "LangGraphInput", "type": "integer"}
    many = Pregel(
        nodes={"n": NodeBuilder().subscribe_only("a").write_to("b")},
        channels={"a": LastValue(str), "b": LastValue(str)},
        input_channels=["a"],
        output_channels=["b"],
    )
    assert many.get_output_jsonschema()["properties"] == {
        "b": {"title": "B", "type": "string", "default": None}
    }
    assert many.invoke({"a": "x"}) == {"b": "x"}


def test_fan_in_topic_and_conflicting_last_value() -> None:
    a = NodeBuilder().subscribe_only("seed").do(double).write_to("bag")
    b = NodeBuilder().subscribe_only("seed").do(lambda x: x + 1).write_to("bag")
    total = NodeBuilder().subscribe_only("bag").do(sum).write_to("out")
    app = Pregel(
        nodes={"a": a, "b": b, "total": total},
        channels={"seed": LastValue(int), "bag": Topic(int), "out": LastValue(int)},
        input_channels="seed",
        output_channels="out",
    )
    assert app.invoke(5) == 16
    clash = Pregel(
        nodes={"a": a, "b": b},
        channels={"seed": LastValue(int), "bag": LastValue(int)},
        input_channels="seed",
        output_channels="bag",
    )
    with pytest.raises(InvalidUpdateError):
        clash.invoke(5)


def test_subscribe_read_write_kwargs_and_checkpoints() -> None:
    node = (
        NodeBuilder()
        .subscribe_to("inp")
        .read_from("acc")
        .do(lambda d: d["inp"] + d["acc"])
        .write_to("out", "acc", doubled=double, fixed=7)
    )
    app = Pregel(
        nodes={"n": node},
        channels={
            "inp": LastValue(int),
            "acc": BinaryOperatorAggregate(int, operator.add),
            "out": LastValue(int),
            "doubled": LastValue(int),
            "fixed": LastValue(int),
        },
        input_channels="inp",
        output_channels=["out", "doubled", "fixed"],
        checkpointer=InMemorySaver(),
    )
    cfg: dict[str, Any] = {"configurable": {"thread_id": "p"}}
    assert app.invoke(2, cfg) == {"out": 2, "doubled": 4, "fixed": 7}
    assert app.invoke(3, cfg)["out"] == 5
    assert app.get_state(cfg).values["acc"] == 7


def test_async_steps_and_validation() -> None:
    async def slow_inc(x: int) -> int:
        await asyncio.sleep(0)
        return x + 1

    app = Pregel(
        nodes={"n": NodeBuilder().subscribe_only("a").do(slow_inc).write_to("b")},
        channels={"a": LastValue(int), "b": LastValue(int)},
        input_channels="a",
        output_channels="b",
    )
    assert asyncio.run(app.ainvoke(1)) == 2
    with pytest.raises(TypeError):
        Pregel(
            nodes={"n": NodeBuilder().subscribe_only("missing").write_to("b")},
            channels={"b": LastValue(int)},
            input_channels="b",
            output_channels="b",
        )
