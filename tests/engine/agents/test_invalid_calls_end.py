"""A reply made only of unparseable tool calls ends the run; the next turn repairs history."""

from __future__ import annotations

from engine import create_agent
from engine.agents.invalid_calls import answer_invalid_calls, needs_answers
from engine.checkpoint import InMemorySaver
from engine.message_log import MessageList
from engine.messages import AIMessage, HumanMessage, InvalidToolCall, ToolMessage
from engine.models import ScriptedChatModel

from .helpers import ask, call, cfg, echo


def garbled(call_id: str | None = "g1") -> AIMessage:
    return AIMessage(
        content="",
        invalid_tool_calls=[
            InvalidToolCall(
                name="echo", args='{"text": ', id=call_id, error="cut", type="invalid_tool_call"
            )
        ],
    )


def test_only_invalid_calls_end_the_run_after_one_model_call():
    model = ScriptedChatModel([garbled(), garbled(), garbled()])
    out = create_agent(model, [echo]).invoke(ask())
    assert len(model.calls) == 1
    assert [m.type for m in out["messages"]] == ["human", "ai"]


def test_next_turn_sees_an_error_answer_placed_after_the_garbled_reply():
    model = ScriptedChatModel([garbled("bad7"), "sorry, retrying"])
    agent = create_agent(model, [echo], checkpointer=InMemorySaver())
    agent.invoke(ask(), cfg())
    out = agent.invoke({"messages": [HumanMessage("again")]}, cfg())
    seen = model.calls[1].messages
    assert [m.type for m in seen] == ["human", "ai", "tool", "human"]
    answer = seen[2]
    assert isinstance(answer, ToolMessage)
    assert (answer.tool_call_id, answer.name, answer.status) == ("bad7", "echo", "error")
    assert "malformed or truncated" in answer.text
    # the stored history is repaired too, in place
    assert [m.type for m in out["messages"]] == ["human", "ai", "tool", "human", "ai"]


def test_valid_calls_beside_invalid_ones_still_run():
    reply = garbled("x1")
    reply.tool_calls = [call("echo", "ok1", text="fine")]
    model = ScriptedChatModel([reply, "done"])
    out = create_agent(model, [echo]).invoke(ask())
    answers = {m.tool_call_id: m.status for m in out["messages"] if isinstance(m, ToolMessage)}
    assert answers == {"ok1": "success", "x1": "error"}
    assert out["messages"][-1].text == "done"


def test_repair_skips_answered_calls_and_calls_without_id():
    answered = ToolMessage(content="had it", tool_call_id="a1", status="error")
    history = [HumanMessage("q"), garbled("a1"), answered, garbled(None)]
    repaired, added = answer_invalid_calls(history)
    assert repaired == history
    assert added == []


def test_recorded_history_with_a_garbled_reply_is_answered_once():
    model = ScriptedChatModel(["fine"])
    out = create_agent(model, [echo]).invoke({"messages": [HumanMessage("q"), garbled("h1")]})
    ids = [m.tool_call_id for m in out["messages"] if isinstance(m, ToolMessage)]
    assert ids == ["h1"]


class _Watched(AIMessage):
    """An AIMessage that counts how often its invalid calls are looked at."""

    def __getattribute__(self, name: str) -> object:
        if name == "invalid_tool_calls":
            READS[0] += 1
        return super().__getattribute__(name)


READS = [0]


def test_a_growing_history_is_scanned_once_not_per_model_call():
    log = MessageList([HumanMessage("q")])
    READS[0] = 0
    for i in range(200):
        log = log.extended([_Watched(content=f"a{i}"), HumanMessage(f"q{i}")])
        repaired, added = answer_invalid_calls(log)
        assert repaired is log and added == []
    assert READS[0] <= 2 * 200, "every model call rescanned the whole history"


def test_the_incremental_scan_sees_new_invalid_calls_and_their_answers():
    log = MessageList([HumanMessage("q"), AIMessage("a")])
    assert not needs_answers(log)
    log = log.extended([garbled("late")])
    assert needs_answers(log)
    older = log[:2]
    assert not needs_answers(MessageList(older))
    shorter = log.__class__._view(log.buffer, 2)  # an older view of the same log
    assert not needs_answers(shorter)
    repaired, added = answer_invalid_calls(log)
    assert [m.type for m in repaired] == ["human", "ai", "ai", "tool"] and len(added) == 1
    log = log.extended([ToolMessage(content="late answer", tool_call_id="late")])
    assert not needs_answers(log)
    assert answer_invalid_calls(log) == (log, [])
