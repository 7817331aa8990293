"""Spec section 7 and scenarios 19, 20, 22: ToolNode errors, parallelism, order, interrupts."""

from __future__ import annotations

import asyncio
import re
import threading
from typing import Annotated, Any

import pytest

from engine import Command, create_agent, interrupt
from engine.agents import ToolNode
from engine.checkpoint import InMemorySaver
from engine.events import EventBase, NodeFinished
from engine.messages import (
    REMOVE_ALL_MESSAGES,
    AIMessage,
    HumanMessage,
    RemoveMessage,
    ToolMessage,
)
from engine.models import ScriptedChatModel
from engine.tools import InjectedToolCallId, tool

from .helpers import ai, ask, call, cfg, echo, kinds


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def fail(reason: str) -> str:
    """Always fails."""
    raise RuntimeError(reason)


def state_with(*calls: Any) -> dict[str, Any]:
    return {"messages": [HumanMessage(content="go"), ai(*calls)]}


# 20 --------------------------------------------------------------------------------------


async def test_20_bad_args_and_unknown_tool_texts():
    node = ToolNode([add, echo])
    out = await node.ainvoke(state_with(call("add", "c1", a=1, b="x"), call("search", "c2", q="y")))
    bad, unknown = out["messages"]
    assert bad.content == (
        "Error invoking tool 'add' with kwargs {'a': 1, 'b': 'x'} with error:\n"
        " b: Input should be a valid integer, unable to parse string as an integer\n"
        " Please fix the error and try again."
    )
    assert (bad.status, bad.name, bad.tool_call_id) == ("error", "add", "c1")
    assert unknown.content == "Error: search is not a valid tool, try one of [add, echo]."
    assert (unknown.status, unknown.tool_call_id) == ("error", "c2")


async def test_20_missing_argument_text():
    out = await ToolNode([add]).ainvoke(state_with(call("add", "c1", a=1)))
    assert out["messages"][0].content == (
        "Error invoking tool 'add' with kwargs {'a': 1} with error:\n b: Field required\n Please fix the error and try again."
    )


async def test_default_handler_lets_execution_errors_propagate():
    with pytest.raises(RuntimeError, match="disk full"):
        await ToolNode([fail]).ainvoke(state_with(call("fail", "c1", reason="disk full")))


@pytest.mark.parametrize(
    ("handler", "expected"),
    [
        (True, "Error: RuntimeError('boom')\n Please fix your mistakes."),
        ("Something broke.", "Something broke."),
        (RuntimeError, "Error: RuntimeError('boom')\n Please fix your mistakes."),
        ((KeyError, RuntimeError), "Error: RuntimeError('boom')\n Please fix your mistakes."),
        (lambda e: f"handled {e}", "handled boom"),
    ],
)
async def test_handle_tool_errors_variants(handler: Any, expected: str):
    out = await ToolNode([fail], handle_tool_errors=handler).ainvoke(
        state_with(call("fail", "c1", reason="boom"))
    )
    assert out["messages"][0].content == expected
    assert out["messages"][0].status == "error"


async def test_handle_tool_errors_type_mismatch_and_false_propagate():
    for handler in (KeyError, False):
        with pytest.raises(RuntimeError):
            await ToolNode([fail], handle_tool_errors=handler).ainvoke(
                state_with(call("fail", "c1", reason="x"))
            )


async def test_callable_handler_handles_only_its_annotated_types():
    def only_value_errors(e: ValueError) -> str:
        return "value problem"

    node = ToolNode([fail], handle_tool_errors=only_value_errors)
    with pytest.raises(RuntimeError):
        await node.ainvoke(state_with(call("fail", "c1", reason="x")))


