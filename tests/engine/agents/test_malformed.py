"""Malformed model output never crashes a run.

By default (upstream's behaviour) a reply whose only calls are unparseable ends the run and
the next model call sees error answers for them; ``retry_invalid_tool_calls=True`` answers
them at once and asks the model again.
"""

from __future__ import annotations

from engine import create_agent
from engine.checkpoint import InMemorySaver
from engine.messages import AIMessage, AIMessageChunk, InvalidToolCall, ToolCallChunk, ToolMessage
from engine.models import ScriptedChatModel

from .helpers import ai, ask, call, cfg, echo, kinds


def broken_json() -> AIMessage:
    return AIMessage(
        content="",
        invalid_tool_calls=[
            InvalidToolCall(
                name="echo",
                args='{"text": "unterminated',
                id="bad1",
                error="Unterminated string",
                type="invalid_tool_call",
            )
        ],
    )


def test_invalid_json_arguments_are_answered_and_the_model_retries():
    model = ScriptedChatModel([broken_json(), ai(call("echo", "ok1", text="fixed")), "done"])
    agent = create_agent(model, [echo], checkpointer=InMemorySaver(), retry_invalid_tool_calls=True)
    out = agent.invoke(ask(), cfg())
    msgs = out["messages"]
    error = msgs[2]
    assert isinstance(error, ToolMessage)
    assert (error.tool_call_id, error.status, error.name) == ("bad1", "error", "echo")
    assert error.content == (
        'Error invoking tool \'echo\' with kwargs {"text": "unterminated with error:\n'
        " args: not valid JSON (Unterminated string)\n"
        " Please fix the error and try again."
    )
    assert [m.type for m in msgs] == ["human", "ai", "tool", "ai", "tool", "ai"]
    assert msgs[-1].text == "done"
    # the second request carries the answer to the broken call, so the history stays valid
    second = model.calls[1].messages
    assert [m.type for m in second] == ["human", "ai", "tool"]


def test_streamed_broken_arguments_become_invalid_calls_and_are_answered():
    chunk = AIMessageChunk(
        content="",
        tool_call_chunks=[
            ToolCallChunk(name="echo", args='{"text": ', id="s1", index=0, type="tool_call_chunk")
        ],
    )
    model = ScriptedChatModel([chunk.to_message(), "recovered"])
    out = create_agent(model, [echo], retry_invalid_tool_calls=True).invoke(ask())
    assert [m.type for m in out["messages"]] == ["human", "ai", "tool", "ai"]
    assert out["messages"][2].status == "error"


def test_schema_invalid_and_unknown_calls_mix_with_valid_ones():
    model = ScriptedChatModel(
        [ai(call("echo", "a", text="fine"), call("echo", "b", words=3), call("nope", "c")), "done"]
    )
    out = create_agent(model, [echo]).invoke(ask())
    tools = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert [(t.tool_call_id, t.status) for t in tools] == [
        ("a", "success"),
        ("b", "error"),
        ("c", "error"),
    ]
    assert tools[1].content == (
        "Error invoking tool 'echo' with kwargs {'words': 3} with error:\n text: Field required\n"
        " Please fix the error and try again."
    )
    assert tools[2].content == "Error: nope is not a valid tool, try one of [echo]."
    assert out["messages"][-1].text == "done"


def test_tool_calls_without_a_tools_node_end_the_run_cleanly():
    out = create_agent(ScriptedChatModel([ai(call("ghost", "g1"))])).invoke(ask())
    assert kinds(out["messages"]) == ["Human", "AI[ghost]"]


async def test_async_path_answers_invalid_calls_too():
    model = ScriptedChatModel([broken_json(), "ok"])
    out = await create_agent(model, [echo], retry_invalid_tool_calls=True).ainvoke(ask())
    assert [m.type for m in out["messages"]] == ["human", "ai", "tool", "ai"]
