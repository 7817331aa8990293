"""Spec section 4: node names, edges, tool collection, schema merge, limits, errors."""

from __future__ import annotations

import re
from typing import Annotated, Any, NotRequired

import pytest

from engine import END, START, AgentState, create_agent
from engine.checkpoint import InMemorySaver
from engine.messages import AIMessage
from engine.middleware import (
    AgentMiddleware,
    OmitFromInput,
    OmitFromOutput,
    PrivateStateAttr,
    after_agent,
    after_model,
    before_model,
    hook_config,
)
from engine.models import ScriptedChatModel
from engine.tools import tool

from .helpers import Tracer, ai, ask, call, cfg, echo


def edges(agent: Any) -> set[tuple[str, str, bool]]:
    return {(e.source, e.target, e.conditional) for e in agent.get_graph().edges}


def test_plain_agent_shape_and_node_kinds():
    agent = create_agent(ScriptedChatModel([]), [echo])
    g = agent.get_graph()
    assert {n: g.nodes[n].kind for n in g.nodes} == {
        START: "start",
        "model": "model",
        "tools": "tools",
        END: "end",
    }
    assert g.nodes["tools"].metadata == {"wrappers": [], "tools": ["echo"]}
    assert edges(agent) == {
        (START, "model", False),
        ("model", "tools", True),
        ("model", END, True),
        ("tools", "model", True),
    }


def test_no_tools_no_tools_node():
    agent = create_agent(ScriptedChatModel([]))
    assert "tools" not in agent.get_graph().nodes
    assert edges(agent) == {(START, "model", False), ("model", END, False)}


def test_hook_chains_entry_loop_entry_loop_exit_exit():
    log: list[str] = []
    agent = create_agent(
        ScriptedChatModel([]), [echo], middleware=[Tracer("A", log), Tracer("B", log)]
    )
    g = agent.get_graph()
    assert g.nodes["A.before_model"].kind == "hook"
    assert g.nodes["A.before_model"].metadata == {"middleware": "A", "hook": "before_model"}
    assert g.nodes["model"].metadata == {"wrappers": ["A", "B"]}
    assert g.nodes["tools"].metadata["wrappers"] == ["A", "B"]
    assert edges(agent) == {
        (START, "A.before_agent", False),
        ("A.before_agent", "B.before_agent", False),
        ("B.before_agent", "A.before_model", False),
        ("A.before_model", "B.before_model", False),
        ("B.before_model", "model", False),
        ("model", "B.after_model", False),
        ("B.after_model", "A.after_model", False),
        ("A.after_model", "tools", True),
        ("A.after_model", "B.after_agent", True),
        ("A.after_model", "A.before_model", True),
        ("tools", "A.before_model", True),
        ("B.after_agent", "A.after_agent", False),
        ("A.after_agent", END, False),
    }


def test_decorator_names_and_jump_edges():
    @before_model(can_jump_to=["end"])
    def gate(state: Any) -> None:
        return None

    @after_model(name="Checker", can_jump_to=["model", "tools"])
    def check(state: Any, runtime: Any) -> None:
        return None

    agent = create_agent(ScriptedChatModel([]), [echo], middleware=[gate, check])
    assert {"gate.before_model", "Checker.after_model"} <= set(agent.get_graph().nodes)
    assert ("gate.before_model", END, True) in edges(agent)
    assert ("gate.before_model", "model", True) in edges(agent)


def test_duplicate_middleware_names_are_rejected():
    log: list[str] = []
    with pytest.raises(
        AssertionError, match=re.escape("Please remove duplicate middleware instances.")
    ):
        create_agent(ScriptedChatModel([]), middleware=[Tracer("A", log), Tracer("A", log)])


def test_tools_middleware_first_later_duplicate_wins():
    @tool("echo")
    def loud(text: str) -> str:
        """Shout."""
        return text.upper()

    class Tools(AgentMiddleware):
        tools = (echo,)

    model = ScriptedChatModel([ai(call("echo", "c1", text="x")), "ok"])
    out = create_agent(model, [loud], middleware=[Tools()]).invoke(ask())
    assert out["messages"][2].text == "X"
    assert [t["name"] for t in model.calls[0].tools] == ["echo"]


class Counted(AgentState):
    counter: NotRequired[int]
    hidden: NotRequired[Annotated[int, PrivateStateAttr]]
    output_only: NotRequired[Annotated[int, OmitFromInput]]
    input_only: NotRequired[Annotated[int, OmitFromOutput]]