async def test_plain_outputs_become_json_tool_messages():
    @tool
    def info(city: str) -> dict[str, Any]:
        """Facts."""
        return {"city": city, "temp": 21}

    out = await ToolNode([info]).ainvoke(
        [HumanMessage(content="?"), ai(call("info", "c1", city="Zürich"))]
    )
    assert out == [
        ToolMessage(
            content='{"city": "Zürich", "temp": 21}', name="info", tool_call_id="c1", id=out[0].id
        )
    ]


async def test_sync_tools_run_in_parallel_and_results_keep_call_order():
    barrier = threading.Barrier(2, timeout=10)  # times out unless both calls run at once
    finished: list[str] = []

    @tool
    def slow_first(x: str) -> str:
        """Waits for its sibling, then finishes last."""
        barrier.wait()
        second_done.wait(10)
        finished.append("first")
        return "first"

    @tool
    def fast_second(x: str) -> str:
        """Waits for its sibling, finishes first."""
        barrier.wait()
        finished.append("second")
        second_done.set()
        return "second"

    second_done = threading.Event()
    out = await ToolNode([slow_first, fast_second]).ainvoke(
        state_with(call("slow_first", "c1", x="a"), call("fast_second", "c2", x="b"))
    )
    assert finished == ["second", "first"]
    assert [m.content for m in out["messages"]] == ["first", "second"]


async def test_agent_sends_one_task_per_call_and_appends_results_in_call_order():
    gate = asyncio.Event()

    @tool
    async def waits(x: str) -> str:
        """Finishes after its sibling."""
        await gate.wait()
        return "waited"

    @tool
    async def opens(x: str) -> str:
        """Finishes first."""
        gate.set()
        return "opened"

    model = ScriptedChatModel([ai(call("waits", "c1", x="1"), call("opens", "c2", x="2")), "done"])
    out = await create_agent(model, [waits, opens]).ainvoke(ask())
    assert kinds(out["messages"]) == [
        "Human",
        "AI[waits,opens]",
        "Tool(waited)",
        "Tool(opened)",
        "AI(done)",
    ]


# 19 --------------------------------------------------------------------------------------


def test_19_parallel_tool_failure_propagates_and_leaves_tools_pending():
    attempts = {"bad": 0, "good": 0}
    good_done = asyncio.Event()

    @tool
    async def good(x: str) -> str:
        """Works."""
        attempts["good"] += 1
        return "fine"

    @tool
    async def bad(x: str) -> str:
        """Fails the first time, after its sibling has finished."""
        attempts["bad"] += 1
        if attempts["bad"] == 1:
            await good_done.wait()
            raise RuntimeError("disk full")
        return "recovered"

    events: list[EventBase] = []

    def on_event(e: EventBase) -> None:
        if isinstance(e, NodeFinished) and e.node == "tools" and e.status == "ok":
            good_done.set()

    model = ScriptedChatModel([ai(call("good", "c1", x="1"), call("bad", "c2", x="2")), "done"])
    agent = create_agent(model, [good, bad], checkpointer=InMemorySaver())
    agent.subscribe(on_event)
    agent.subscribe(events.append)
    with pytest.raises(RuntimeError, match="disk full"):
        agent.invoke(ask(), cfg())
    snap = agent.get_state(cfg())
    assert snap.next == ("tools",)
    assert kinds(snap.values["messages"]) == ["Human", "AI[good,bad]", "Tool(fine)"]
    out = agent.invoke(None, cfg())
    assert attempts == {"good": 1, "bad": 2}
    assert kinds(out["messages"]) == [
        "Human",
        "AI[good,bad]",
        "Tool(fine)",
        "Tool(recovered)",
        "AI(done)",
    ]


# 22 --------------------------------------------------------------------------------------


