"""A user's langchain_core models, tools and messages, run by the engine unchanged.

Uses langchain_core's own fake chat model (``GenericFakeChatModel``, taught ``bind_tools`` as
tool-calling test models are) and its ``@tool`` decorator; skipped when langchain-core is not
installed (the ``langchain`` extra).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Annotated, Any

import pytest

lc_messages = pytest.importorskip("langchain_core.messages")
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.tools import InjectedToolCallId, ToolException  # noqa: E402
from langchain_core.tools import tool as lc_tool  # noqa: E402
from langchain_core.utils.function_calling import convert_to_openai_tool  # noqa: E402

from engine.agents import create_agent  # noqa: E402
from engine.checkpoint import InMemorySaver  # noqa: E402
from engine.events import EventBase  # noqa: E402
from engine.interop import from_langchain, to_langchain  # noqa: E402
from engine.interop.langchain import LangChainChatModel, LangChainTool  # noqa: E402
from engine.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402
from engine.middleware.model_retry import ModelRetryMiddleware  # noqa: E402
from engine.models import ModelTimeoutError, as_chat_model, init_chat_model  # noqa: E402

BOUND: list[Any] = []
"""What the agent bound with ``bind_tools`` (tools, tool_choice), call by call."""


class ToolCallingFake(GenericFakeChatModel):
    """langchain_core's fake, with the ``bind_tools`` a real provider model has, streaming its
    tool calls as ``tool_call_chunks`` and its usage the way provider models do (the generic
    fake streams text only)."""

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        BOUND.append((tools, tool_choice))
        return self

    def _stream(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any) -> Any:
        from langchain_core.outputs import ChatGenerationChunk

        message = (
            self._generate(messages, stop=stop, run_manager=run_manager).generations[0].message
        )
        if not message.tool_calls:  # text: word by word, as the generic fake does
            words = re.split(r"(\s)", message.content)
            for i, word in enumerate(words):
                last = i == len(words) - 1
                yield ChatGenerationChunk(
                    message=lc_messages.AIMessageChunk(
                        content=word, usage_metadata=message.usage_metadata if last else None
                    )
                )
            return
        chunks = [
            {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": i}
            for i, c in enumerate(message.tool_calls)
        ]
        yield ChatGenerationChunk(
            message=lc_messages.AIMessageChunk(
                content=message.content,
                tool_call_chunks=chunks,
                usage_metadata=message.usage_metadata,
            )
        )


def lc_ai(content: str = "", **calls: dict[str, Any]) -> Any:
    tool_calls = [
        {"name": name.rstrip("_0123456789"), "args": args, "id": f"call_{name}"}
        for name, args in calls.items()
    ]
    return lc_messages.AIMessage(
        content=content,
        tool_calls=tool_calls,
        usage_metadata={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
    )


@lc_tool
def create_file(path: str, content: str) -> str:
    """Create a file.

    Args:
        path: where
        content: what
    """
    return f"created {path}"


@lc_tool
def whoami(tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Say which call this is."""
    return f"I am {tool_call_id}"


@lc_tool(response_format="content_and_artifact")
def search(query: str) -> tuple[str, dict[str, Any]]:
    """Search."""
    return f"2 results for {query}", {"hits": [1, 2]}


@lc_tool
def flaky(x: int) -> str:
    """Always fails, politely."""
    raise ToolException("the service is down")


flaky.handle_tool_error = True  # how langchain_core asks a tool to answer its own errors


def _run(
    model: Any, tools: list[Any], text: str, **kw: Any
) -> tuple[dict[str, Any], list[EventBase]]:
    agent = create_agent(model, tools, checkpointer=InMemorySaver(), **kw)
    events: list[EventBase] = []
    with agent.subscribe(events.append):
        out = agent.invoke(
            {"messages": [lc_messages.HumanMessage(text)]},  # a langchain message in the input
            {"configurable": {"thread_id": "t"}},
        )
    return out, events


