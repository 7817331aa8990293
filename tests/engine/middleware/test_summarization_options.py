"""SummarizationMiddleware: AND/OR trigger clauses, summarizer functions, deprecated names."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest

from engine.messages import AIMessage, BaseMessage, HumanMessage
from engine.middleware.summarization import SummarizationMiddleware
from engine.models import ScriptedChatModel


def turns(n: int) -> list[BaseMessage]:
    return [
        (HumanMessage if i % 2 == 0 else AIMessage)(content=f"turn {i}", id=f"t{i}")
        for i in range(n)
    ]


def mw(**kw: Any) -> SummarizationMiddleware:
    return SummarizationMiddleware(ScriptedChatModel(["short"] * 5, name="sum"), **kw)


def test_a_clause_needs_every_threshold_and_a_list_needs_any_clause() -> None:
    both = mw(trigger={"tokens": 50, "messages": 4}, keep=("messages", 1), token_counter=len)
    # token_counter=len counts messages: 6 "tokens" for 6 messages, below 50
    assert both.before_model({"messages": turns(6)}, None) is None  # type: ignore[arg-type]
    either = mw(
        trigger=[{"tokens": 50, "messages": 4}, ("messages", 6)],
        keep=("messages", 1),
        token_counter=len,
    )
    assert either.before_model({"messages": turns(6)}, None) is not None  # type: ignore[arg-type]
    assert either.trigger_clauses == [{"tokens": 50, "messages": 4}, {"messages": 6}]


def test_trigger_is_copied_and_kept_as_given() -> None:
    clause: dict[str, Any] = {"messages": 3}
    m = mw(trigger=[clause])
    clause["messages"] = 99
    assert m.trigger == [{"messages": 3}]
    assert mw(trigger=("tokens", 10)).trigger == ("tokens", 10)


@pytest.mark.parametrize(
    ("trigger", "error", "text"),
    [
        ({}, ValueError, "at least one of"),
        ({"turns": 3}, ValueError, "Unsupported trigger metric: 'turns'"),
        ({"messages": True}, ValueError, "messages trigger value must be numeric"),
        ({"tokens": 2.5}, ValueError, "tokens trigger values must be integers"),
        ({"fraction": "x"}, ValueError, "Fraction trigger values must be numeric"),
        ({"messages": 0}, ValueError, "trigger thresholds must be greater than 0"),
        (["nope"], TypeError, "Unsupported trigger item type"),
        ("nope", TypeError, "Unsupported trigger type"),
    ],
)
def test_bad_triggers_are_refused(trigger: Any, error: type[Exception], text: str) -> None:
    with pytest.raises(error, match=text):
        mw(trigger=trigger)


def test_reported_usage_can_reach_a_token_threshold() -> None:
    model = ScriptedChatModel(["s"], name="sum")
    model.provider = "acme"  # type: ignore[attr-defined]
    m = SummarizationMiddleware(model, trigger={"tokens": 1000}, token_counter=lambda _m: 0)
    reported = AIMessage(
        content="hi",
        response_metadata={"model_provider": "acme"},
        usage_metadata={"input_tokens": 900, "output_tokens": 200, "total_tokens": 1100},
    )
    assert m.should_summarize([HumanMessage(content="q"), reported], 0)
    other = reported.model_copy(update={"response_metadata": {"model_provider": "other"}})
    assert not m.should_summarize([HumanMessage(content="q"), other], 0)


def test_a_summarizer_function_writes_the_summary_instead_of_the_model() -> None:
    seen: list[list[BaseMessage]] = []

    def summarize(messages: list[BaseMessage]) -> str:
        seen.append(messages)
        return "  by hand  "

    m = mw(trigger=("messages", 3), keep=("messages", 1), summarizer=summarize)
    history = turns(3)
    update = m.before_model({"messages": history}, None)  # type: ignore[arg-type]
    assert update is not None
    summary = update["messages"][1]
    assert summary.text.endswith("by hand") and summary.additional_kwargs["lc_source"]
    assert seen == [history[:2]]
    assert m.model.calls == []  # type: ignore[attr-defined]


def test_summarizer_functions_sync_and_async() -> None:
    async def summarize_async(messages: list[BaseMessage]) -> str:
        return f"{len(messages)} summarized"

    m = mw(trigger=("messages", 3), keep=("messages", 1), summarizer=summarize_async)
    update = asyncio.run(m.abefore_model({"messages": turns(3)}, None))  # type: ignore[arg-type]
    assert update is not None and update["messages"][1].text.endswith("2 summarized")
    with pytest.raises(TypeError, match="coroutine function synchronously"):
        m.before_model({"messages": turns(3)}, None)  # type: ignore[arg-type]
    bad = mw(trigger=("messages", 3), keep=("messages", 1), summarizer=lambda _m: 42)
    with pytest.raises(TypeError, match="`summarizer` must return a str, got int"):
        bad.before_model({"messages": turns(3)}, None)  # type: ignore[arg-type]


def test_a_chat_model_summarizer_is_prompted_instead_of_model() -> None:
    writer = ScriptedChatModel(["from the writer"], name="writer")
    m = mw(trigger=("messages", 3), keep=("messages", 1), summarizer=writer)
    update = m.before_model({"messages": turns(3)}, None)  # type: ignore[arg-type]
    assert update is not None and update["messages"][1].text.endswith("from the writer")
    assert m.model.calls == [] and len(writer.calls) == 1  # type: ignore[attr-defined]


def test_deprecated_spellings_still_work_with_a_warning() -> None:
    with pytest.warns(DeprecationWarning, match="max_tokens_before_summary is deprecated"):
        m = mw(max_tokens_before_summary=500)
    assert m.trigger == ("tokens", 500)
    with pytest.warns(DeprecationWarning, match="messages_to_keep is deprecated"):
        m = mw(messages_to_keep=3)
    assert m.keep == ("messages", 3)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        explicit = mw(trigger=("messages", 9), max_tokens_before_summary=500)
    assert explicit.trigger == ("messages", 9)  # the new spelling wins
    with pytest.raises(TypeError, match="unexpected"):
        mw(max_summary=3)


def test_model_strings_resolve_through_the_modules_init_chat_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from engine.middleware import summarization
    from engine.models import ScriptedChatModel

    made: list[str] = []

    def fake_init(model: str, **_: object) -> ScriptedChatModel:
        made.append(model)
        return ScriptedChatModel(["summary"])

    monkeypatch.setattr(summarization, "init_chat_model", fake_init)
    mw = summarization.SummarizationMiddleware(model="acme:m1", summarizer="acme:m2")
    assert made == ["acme:m1", "acme:m2"]
    assert isinstance(mw.model, ScriptedChatModel) and mw.summary_model is not mw.model
