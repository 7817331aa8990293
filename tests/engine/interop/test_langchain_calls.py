"""How the engine calls a langchain_core model, and how langchain_core sees ours.

A langchain_core model is invoked as LangChain invokes it (``ainvoke``), and streams only when
someone consumes tokens; our models compose with ``|`` and pass where langchain_core wants its
own ``BaseLanguageModel``.  Skipped without langchain-core.
"""

from __future__ import annotations

from typing import Any

import pytest

lc_messages = pytest.importorskip("langchain_core.messages")
from langchain_core.language_models import BaseLanguageModel  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.prompts import ChatPromptTemplate  # noqa: E402
from langchain_core.tools import tool as lc_tool  # noqa: E402

from engine.agents import create_agent  # noqa: E402
from engine.interop.langchain_face import to_langchain_model  # noqa: E402
from engine.models import ScriptedChatModel  # noqa: E402


class Fake(GenericFakeChatModel):
    """langchain_core's generic fake, which streams text only, with a no-op ``bind_tools``."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


@lc_tool
def ping(x: int) -> str:
    """Ping."""
    return f"pong {x}"


def _calls_ping() -> Any:
    return lc_messages.AIMessage(
        content="", tool_calls=[{"name": "ping", "args": {"x": 1}, "id": "c1"}]
    )


def test_a_tool_call_only_reply_from_a_text_streaming_fake_runs_an_agent() -> None:
    """Invoked, not streamed: the fake's stream would yield nothing for a tool-call-only reply."""
    model = Fake(messages=iter([_calls_ping(), lc_messages.AIMessage(content="done")]))
    out = create_agent(model, [ping]).invoke({"messages": [("user", "hi")]})
    assert [m.type for m in out["messages"]] == ["human", "ai", "tool", "ai"]
    assert out["messages"][2].text == "pong 1"


def test_a_messages_stream_gets_the_models_tokens() -> None:
    model = Fake(messages=iter([lc_messages.AIMessage(content="done now")]))
    agent = create_agent(model, [])
    texts = [
        chunk.text
        for chunk, meta in agent.stream({"messages": [("user", "hi")]}, stream_mode="messages")
        if meta["langgraph_node"] == "model"
    ]
    assert [t for t in texts if t] == ["done", " ", "now"]


def test_our_model_composes_after_a_langchain_prompt_and_answers_in_langchain_messages() -> None:
    chain = ChatPromptTemplate.from_messages([("user", "{q}")]) | ScriptedChatModel(["hello"])
    reply = chain.invoke({"q": "x"})
    assert isinstance(reply, lc_messages.AIMessage) and reply.content == "hello"


def test_our_model_as_a_langchain_base_language_model() -> None:
    lc_model = to_langchain_model(ScriptedChatModel(["abc def", "abc def"]))
    assert isinstance(lc_model, BaseLanguageModel)
    assert lc_model.invoke("hi").content == "abc def"
    assert "".join(c.content for c in lc_model.stream("hi")) == "abc def"


def test_as_langchain_model_is_exported_where_users_look() -> None:
    from engine.interop import as_langchain_model

    assert isinstance(as_langchain_model(ScriptedChatModel(["x"])), BaseLanguageModel)
