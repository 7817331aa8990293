"""A tool parameter typed ``RunnableConfig`` receives the call's config (whatever its name)."""

from __future__ import annotations

from typing import Any

from engine.agents import create_agent
from engine.core.config import RunnableConfig
from engine.messages import AIMessage, HumanMessage, ToolMessage
from engine.models import ScriptedChatModel
from engine.tools import tool

seen: list[Any] = []


@tool
def lookup(query: str, cfg: RunnableConfig) -> str:
    """Look something up."""
    seen.append(cfg)
    return f"found {query}"


@tool
def maybe(query: str, config: RunnableConfig | None = None) -> str:
    """Optional config."""
    seen.append(config)
    return query


def test_the_config_parameter_is_not_shown_to_the_model() -> None:
    assert list(lookup.parameters_json_schema["properties"]) == ["query"]
    assert list(maybe.parameters_json_schema["properties"]) == ["query"]


def test_a_direct_call_passes_its_config() -> None:
    seen.clear()
    assert lookup.invoke({"query": "x"}, {"metadata": {"who": "me"}}) == "found x"
    assert maybe.invoke({"query": "y"}) == "y"
    assert seen == [{"metadata": {"who": "me"}}, {}]


def test_inside_an_agent_the_tool_gets_its_tasks_config() -> None:
    seen.clear()
    call = AIMessage(
        content="", tool_calls=[{"name": "lookup", "args": {"query": "q"}, "id": "c1"}]
    )
    agent = create_agent(ScriptedChatModel([call, "done"]), [lookup])
    out = agent.invoke({"messages": [HumanMessage("hi")]}, {"metadata": {"user": "u1"}})
    assert isinstance(out["messages"][2], ToolMessage) and out["messages"][2].text == "found q"
    (cfg,) = seen
    assert cfg["metadata"]["user"] == "u1" and cfg["metadata"]["langgraph_node"] == "tools"
    assert "checkpoint_ns" in cfg["configurable"]