def test_22_interrupt_in_one_of_two_parallel_tool_calls():
    runs = {"ask_human": 0, "lookup": 0}

    @tool
    def ask_human(question: str) -> str:
        """Ask the user."""
        runs["ask_human"] += 1
        return f"user said {interrupt(question)}"

    @tool
    def lookup(key: str) -> str:
        """Look something up."""
        runs["lookup"] += 1
        return f"value of {key}"

    model = ScriptedChatModel(
        [ai(call("ask_human", "c1", question="color?"), call("lookup", "c2", key="k")), "done"]
    )
    agent = create_agent(model, [ask_human, lookup], checkpointer=InMemorySaver())
    first = agent.invoke(ask(), cfg())
    assert [i.value for i in first["__interrupt__"]] == ["color?"]
    assert agent.get_state(cfg()).next == ("tools",)
    out = agent.invoke(Command(resume="blue"), cfg())
    assert runs == {"ask_human": 2, "lookup": 1}
    assert kinds(out["messages"]) == [
        "Human",
        "AI[ask_human,lookup]",
        "Tool(user said blue)",
        "Tool(value of k)",
        "AI(done)",
    ]


# Command-returning tools ------------------------------------------------------------------


def test_tool_returning_command_updates_state():
    @tool
    def rename(name: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
        """Set the user's name."""
        return Command(
            update={
                "messages": [ToolMessage(content=f"renamed to {name}", tool_call_id=tool_call_id)]
            }
        )

    model = ScriptedChatModel([ai(call("rename", "c1", name="Ada")), "done"])
    out = create_agent(model, [rename]).invoke(ask())
    assert kinds(out["messages"]) == ["Human", "AI[rename]", "Tool(renamed to Ada)", "AI(done)"]


def test_tool_command_without_matching_tool_message_is_an_error():
    @tool
    def sloppy(x: int) -> Command:
        """Forgets its ToolMessage."""
        return Command(update={"messages": [AIMessage(content="oops")]})

    agent = create_agent(ScriptedChatModel([ai(call("sloppy", "c1", x=1))]), [sloppy])
    with pytest.raises(
        ValueError,
        match=re.escape(
            "Expected to have a matching ToolMessage in Command.update for tool 'sloppy'"
        ),
    ):
        agent.invoke(ask())


def test_a_tool_clearing_the_whole_history_needs_no_tool_message():
    """``RemoveMessage(id=REMOVE_ALL_MESSAGES)`` removes the call too: nothing to answer."""

    @tool
    def forget(x: int) -> Command:
        """Clear the conversation."""
        return Command(update={"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES)]})

    model = ScriptedChatModel([ai(call("forget", "c1", x=1)), "fresh start"])
    out = create_agent(model, [forget]).invoke(ask())
    assert kinds(out["messages"]) == ["AI(fresh start)"]


def test_clearing_history_and_adding_a_message_still_needs_the_tool_message():
    @tool
    def half(x: int) -> Command:
        """Clear, then say something that is not the answer."""
        return Command(
            update={"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), AIMessage(content="x")]}
        )

    agent = create_agent(ScriptedChatModel([ai(call("half", "c1", x=1))]), [half])
    with pytest.raises(ValueError, match="Expected to have a matching ToolMessage"):
        agent.invoke(ask())


def test_return_direct_batch_ends_after_tools():
    @tool(return_direct=True)
    def final_answer(text: str) -> str:
        """Answer the user directly."""
        return text

    model = ScriptedChatModel(
        [ai(call("final_answer", "c1", text="42"), call("final_answer", "c2", text="!"))]
    )
    out = create_agent(model, [final_answer]).invoke(ask())
    assert kinds(out["messages"]) == [
        "Human",
        "AI[final_answer,final_answer]",
        "Tool(42)",
        "Tool(!)",
    ]
    assert len(model.calls) == 1


def test_mixed_return_direct_batch_goes_back_to_the_model():
    @tool(return_direct=True)
    def final_answer(text: str) -> str:
        """Answer the user directly."""
        return text

    model = ScriptedChatModel(
        [ai(call("final_answer", "c1", text="42"), call("echo", "c2", text="x")), "more"]
    )
    out = create_agent(model, [final_answer, echo]).invoke(ask())
    assert kinds(out["messages"])[-1] == "AI(more)"
