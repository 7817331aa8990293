"""The retry middleware's docs programs, real LangChain vs ported: once retries are spent
(``on_failure="error"``) or with no retry at all, the agent raises the model's (or tool's) own
exception, the very object, unchained; ``retry_on`` matches the library's exception types."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

MODEL = '''
import asyncio
from langchain.agents import create_agent
from langchain.agents.middleware import ModelRetryMiddleware, ToolRetryMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool


class ConnectTimeout(Exception):
    """Like httpx's: a provider SDK's timeout, not a TimeoutError."""


class APIStatusError(Exception):
    def __init__(self, message, status_code):
        super().__init__(message)
        self.status_code = status_code


class Failing(GenericFakeChatModel):
    errors: list = []
    calls: int = 0

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, *args, **kwargs):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return super()._generate(*args, **kwargs)


def show(exc, original):
    print(type(exc).__name__, repr(str(exc)), exc is original)
    print("cause", type(exc.__cause__).__name__, "context", type(exc.__context__).__name__)
'''


def test_exhausted_retries_raise_the_models_own_exception() -> None:
    compare(
        MODEL
        + """
for make in (lambda: ValueError("bad value"), lambda: TimeoutError("timed out"),
             lambda: ConnectTimeout("connect failed"), lambda: APIStatusError("boom", 503)):
    errors = [make(), make()]
    last = errors[-1]
    model = Failing(messages=iter([]), errors=errors)
    agent = create_agent(
        model, tools=[],
        middleware=[ModelRetryMiddleware(max_retries=1, initial_delay=0, on_failure="error")],
    )
    try:
        agent.invoke({"messages": [{"role": "user", "content": "hi"}]})
    except Exception as exc:
        show(exc, last)
    print("calls", model.calls)
"""
    )


def test_without_retry_the_models_exception_escapes_sync_and_async() -> None:
    compare(
        MODEL
        + """
for make in (lambda: ValueError("bad value"), lambda: ConnectTimeout("slow"),
             lambda: APIStatusError("rate limited", 429)):
    err = make()
    agent = create_agent(Failing(messages=iter([]), errors=[err]), tools=[])
    try:
        agent.invoke({"messages": [{"role": "user", "content": "hi"}]})
    except Exception as exc:
        show(exc, err)
    err = make()
    agent = create_agent(Failing(messages=iter([]), errors=[err]), tools=[])
    try:
        asyncio.run(agent.ainvoke({"messages": [{"role": "user", "content": "hi"}]}))
    except Exception as exc:
        show(exc, err)
"""
    )


def test_retry_on_matches_the_providers_exception_types() -> None:
    compare(
        MODEL
        + """
def should_retry(exc):
    if isinstance(exc, APIStatusError):
        return 500 <= exc.status_code < 600
    return isinstance(exc, ConnectTimeout)

cases = [
    ((ConnectTimeout,), [ConnectTimeout("slow"), ConnectTimeout("slow again")]),
    (should_retry, [APIStatusError("down", 502), APIStatusError("bad", 400)]),
    (should_retry, [APIStatusError("down", 502), ConnectTimeout("slow")]),
    ((TimeoutError,), [ConnectTimeout("slow")]),
]
for retry_on, errors in cases:
    model = Failing(messages=iter([AIMessage("fine")]), errors=list(errors))
    agent = create_agent(
        model, tools=[],
        middleware=[ModelRetryMiddleware(max_retries=2, initial_delay=0, retry_on=retry_on)],
    )
    try:
        out = agent.invoke({"messages": [{"role": "user", "content": "hi"}]})
        print(model.calls, out["messages"][-1].content)
    except Exception as exc:
        print(model.calls, "raised", type(exc).__name__, exc)
"""
    )


def test_exhausted_tool_retries_raise_the_tools_own_exception() -> None:
    compare(
        MODEL
        + """
for make in (lambda: ValueError("tool broke"), lambda: TimeoutError("tool timed out")):
    raised = []

    @tool
    def flaky(x: int) -> str:
        '''A tool that fails.'''
        raised.append(make())
        raise raised[-1]

    model = Failing(messages=iter([
        AIMessage("", tool_calls=[{"name": "flaky", "args": {"x": 1}, "id": "c1"}]),
        AIMessage("done"),
    ]))
    agent = create_agent(
        model, tools=[flaky],
        middleware=[ToolRetryMiddleware(max_retries=1, initial_delay=0, on_failure="error")],
    )
    try:
        agent.invoke({"messages": [{"role": "user", "content": "hi"}]})
    except Exception as exc:
        show(exc, raised[-1])
    print(len(raised))
"""
    )


FALLBACK = """
from langchain.agents import create_agent
from langchain.agents.middleware import ModelFallbackMiddleware, ModelRetryMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
class Broken(GenericFakeChatModel):
    exc: object = None
    def bind_tools(self, tools, **kw): return self
    def _generate(self, *a, **k): raise self.exc
e1, e2 = TimeoutError("first down"), ConnectionError("second down")
agent = create_agent(Broken(messages=iter([]), exc=e1), tools=[], middleware=[ModelFallbackMiddleware(Broken(messages=iter([]), exc=e2))])
try:
    agent.invoke({"messages": [{"role": "user", "content": "x"}]})
except Exception as e:
    print(type(e).__name__, e, e is e2, e is e1, type(e.__cause__).__name__, type(e.__context__).__name__)
agent = create_agent(Broken(messages=iter([]), exc=TimeoutError("t")), tools=[], middleware=[ModelRetryMiddleware(max_retries=1, initial_delay=0, on_failure=lambda e: f"custom {type(e).__name__}: {e}")])
print([m.content for m in agent.invoke({"messages": [{"role": "user", "content": "x"}]})["messages"]])
agent = create_agent(Broken(messages=iter([]), exc=ConnectionError("c")), tools=[], middleware=[ModelRetryMiddleware(max_retries=1, initial_delay=0)])
print([m.content for m in agent.invoke({"messages": [{"role": "user", "content": "x"}]})["messages"]])
"""


def test_fallback_raises_the_last_models_exception_and_retry_messages_name_the_original() -> None:
    compare(FALLBACK)
