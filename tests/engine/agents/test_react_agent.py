"""``create_react_agent``: LangGraph's prebuilt ReAct agent, as programs use it."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from pydantic import BaseModel

from engine.agents import create_react_agent
from engine.checkpoint import InMemorySaver
from engine.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage, add_messages
from engine.models import ScriptedChatModel
from engine.tools import tool

from .helpers import ai, ask, call, cfg, kinds


def multiply(a: int, b: int) -> int:
    """Multiply a and b."""
    return a * b


@tool(return_direct=True)
def final(text: str) -> str:
    """Answer the user directly."""
    return text


def test_a_plain_function_tool_runs_and_the_prompt_leads_the_conversation() -> None:
    model = ScriptedChatModel([ai(call("multiply", "c1", a=3, b=4)), "It is 12."])
    agent = create_react_agent(model, [multiply], prompt="You are a calculator.")
    updates = list(agent.stream(ask("3*4?"), stream_mode="updates"))
    assert [next(iter(u)) for u in updates] == ["agent", "tools", "agent"]
    assert kinds(updates[-1]["agent"]["messages"]) == ["AI(It is 12.)"]
    first = model.calls[0]
    assert first.messages[0] == SystemMessage(content="You are a calculator.")
    assert [t["name"] for t in first.tools] == ["multiply"]
    assert set(agent.get_graph().nodes) == {"__start__", "agent", "tools", "__end__"}


def test_each_tool_call_is_its_own_task_in_v2_and_one_task_in_v1() -> None:
    two = ai(call("multiply", "c1", a=1, b=2), call("multiply", "c2", a=3, b=4))
    for version, tool_updates in (("v2", 2), ("v1", 1)):
        model = ScriptedChatModel([two, "done"])
        agent = create_react_agent(model, [multiply], version=version)  # type: ignore[arg-type]
        updates = list(agent.stream(ask(), stream_mode="updates"))
        assert sum("tools" in u for u in updates) == tool_updates, version


def test_interrupt_before_tools_and_resume() -> None:
    model = ScriptedChatModel([ai(call("multiply", "c1", a=2, b=5)), "10"])
    agent = create_react_agent(
        model, [multiply], checkpointer=InMemorySaver(), interrupt_before=["tools"]
    )
    agent.invoke(ask(), cfg())
    assert agent.get_state(cfg()).next == ("tools",)
    out = agent.invoke(None, cfg())
    assert kinds(out["messages"]) == ["Human", "AI[multiply]", "Tool(10)", "AI(10)"]


def test_return_direct_ends_after_the_tool() -> None:
    model = ScriptedChatModel([ai(call("final", "c1", text="bye"))])
    out = create_react_agent(model, [final]).invoke(ask())
    assert kinds(out["messages"]) == ["Human", "AI[final]", "Tool(bye)"]


def test_pre_model_hook_input_reaches_the_model_but_not_the_state() -> None:
    def trim(state: dict[str, Any]) -> dict[str, Any]:
        return {"llm_input_messages": state["messages"][-1:]}

    model = ScriptedChatModel(["short memory"])
    agent = create_react_agent(model, [], pre_model_hook=trim)
    out = agent.invoke({"messages": [HumanMessage("one"), AIMessage("two"), HumanMessage("3")]})
    assert [m.text for m in model.calls[0].messages] == ["3"]
    assert set(out) == {"messages"}
    assert kinds(out["messages"]) == ["Human", "AI(two)", "Human", "AI(short memory)"]


def test_a_callable_prompt_a_custom_state_and_a_model_chosen_each_turn() -> None:
    class State(TypedDict):
        messages: Annotated[list[AnyMessage], add_messages]
        user: str

    def prompt(state: State) -> list[Any]:
        return [SystemMessage(content=f"The user is {state['user']}."), *state["messages"]]

    model = ScriptedChatModel(["Hello Ada."])
    agent = create_react_agent(
        lambda state, runtime: model, [multiply], prompt=prompt, state_schema=State
    )
    out = agent.invoke({"messages": [("user", "hi")], "user": "Ada"})
    assert out["user"] == "Ada" and out["messages"][-1].text == "Hello Ada."
    assert model.calls[0].messages[0].text == "The user is Ada."


def test_response_format_adds_a_structured_answer_step() -> None:
    class Answer(BaseModel):
        value: int

    model = ScriptedChatModel(["12", ai(call("Answer", "s1", value=12))])
    agent = create_react_agent(model, [multiply], response_format=("Be exact.", Answer))
    out = agent.invoke(ask())
    assert out["structured_response"] == Answer(value=12)
    assert model.calls[1].messages[0].text == "Be exact."
    assert "generate_structured_response" in agent.get_graph().nodes


def test_out_of_steps_answers_instead_of_calling_tools() -> None:
    model = ScriptedChatModel([ai(call("multiply", "c", a=1, b=1))] * 3)
    out = create_react_agent(model, [multiply]).invoke(ask(), {"recursion_limit": 4})
    assert out["messages"][-1].text == "Sorry, need more steps to process this request."
