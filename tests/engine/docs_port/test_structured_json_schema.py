"""Structured output with a JSON-schema dict, real LangChain vs ported: the schema is not
checked (missing required properties, wrong types and extra keys are the answer as given),
whether as ``response_format=schema``, ``ToolStrategy(schema)`` or ``ProviderStrategy``; a
provider answer that is not JSON fails naming ``response_format``, as LangChain names it."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

AGENT = """
from langchain.agents import create_agent
from langchain.agents.structured_output import ProviderStrategy, ToolStrategy
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage


class Model(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self

    def bind(self, **kwargs):
        return self


weather = {
    "title": "Weather",
    "description": "The weather in a city.",
    "type": "object",
    "properties": {"city": {"type": "string"}, "temp": {"type": "integer"}},
    "required": ["city", "temp"],
}


def run(response_format, *replies):
    agent = create_agent(Model(messages=iter(replies)), tools=[], response_format=response_format)
    try:
        out = agent.invoke({"messages": [{"role": "user", "content": "weather in sf?"}]})
    except Exception as exc:
        print("raised", type(exc).__name__, exc)
        return
    print(repr(out.get("structured_response")))
    for m in out["messages"]:
        print(" ", type(m).__name__, repr(m.content), [c["name"] for c in getattr(m, "tool_calls", [])])
"""


def test_a_json_schema_through_a_tool_is_not_checked() -> None:
    compare(
        AGENT
        + """
for args in ({"city": "sf", "temp": 20}, {"city": "sf"}, {"city": "sf", "temp": "hot"},
             {"city": "sf", "temp": 3, "extra": 1}, {}):
    for response_format in (weather, ToolStrategy(weather)):
        run(
            response_format,
            AIMessage("", tool_calls=[{"name": "Weather", "args": args, "id": "c1"}]),
            AIMessage("unused"),
        )
"""
    )


def test_a_json_schema_through_the_provider_is_not_checked() -> None:
    compare(
        AGENT
        + """
for content in ('{"city": "sf"}', '{"city": "sf", "temp": "hot"}', "[1, 2]", '"sunny"',
                "not json"):
    run(ProviderStrategy(weather), AIMessage(content), AIMessage("unused"))
"""
    )