def test_state_schema_merge_and_markers():
    class M(AgentMiddleware):
        state_schema = Counted

        def before_model(self, state: Any, runtime: Any) -> dict[str, Any]:
            assert state["input_only"] == 5
            assert "output_only" not in state
            return {"counter": state.get("counter", 0) + 1, "hidden": 7, "output_only": 9}

    agent = create_agent(ScriptedChatModel(["hi"]), middleware=[M()])
    out = agent.invoke({**ask(), "input_only": 5, "output_only": 1, "hidden": 3})
    assert out["counter"] == 1
    assert out["output_only"] == 9
    assert "hidden" not in out and "input_only" not in out and "jump_to" not in out


def test_agent_recursion_limit_is_ten_thousand():
    turns = 15  # 1 + 2*15 + 1 supersteps: far past the StateGraph default of 25
    model = ScriptedChatModel(
        [*(ai(call("echo", f"c{i}", text=str(i))) for i in range(turns)), "done"]
    )
    agent = create_agent(model, [echo])
    assert agent.default_recursion_limit == 9_999
    assert agent.invoke(ask())["messages"][-1].text == "done"


def test_name_sets_graph_name_and_ai_message_name():
    agent = create_agent(ScriptedChatModel(["hello"]), name="helper")
    assert agent.name == "helper"
    assert agent.invoke(ask())["messages"][-1].name == "helper"


def test_model_string_goes_through_init_chat_model(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    agent = create_agent("openai:gpt-4o-mini")
    model = agent.builder.nodes["model"].fn.model
    assert type(model).__name__ == "OpenAIChatModel"
    assert model.model_name == "gpt-4o-mini"


def test_middleware_returning_unknown_tools_is_an_error():
    @tool
    def secret(x: int) -> int:
        """Not registered."""
        return x

    class Sneaky(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request.override(tools=[*request.tools, secret]))

    agent = create_agent(ScriptedChatModel(["x"]), [echo], middleware=[Sneaky()])
    with pytest.raises(
        ValueError, match=r"^Middleware added tools .*\n\nUnknown tools: \['secret'\]\n"
    ):
        agent.invoke(ask())


def test_unknown_tools_allowed_when_a_middleware_wraps_tool_calls():
    @tool
    def dynamic(x: int) -> int:
        """Served by the middleware."""
        return x * 10

    class Provides(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request.override(tools=[*request.tools, dynamic]))

        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            if request.tool_call["name"] == "dynamic":
                request = request.override(tool=dynamic)
            return handler(request)

    model = ScriptedChatModel([ai(call("dynamic", "c1", x=4)), "ok"])
    out = create_agent(model, [echo], middleware=[Provides()]).invoke(ask())
    assert out["messages"][2].text == "40"
    assert [t["name"] for t in model.calls[0].tools] == ["echo", "dynamic"]


def test_jump_without_can_jump_to_cannot_be_declared_wrongly():
    class Bad(AgentMiddleware):
        @hook_config(can_jump_to=["end"])
        def before_model(self, state: Any, runtime: Any) -> dict[str, Any]:
            return {"jump_to": "tools"}

    agent = create_agent(ScriptedChatModel([]), [echo], middleware=[Bad()])
    with pytest.raises(
        ValueError,
        match=r"Bad.before_model returned jump_to='tools', but it may only jump to \['end'\]",
    ):
        agent.invoke(ask())


def test_after_agent_decorator_and_checkpoint_count():
    seen: list[int] = []

    @after_agent
    def finish(state: Any) -> dict[str, Any]:
        seen.append(len(state["messages"]))
        return {"messages": [AIMessage(content="bye")]}

    agent = create_agent(
        ScriptedChatModel(["hi"]), middleware=[finish], checkpointer=InMemorySaver()
    )
    out = agent.invoke(ask(), cfg())
    assert [m.text for m in out["messages"]] == ["hi", "hi", "bye"]
    assert seen == [2]
    history = [
        (s.metadata["source"], s.metadata["step"], s.next) for s in agent.get_state_history(cfg())
    ]
    assert history == [
        ("loop", 2, ()),
        ("loop", 1, ("finish.after_agent",)),
        ("loop", 0, ("model",)),
        ("input", -1, ("__start__",)),
    ]
