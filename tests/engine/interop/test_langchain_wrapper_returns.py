"""A ``wrap_tool_call`` / ``wrap_model_call`` layer returning langchain_core messages (LangChain's
docs import ``ToolMessage`` / ``AIMessage`` from ``langchain_core.messages`` in such
middleware, and a port keeps those imports): the agent takes them as its own messages."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_core")

from langchain_core.messages import AIMessage as LcAIMessage
from langchain_core.messages import ToolMessage as LcToolMessage

from engine import create_agent
from engine.messages import AIMessage, HumanMessage, ToolMessage
from engine.middleware import wrap_model_call, wrap_tool_call
from engine.models import ScriptedChatModel
from engine.tools import tool


@tool
def lookup(q: str) -> str:
    """Look something up."""
    raise ValueError(f"no {q}")


def test_a_tool_wrapper_may_return_a_langchain_tool_message() -> None:
    @wrap_tool_call
    def handle_errors(request, handler):  # type: ignore[no-untyped-def]
        try:
            return handler(request)
        except Exception as e:
            return LcToolMessage(f"Tool error: ({e})", tool_call_id=request.tool_call["id"])

    model = ScriptedChatModel(
        [AIMessage("", tool_calls=[{"name": "lookup", "args": {"q": "x"}, "id": "c1"}]), "ok"]
    )
    out = create_agent(model, [lookup], middleware=[handle_errors]).invoke(
        {"messages": [HumanMessage("hi")]}
    )
    (reply,) = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert (reply.content, reply.tool_call_id) == ("Tool error: (no x)", "c1")
    assert out["messages"][-1].content == "ok"


def test_a_model_wrapper_may_answer_with_a_langchain_ai_message() -> None:
    @wrap_model_call
    def cached(request, handler):  # type: ignore[no-untyped-def]
        return LcAIMessage("from cache")

    out = create_agent(ScriptedChatModel(["never"]), [], middleware=[cached]).invoke(
        {"messages": [HumanMessage("hi")]}
    )
    assert [(type(m), m.content) for m in out["messages"]] == [
        (HumanMessage, "hi"),
        (AIMessage, "from cache"),
    ]


def test_model_retry_failure_names_the_libraries_own_error() -> None:
    # a langchain_core model's TimeoutError is ours (ModelTimeoutError) for retry_on, but the
    # message that replaces the answer names it as LangChain's does
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    from engine.middleware import ModelRetryMiddleware
    from engine.models.errors import ModelTimeoutError

    class Slow(GenericFakeChatModel):
        def _generate(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            raise TimeoutError("slow")

    seen: list[BaseException] = []
    retry = ModelRetryMiddleware(
        max_retries=1, initial_delay=0, jitter=False, retry_on=(ModelTimeoutError,)
    )
    out = create_agent(Slow(messages=iter([])), [], middleware=[retry]).invoke(
        {"messages": [HumanMessage("hi")]}
    )
    assert out["messages"][-1].content == (
        "Model call failed after 2 attempts with TimeoutError: slow"
    )
    custom = ModelRetryMiddleware(
        max_retries=0, initial_delay=0, on_failure=lambda e: seen.append(e) or "gave up"
    )
    out = create_agent(Slow(messages=iter([])), [], middleware=[custom]).invoke(
        {"messages": [HumanMessage("hi")]}
    )
    assert out["messages"][-1].content == "gave up"
    assert [type(e) for e in seen] == [TimeoutError]
