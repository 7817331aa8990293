"""Agents against a real OpenAI-compatible HTTP server (local, 127.0.0.1) through the real
``openai`` client: seed 000's retry on a client timeout, tools, streaming, structured output."""

from __future__ import annotations

from pydantic import BaseModel

from engine.agents import ToolStrategy, create_agent
from engine.checkpoint import InMemorySaver
from engine.events import EventBase
from engine.messages import AIMessage, HumanMessage, ToolMessage
from engine.middleware.builtins import ModelRetryMiddleware, TodoListMiddleware, ToolRetryMiddleware
from engine.models import ModelTimeoutError, OpenAIChatModel
from resources.scenarios.retry_todos import FINAL_TODOS, INPUT, TODOS, Workspace, make_tools
from tests.fixtures.openai_server import FakeOpenAIServer

FAST = {"initial_delay": 0.001, "jitter": False}


def _model(server: FakeOpenAIServer, **kw) -> OpenAIChatModel:
    return OpenAIChatModel(
        "gpt-test", base_url=server.base_url, api_key="sk-test-SECRET123", timeout=2.0, **kw
    )


def test_seed000_recovers_from_a_real_client_timeout(openai_server: FakeOpenAIServer):
    s = openai_server
    # the first reply waits until the server stops: the call always times out on the client
    # side, and every other reply has the whole 2 s timeout to arrive on a loaded machine
    s.reply_text("too late", delay=600.0)
    s.reply_tool_calls(("write_todos", {"todos": TODOS}))
    s.reply_tool_calls(("create_file", {"path": "login.tsx", "content": "x"}))
    s.reply_tool_calls(("create_file", {"path": "register.tsx", "content": "y"}))
    s.reply_text("Both files are created.")
    workspace = Workspace(disk_full=1)
    agent = create_agent(
        _model(s),
        make_tools(workspace),
        middleware=[
            ModelRetryMiddleware(max_retries=2, retry_on=(TimeoutError,), **FAST),
            ToolRetryMiddleware(max_retries=1, retry_on=(IOError,), **FAST),
            TodoListMiddleware(),
        ],
        checkpointer=InMemorySaver(),
    )
    events: list[EventBase] = []
    cfg = {"configurable": {"thread_id": "http"}}
    with agent.subscribe(events.append):
        out = agent.invoke({"messages": [HumanMessage(INPUT)]}, cfg)
    kinds = [type(m).__name__ for m in out["messages"]]
    assert kinds == [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
    ]
    assert out["messages"][-1].text == "Both files are created."
    assert workspace.files.keys() == {"login.tsx", "register.tsx"}
    assert workspace.attempts == ["login.tsx", "login.tsx", "register.tsx"]
    assert out["todos"] == FINAL_TODOS  # each create_file completed its todo
    assert len(list(agent.get_state_history(cfg))) == 13
    model_attempts = [
        (e.attempt, e.outcome, e.error.type if e.error else None)  # type: ignore[attr-defined]
        for e in events
        if e.kind == "attempt.finished" and e.middleware == "ModelRetryMiddleware"  # type: ignore[attr-defined]
    ]
    assert model_attempts[0] == (1, "error", ModelTimeoutError.__name__)
    assert model_attempts[1][:2] == (2, "ok")
    assert len(s.requests) == 5  # 1 timed out + 4 answered
    # the timed-out and the retried request carry the same conversation
    assert s.requests[0]["messages"] == s.requests[1]["messages"]


def test_tools_streaming_and_structured_output_over_http(openai_server: FakeOpenAIServer):
    s = openai_server

    class Weather(BaseModel):
        city: str
        celsius: float

    from engine.tools import tool

    @tool
    def get_temperature(city: str) -> str:
        """Current temperature of a city in Celsius."""
        return "21.5"

    s.reply_tool_calls(("get_temperature", {"city": "Paris"}))
    s.reply_tool_calls(("Weather", {"city": "Paris", "celsius": 21.5}))
    agent = create_agent(_model(s), [get_temperature], response_format=ToolStrategy(Weather))
    chunks = list(
        agent.stream({"messages": [HumanMessage("Weather in Paris?")]}, stream_mode="messages")
    )
    assert any(getattr(c[0], "tool_call_chunks", None) for c in chunks)  # tokens streamed
    assert all(r.get("stream") is True for r in s.requests)
    assert s.requests[0]["tools"][0]["function"]["name"] == "get_temperature"
    s.reply_tool_calls(("get_temperature", {"city": "Oslo"}))
    s.reply_tool_calls(("Weather", {"city": "Oslo", "celsius": 21.5}))
    result = agent.invoke({"messages": [HumanMessage("Weather in Oslo?")]})
    assert result["structured_response"] == Weather(city="Oslo", celsius=21.5)
    assert isinstance(result["messages"][-1], ToolMessage)
    assert isinstance(result["messages"][-2], AIMessage)


def test_malformed_tool_arguments_from_the_server_become_an_error_the_model_sees(openai_server):
    s = openai_server
    from engine.tools import tool

    @tool
    def lookup(key: str) -> str:
        """Look a key up."""
        return f"value of {key}"

    s.reply_tool_calls(("lookup", '{"key": "a"'))  # broken JSON
    s.reply_tool_calls(("lookup", {"key": "a"}))
    s.reply_text("done")
    agent = create_agent(_model(s), [lookup], retry_invalid_tool_calls=True)
    out = agent.invoke({"messages": [HumanMessage("look a up")]})
    tool_msgs = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert tool_msgs[0].status == "error"
    assert tool_msgs[1].text == "value of a"
    assert out["messages"][-1].text == "done"
    # the second request showed the model its error
    sent = s.requests[1]["messages"]
    assert any(m["role"] == "tool" and "error" in str(m["content"]).lower() for m in sent)
