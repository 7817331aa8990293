"""A LangGraph program ports by its import lines: ``langgraph.X`` becomes ``engine.X`` for the
modules programs import from, and each name is the engine's own object (not a copy)."""

from __future__ import annotations

import importlib

import pytest

import engine

PATHS = {
    "engine.graph": ["StateGraph", "START", "END", "add_messages", "MessagesState"],
    "engine.graph.state": ["StateGraph", "CompiledStateGraph"],
    "engine.graph.message": [
        "add_messages",
        "MessagesState",
        "REMOVE_ALL_MESSAGES",
        "push_message",
    ],
    "engine.types": [
        "Command",
        "interrupt",
        "Send",
        "Interrupt",
        "RetryPolicy",
        "CachePolicy",
        "Durability",
        "StreamMode",
        "GraphOutput",
        "StreamPart",
        "ValuesStreamPart",
        "CheckpointPayload",
    ],
    "engine.checkpoint.memory": ["InMemorySaver", "MemorySaver"],
    "engine.checkpoint.sqlite": ["SqliteSaver"],
    "engine.checkpoint.sqlite.aio": ["AsyncSqliteSaver"],
    "engine.checkpoint.serde.jsonplus": ["JsonPlusSerializer"],
    "engine.store.memory": ["InMemoryStore"],
    "engine.store.base": ["BaseStore", "Item", "SearchItem", "InvalidNamespaceError"],
    "engine.store.sqlite": ["SqliteStore"],
    "engine.cache.memory": ["InMemoryCache"],
    "engine.cache.sqlite": ["SqliteCache"],
    "engine.prebuilt": ["create_react_agent", "ToolNode", "tools_condition", "InjectedState"],
    "engine.prebuilt.tool_node": ["ToolNode", "tools_condition", "InjectedState", "ToolRuntime"],
    # its AgentState is the prebuilt agent's (not engine.AgentState, LangChain's), as in LangGraph
    "engine.prebuilt.chat_agent_executor": [
        "create_react_agent",
        "AgentStateWithStructuredResponse",
    ],
    "engine.prebuilt.interrupt": ["HumanInterrupt", "HumanInterruptConfig", "ActionRequest"],
    "engine.func": ["entrypoint", "task"],
    "engine.channels": ["LastValue", "EphemeralValue", "Topic", "BinaryOperatorAggregate"],
    "engine.pregel": ["Pregel", "NodeBuilder"],
    "engine.config": ["get_config", "get_store", "get_stream_writer"],
    "engine.runtime": ["Runtime", "get_runtime"],
    "engine.errors": ["GraphRecursionError", "GraphInterrupt", "InvalidUpdateError"],
    # LangChain's: langchain.agents.structured_output -> engine.agents.structured_output
    "engine.agents.structured_output": [
        "ToolStrategy",
        "ProviderStrategy",
        "AutoStrategy",
        "StructuredOutputValidationError",
        "MultipleStructuredOutputsError",
    ],
}


@pytest.mark.parametrize("module", sorted(PATHS))
def test_langgraphs_module_paths_have_the_engines_names(module: str) -> None:
    found = importlib.import_module(module)
    for name in PATHS[module]:
        value = getattr(found, name)
        top = getattr(engine, name, None)
        assert top is None or top is value, f"{module}.{name} is not engine.{name}"


def test_an_unknown_name_in_engine_types_is_an_attribute_error() -> None:
    import engine.types

    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        engine.types.nothing_here  # noqa: B018


def test_an_unknown_name_in_engine_graph_state_is_an_attribute_error() -> None:
    import engine.graph.state

    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        engine.graph.state.nothing_here  # noqa: B018