def test_a_langchain_model_and_tools_run_a_whole_agent_with_full_events() -> None:
    model = ToolCallingFake(
        messages=iter(
            [
                lc_ai(create_file_1={"path": "a.txt", "content": "x"}, whoami_2={}),
                lc_ai(search_3={"query": "cats"}, flaky_4={"x": 1}),
                lc_ai("All done here."),
            ]
        )
    )
    out, events = _run(model, [create_file, whoami, search, flaky], "make a.txt")
    msgs = out["messages"]
    assert isinstance(msgs[0], HumanMessage) and msgs[0].text == "make a.txt"
    tool_msgs = {m.name: m for m in msgs if isinstance(m, ToolMessage)}
    assert tool_msgs["create_file"].text == "created a.txt"
    assert tool_msgs["whoami"].text == "I am call_whoami_2"  # injected, hidden from the model
    assert tool_msgs["search"].artifact == {"hits": [1, 2]}
    assert tool_msgs["flaky"].status == "error" and "service is down" in tool_msgs["flaky"].text
    assert msgs[-1].text == "All done here." and isinstance(msgs[-1], AIMessage)
    # bound as LangChain's agent binds them: the tool objects themselves, whose OpenAI form
    # (what a provider model sends) hides the injected argument
    assert all(
        a is b for a, b in zip(BOUND[-1][0], [create_file, whoami, search, flaky], strict=True)
    )
    schema = convert_to_openai_tool(BOUND[-1][0][1])["function"]["parameters"]
    assert "tool_call_id" not in schema.get("properties", {})

    kinds = [e.kind for e in events]
    assert kinds.count("model.request") == 3 and kinds.count("model.response") == 3
    assert "model.token" in kinds  # streamed through langchain's astream
    responses = [e for e in events if e.kind == "model.response"]
    assert responses[-1].usage["input_tokens"] == 10  # type: ignore[index]
    assert responses[0].model == "ToolCallingFake"
    finished = {e.tool: e.status for e in events if e.kind == "tool.finished"}  # type: ignore[attr-defined]
    assert finished["flaky"] == "error" and finished["create_file"] == "success"

    lc_out = to_langchain(msgs)
    assert [m.type for m in lc_out][:2] == ["human", "ai"]
    assert isinstance(lc_out[-1], lc_messages.AIMessage)
    assert [m.text for m in from_langchain(lc_out)] == [m.text for m in msgs]


FAILURES = [1]


class TimingOutOnce(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    # a sync run streams through ``_stream`` (as LangChain's), an async one through ``_astream``
    def _stream(self, *args: Any, **kwargs: Any) -> Any:
        _time_out_once()
        yield from super()._stream(*args, **kwargs)

    async def _astream(self, *args: Any, **kwargs: Any) -> Any:
        _time_out_once()
        async for chunk in super()._astream(*args, **kwargs):
            yield chunk


def _time_out_once() -> None:
    if FAILURES[0]:
        FAILURES[0] -= 1
        raise type("APITimeoutError", (Exception,), {})("read timed out")


def test_provider_errors_become_engine_errors_that_retry_middleware_retries() -> None:
    model = TimingOutOnce(messages=iter([lc_ai("Answer after a retry.")]))
    out, events = _run(
        model,
        [],
        "hello",
        # the engine's type matches the provider's timeout it stands for (a builtin type such
        # as ``TimeoutError`` matches only what derives from it, as in LangChain)
        middleware=[
            ModelRetryMiddleware(max_retries=1, retry_on=(ModelTimeoutError,), initial_delay=0)
        ],
    )
    assert out["messages"][-1].text == "Answer after a retry."
    failed = [e for e in events if e.kind == "attempt.finished" and e.outcome == "error"]  # type: ignore[attr-defined]
    assert len(failed) == 1 and failed[0].error.type == "ModelTimeoutError"  # type: ignore[attr-defined]


def test_models_and_tools_are_recognised_where_the_engine_takes_its_own() -> None:
    fake = ToolCallingFake(messages=iter([]))
    assert isinstance(as_chat_model(fake), LangChainChatModel)
    from engine.tools import as_tool

    assert isinstance(as_tool(create_file), LangChainTool)
    assert as_tool(create_file).return_direct is False


def test_an_unknown_provider_names_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain.chat_models", None)  # langchain not installed
    with pytest.raises(
        ValueError, match="pip install 'stepwise\\[langchain\\]' langchain langchain-anthropic"
    ):
        init_chat_model("anthropic:claude-sonnet-4-5")


def test_the_engine_imports_and_runs_without_langchain_core() -> None:
    """With every ``langchain*`` import refused, the engine still loads and runs an agent."""
    code = """
import sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0].startswith('langchain'):
            raise ImportError('no ' + name)
sys.meta_path.insert(0, Refuse())
import engine, engine.agents, engine.middleware, engine.models, engine.tools, engine.interop
from engine.agents import create_agent
from engine.models import ScriptedChatModel
out = create_agent(ScriptedChatModel(['hi there'])).invoke({'messages': [('user', 'hello')]})
assert out['messages'][-1].text == 'hi there'
assert not [m for m in sys.modules if m.startswith('langchain')]
print('ok')
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
