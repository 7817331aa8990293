"""Attach mode records what a real LangChain model was sent (messages, tool schemas,
parameters, credentials redacted) and its usage, from ``usage_metadata`` or, when a provider
only fills ``response_metadata``, from there."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")
from langchain.agents import create_agent as lc_create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from engine.attach import attach
from engine.events import event_to_json
from engine.observe.request_log import resolve
from tests.engine.attach.test_attach_langgraph import collect, weather


class Reporting(GenericFakeChatModel):
    """Binds tools like a real model and reports usage the OpenAI way, in
    ``response_metadata`` only (``usage_metadata`` left empty)."""

    temperature: float = 0.3
    api_key: str = "sk-attach-secret"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        from langchain_core.utils.function_calling import convert_to_openai_tool

        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": "gpt-4o-mini", "temperature": self.temperature}

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any) -> Any:
        reply = next(self.messages)
        reply.response_metadata = {
            "model_name": "gpt-4o-mini-2024-07-18",
            "token_usage": {
                "prompt_tokens": 120,
                "completion_tokens": 8,
                "total_tokens": 128,
                "prompt_tokens_details": {"cached_tokens": 100},
            },
        }
        return ChatResult(generations=[ChatGeneration(message=reply)])


def test_an_attached_model_call_records_its_request_and_usage() -> None:
    call = {"name": "weather", "args": {"city": "Oslo"}, "id": "c1"}
    model = Reporting(messages=iter([AIMessage("", tool_calls=[call]), AIMessage("Sunny.")]))
    agent = attach(lc_create_agent(model, tools=[weather], system_prompt="Be brief."))
    events = collect(
        agent, {"messages": [("user", "weather in Oslo?")]}, {"configurable": {"thread_id": "t"}}
    )
    by_seq = {e.seq: e for e in events}
    requests = [e for e in events if e.kind == "model.request"]
    responses = [e for e in events if e.kind == "model.response"]
    assert len(requests) == len(responses) == 2
    messages, tools = resolve(requests[1], by_seq.get)
    assert messages is not None and tools is not None
    assert [m["type"] for m in messages] == ["system", "human", "ai", "tool"]
    assert messages[0]["content"] == "Be brief."
    assert tools[0]["name"] == "weather" and "city" in tools[0]["parameters"]["properties"]
    assert requests[1].__dict__["messages_reused"] == 2  # system + human not sent again
    params = requests[0].__dict__["params"]
    assert params.get("temperature") == 0.3
    usage = responses[0].__dict__["usage"]
    assert usage["input_tokens"] == 120 and usage["output_tokens"] == 8
    assert usage["input_token_details"] == {"cache_read": 100}
    assert responses[0].__dict__["model_name"] == "gpt-4o-mini-2024-07-18"
    assert "sk-attach-secret" not in "".join(event_to_json(e) for e in events)
