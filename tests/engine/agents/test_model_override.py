"""A run-level model override: how a replay serves recorded responses through any agent."""

from __future__ import annotations

from engine.agents import create_agent
from engine.checkpoint import InMemorySaver
from engine.events import EventBase
from engine.messages import AIMessage, HumanMessage
from engine.models import ReplayChatModel, ScriptedChatModel
from engine.tools import tool


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


def _agent(model):
    return create_agent(model, [lookup], checkpointer=InMemorySaver())


def test_override_replaces_the_agents_model_for_one_run():
    own = ScriptedChatModel(["from my own model"])
    other = ScriptedChatModel(["from the override"])
    agent = _agent(own)
    out = agent.invoke(
        {"messages": [HumanMessage("hi")]},
        {"configurable": {"thread_id": "t", "model_override": other}},
    )
    assert out["messages"][-1].text == "from the override"
    assert len(own.calls) == 0 and len(other.calls) == 1
    out = agent.invoke({"messages": [HumanMessage("again")]}, {"configurable": {"thread_id": "t"}})
    assert out["messages"][-1].text == "from my own model"


def test_replaying_a_recorded_run_through_the_override():
    script = [
        AIMessage("", tool_calls=[{"name": "lookup", "args": {"key": "a"}, "id": "c1"}]),
        "a is 'value of a'",
    ]
    agent = _agent(ScriptedChatModel(script))
    events: list[EventBase] = []
    with agent.subscribe(events.append):
        first = agent.invoke(
            {"messages": [HumanMessage("what is a?")]}, {"configurable": {"thread_id": "r"}}
        )
    replay = ReplayChatModel.from_events(events)
    # a fresh thread, the same question: every response comes from the recording
    again = agent.invoke(
        {"messages": [HumanMessage("what is a?")]},
        {"configurable": {"thread_id": "r2", "model_override": replay}},
    )
    assert [m.text for m in again["messages"]][-1] == first["messages"][-1].text
    assert replay.divergence is None


def test_after_a_divergence_the_agents_own_model_takes_over():
    """A replay with no fallback of its own: the call that diverges, and every later one, go to
    the model the agent would have used (no ``ReplayDivergenceError``)."""
    script = [
        AIMessage("", tool_calls=[{"name": "lookup", "args": {"key": "a"}, "id": "c1"}]),
        "a is 'value of a'",
    ]
    recording_model = ScriptedChatModel(script)
    agent = _agent(recording_model)
    events: list[EventBase] = []
    with agent.subscribe(events.append):
        agent.invoke(
            {"messages": [HumanMessage("what is a?")]}, {"configurable": {"thread_id": "r"}}
        )
    replay = ReplayChatModel.from_events(events)
    own = ScriptedChatModel(["I answer differently now."])
    live_agent = _agent(own)
    seen: list[EventBase] = []
    with live_agent.subscribe(seen.append):
        out = live_agent.invoke(
            {"messages": [HumanMessage("what is b?")]},  # not what was recorded: diverges at once
            {"configurable": {"thread_id": "r3", "model_override": replay}},
        )
    assert out["messages"][-1].text == "I answer differently now."
    assert len(own.calls) == 1 and replay.divergence is not None and replay.served == 0
    diverged = [e for e in seen if getattr(e, "action", None) == "replay_diverged"]
    assert len(diverged) == 1 and diverged[0].detail["fallback"] == own.model_name
