"""A provider's built-in tools in ``create_agent(tools=[...])`` (``{"type": "web_search"}``
beside the user's tools), real LangChain vs ported by its imports: the model's ``bind_tools``
gets the tool objects and the dicts, the tools node runs only the user's tools (a call to a
built-in's name is answered as an unknown tool), and an agent with only built-in tools has no
tools node.  Then the engine's own models: a built-in tool reaches the request as it is."""

from __future__ import annotations

import pytest

from engine import create_agent
from engine.messages import AIMessage, HumanMessage
from engine.models import ScriptedChatModel
from engine.models.hashing import request_hash
from engine.models.openai_format import to_openai_tools
from engine.tools import tool
from tests.engine.docs_port.port import compare

BUILTIN_TOOLS = """
import asyncio
from langchain.agents import create_agent
from langchain.tools import tool
from langchain.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        self.seen.append(([t if isinstance(t, dict) else type(t).__name__ + ":" + t.name for t in tools], kw))
        return self

@tool
def get_weather(city: str) -> str:
    '''Get the weather.'''
    return f"sunny in {city}"

def show(out):
    for m in out["messages"]:
        print(" ", type(m).__name__, repr(m.content), [c["name"] for c in getattr(m, "tool_calls", [])], getattr(m, "tool_call_id", None), getattr(m, "status", None))

web = {"type": "web_search"}
code = {"type": "code_interpreter", "container": {"type": "auto"}}
model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}]),
    AIMessage("It is sunny."),
]))
agent = create_agent(model, tools=[web, get_weather, code], checkpointer=InMemorySaver())
print(sorted(agent.get_graph().nodes))
show(agent.invoke({"messages": [{"role": "user", "content": "weather?"}]}, {"configurable": {"thread_id": "1"}}))
for s in model.seen:
    print(s)

print("== the model calls a built-in tool by name")
model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "web_search", "args": {"q": "x"}, "id": "c9"}]),
    AIMessage("done"),
]))
agent = create_agent(model, tools=[web, get_weather])
show(asyncio.run(agent.ainvoke({"messages": [{"role": "user", "content": "search"}]})))

print("== only built-in tools")
model = Scripted(messages=iter([AIMessage("plain"), AIMessage("streamed answer")]))
model.seen.clear()
agent = create_agent(model, tools=[web], system_prompt="Be brief.")
print(sorted(agent.get_graph().nodes))
show(agent.invoke({"messages": [{"role": "user", "content": "search"}]}))
for chunk, meta in agent.stream({"messages": [{"role": "user", "content": "again"}]}, stream_mode="messages"):
    print(" ", type(chunk).__name__, repr(chunk.content), meta["langgraph_node"])
for s in model.seen:
    print(s)
"""


def test_built_in_provider_tools_are_bound_and_never_run() -> None:
    compare(BUILTIN_TOOLS)


@tool
def get_weather(city: str) -> str:
    """Get the weather."""
    return f"sunny in {city}"


def test_an_engine_model_gets_a_built_in_tool_as_it_is() -> None:
    web = {"type": "web_search", "search_context_size": "low"}
    model = ScriptedChatModel(
        [
            AIMessage(
                content="",
                tool_calls=[{"name": "get_weather", "args": {"city": "Oslo"}, "id": "c1"}],
            ),
            AIMessage(content="cold"),
        ]
    )
    agent = create_agent(model, [get_weather, web])
    out = agent.invoke({"messages": [HumanMessage(content="weather?")]})
    assert [m.text for m in out["messages"]][-2:] == ["sunny in Oslo", "cold"]
    first = model.calls[0]
    assert first.tools[1] == web and first.tools[1] is not web
    assert first.tool_names == ["get_weather", "web_search"]
    assert request_hash(first.messages, first.tools) != request_hash(
        first.messages, first.tools[:1]
    )
    assert to_openai_tools(first.tools)[1] == web
    assert to_openai_tools(first.tools)[0]["function"]["name"] == "get_weather"


def test_tool_choice_any_counts_a_built_in_tool() -> None:
    model = ScriptedChatModel([AIMessage(content="ok")])
    reply = model.invoke("hi", tools=[{"type": "web_search"}], tool_choice="any")
    assert reply.text == "ok"
    assert model.calls[0].tool_choice == "any"
    with pytest.raises(ValueError, match="is not one of the tools"):
        model.invoke("hi", tools=[{"type": "web_search"}], tool_choice="web_search")
