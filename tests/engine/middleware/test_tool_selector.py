"""LLMToolSelectorMiddleware: selection, ordering, caps, always_include, invalid answers."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.messages import AIMessage, HumanMessage, SystemMessage
from engine.middleware.tool_selector import DEFAULT_SYSTEM_PROMPT, LLMToolSelectorMiddleware
from engine.models import ModelProfile, ScriptedChatModel
from engine.tools import tool
from tests.engine.middleware.helpers import (
    Flaky,
    actions,
    ai_answer,
    captured_events,
    model_request,
)


@tool
def search(q: str) -> str:
    """Search the web."""
    return q


@tool
def weather(city: str) -> str:
    """Current weather of a city."""
    return city


@tool
def calculator(expr: str) -> str:
    """Evaluate arithmetic."""
    return expr


@tool
def send_email(to: str) -> str:
    """Send an email."""
    return to


TOOLS = [search, weather, calculator, send_email]
PROVIDER_TOOL = {"type": "web_search_preview"}


def selecting(*answers: str | BaseException) -> ScriptedChatModel:
    return ScriptedChatModel(list(answers), name="selector")


def names(tools: list) -> list[str]:
    return [t.name if hasattr(t, "name") else t["type"] for t in tools]


def request(**kw):
    msgs = [
        HumanMessage(content="old question"),
        AIMessage(content="..."),
        HumanMessage(content="weather in Paris, and 2+2?"),
    ]
    return model_request(messages=msgs, tools=list(TOOLS), **kw)


def test_validation() -> None:
    with pytest.raises(ValueError, match=r"^max_tools must be >= 1$"):
        LLMToolSelectorMiddleware(max_tools=0)
    with pytest.raises(ValueError, match=r"^max_retries must be >= 0$"):
        LLMToolSelectorMiddleware(max_retries=-1)
    with pytest.raises(ValueError, match="not a string"):
        LLMToolSelectorMiddleware(always_include="search")  # type: ignore[arg-type]
    assert LLMToolSelectorMiddleware().max_retries == 1


def test_keeps_original_order_and_asks_with_system_and_last_human() -> None:
    sel = selecting(json.dumps({"tools": ["calculator", "weather"]}))
    mw = LLMToolSelectorMiddleware(sel)
    h = Flaky([], ai_answer())
    with captured_events() as events:
        mw.wrap_model_call(request(), h)
    assert names(h.requests[0].tools) == ["weather", "calculator"]
    (call,) = sel.calls
    system, human = call.messages
    assert isinstance(system, SystemMessage) and system.text.startswith(DEFAULT_SYSTEM_PROMPT)
    assert "- weather: Current weather of a city." in system.text
    assert isinstance(human, HumanMessage) and human.text == "weather in Paris, and 2+2?"
    assert call.response_format is not None
    assert call.response_format["json_schema"]["schema"]["properties"]["tools"]["items"][
        "enum"
    ] == [
        "search",
        "weather",
        "calculator",
        "send_email",
    ]
    (selected,) = actions(events, "tools_selected")
    assert selected.detail["selected"] == ["weather", "calculator"]
    assert selected.detail["chosen_by_model"] == ["calculator", "weather"]


def test_max_tools_keeps_the_first_choices_and_always_include_is_extra() -> None:
    sel = selecting('```json\n{"tools": ["send_email", "calculator", "weather"]}\n```')
    mw = LLMToolSelectorMiddleware(sel, max_tools=2, always_include=["search"])
    h = Flaky([], ai_answer())
    mw.wrap_model_call(
        model_request(messages=[HumanMessage(content="q")], tools=[*TOOLS, PROVIDER_TOOL]), h
    )
    assert names(h.requests[0].tools) == [
        "search",
        "calculator",
        "send_email",
        "web_search_preview",
    ]
    prompt = sel.calls[0].messages[0].text
    assert "only the first 2 will be used" in prompt
    assert "- search:" not in prompt  # always-included tools are not offered for selection


def test_invalid_names_raise_at_once() -> None:
    sel = selecting('{"tools": ["teleport"]}', '{"tools": ["weather"]}')
    with pytest.raises(ValueError, match=r"^Model selected invalid tools: \['teleport'\]$"):
        LLMToolSelectorMiddleware(sel).wrap_model_call(request(), Flaky([], ai_answer()))
    assert len(sel.calls) == 1


def test_retry_invalid_names_option_asks_again_then_raises() -> None:
    sel = selecting('{"tools": ["teleport"]}', '{"tools": ["weather"]}')
    mw = LLMToolSelectorMiddleware(sel, retry_invalid_names=True)
    h = Flaky([], ai_answer())
    with captured_events() as events:
        mw.wrap_model_call(request(), h)
    assert names(h.requests[0].tools) == ["weather"]
    assert len(sel.calls) == 2
    assert (
        actions(events, "tool_selection_retry")[0].detail["error"]
        == "Model selected invalid tools: ['teleport']"
    )

    always_wrong = selecting('{"tools": ["teleport", "weather"]}', '{"tools": ["fly"]}')
    with pytest.raises(ValueError) as info:
        LLMToolSelectorMiddleware(always_wrong, retry_invalid_names=True).wrap_model_call(
            request(), h
        )
    assert str(info.value) == "Model selected invalid tools: ['fly']"
    no_retry = selecting('{"tools": ["teleport"]}')
    with pytest.raises(ValueError, match=r"^Model selected invalid tools: \['teleport'\]$"):
        LLMToolSelectorMiddleware(
            no_retry, max_retries=0, retry_invalid_names=True
        ).wrap_model_call(request(), h)


def test_unparseable_answer() -> None:
    with pytest.raises(ValueError, match=r"malformed response after 1 retries.*'still prose'"):
        LLMToolSelectorMiddleware(selecting("I'd pick weather", "still prose")).wrap_model_call(
            request(), Flaky([], ai_answer())
        )


@pytest.mark.parametrize(
    ("fallback", "expected"),
    [
        ("none", []),
        ("all", ["search", "weather", "calculator", "send_email"]),
        (["search"], ["search"]),
        (lambda answer: ["send_email"] if answer == "prose" else [], ["send_email"]),
    ],
)
def test_on_parsing_failure_chooses_the_tools(fallback: Any, expected: list[str]) -> None:
    h = Flaky([], ai_answer())
    mw = LLMToolSelectorMiddleware(
        selecting("prose", "prose"), max_tools=1, on_parsing_failure=fallback
    )
    with captured_events() as events:
        mw.wrap_model_call(request(), h)
    assert sorted(names(h.requests[0].tools)) == sorted(expected)  # "all" is not capped
    assert actions(events, "tool_selection_fallback")


def test_tool_call_answers_and_model_errors() -> None:
    answer = AIMessage(
        content="",
        tool_calls=[{"name": "ToolSelectionResponse", "args": {"tools": ["search"]}, "id": "x"}],
    )
    h = Flaky([], ai_answer())
    LLMToolSelectorMiddleware(selecting(answer)).wrap_model_call(request(), h)  # type: ignore[arg-type]
    assert names(h.requests[0].tools) == ["search"]
    with pytest.raises(TimeoutError):
        LLMToolSelectorMiddleware(selecting(TimeoutError("slow"))).wrap_model_call(request(), h)


def test_missing_always_include_and_no_human() -> None:
    h = Flaky([], ai_answer())
    with pytest.raises(ValueError) as info:
        LLMToolSelectorMiddleware(selecting(), always_include=["nope"]).wrap_model_call(
            request(), h
        )
    assert str(info.value) == (
        "Tools in always_include not found in request: ['nope']. "
        "Available tools: ['calculator', 'search', 'send_email', 'weather']"
    )
    with pytest.raises(ValueError, match="No user message found"):
        LLMToolSelectorMiddleware(selecting()).wrap_model_call(
            model_request(messages=[AIMessage(content="x")], tools=list(TOOLS)), h
        )


def test_nothing_to_select_skips_the_model() -> None:
    sel = selecting()
    h = Flaky([], ai_answer())
    mw = LLMToolSelectorMiddleware(sel, always_include=["search"])
    req = model_request(tools=[search])
    mw.wrap_model_call(req, h)
    assert h.requests[0] is req and sel.calls == []


def test_agent_model_is_used_when_none_given_and_profile_decides_the_format() -> None:
    agent_model = ScriptedChatModel(
        ['{"tools": ["search"]}'], profile=ModelProfile(structured_output=False)
    )
    h = Flaky([], ai_answer())
    LLMToolSelectorMiddleware().wrap_model_call(request(model=agent_model), h)
    assert names(h.requests[0].tools) == ["search"]
    assert agent_model.calls[0].response_format is None


async def test_async_selection() -> None:
    sel = selecting("not json", '{"tools": ["send_email", "search"]}')
    h = Flaky([], ai_answer())
    with captured_events() as events:
        await LLMToolSelectorMiddleware(sel).awrap_model_call(request(), h.acall)
    assert names(h.requests[0].tools) == ["search", "send_email"]
    assert [a.action for a in actions(events)] == ["tool_selection_retry", "tools_selected"]
