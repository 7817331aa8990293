"""SummarizationMiddleware: triggers, keep, safe cutoffs, failures (scenario 26, hook level)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.messages import (
    REMOVE_ALL_MESSAGES,
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    ToolMessage,
    add_messages,
)
from engine.middleware import retry_policy
from engine.middleware.summarization import SUMMARY_PREFIX, SummarizationMiddleware
from engine.models import ModelProfile, ScriptedChatModel
from tests.engine.middleware.helpers import actions, captured_events


def chat(n: int) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for i in range(n):
        cls = HumanMessage if i % 2 == 0 else AIMessage
        out.append(cls(content=f"message {i}", id=f"m{i}"))
    return out


def summarizer(*replies: Any, **kw: Any) -> SummarizationMiddleware:
    return SummarizationMiddleware(
        ScriptedChatModel(list(replies) or ["the summary"], name="sum"), **kw
    )


def test_validation_texts() -> None:
    model = ScriptedChatModel([])
    with pytest.raises(ValueError) as info:
        SummarizationMiddleware(model, trigger=("messages", 0))
    assert str(info.value) == "trigger thresholds must be greater than 0, got 0."
    with pytest.raises(ValueError) as info:
        SummarizationMiddleware(model, keep=("messages", -1))
    assert str(info.value) == "keep thresholds must be greater than 0, got -1."
    with pytest.raises(ValueError) as info:
        SummarizationMiddleware(model, trigger=("fraction", 1.5))
    assert str(info.value) == "Fractional trigger values must be between 0 and 1, got 1.5."
    with pytest.raises(ValueError) as info:
        SummarizationMiddleware(model, trigger=("turns", 3))  # type: ignore[arg-type]
    assert str(info.value) == "Unsupported context size type turns for trigger."
    with pytest.raises(ValueError, match="Model profile information is required"):
        SummarizationMiddleware(model, trigger=("fraction", 0.5))
    with pytest.raises(ValueError, match="placeholder"):
        SummarizationMiddleware(model, summary_prompt="no slot")
    with pytest.raises(ValueError, match="needs a model"):
        SummarizationMiddleware(None)


def test_scenario_26_keep_two_replaces_history_with_summary_plus_two() -> None:
    mw = summarizer("They greeted and chatted.", trigger=("messages", 6), keep=("messages", 2))
    history = chat(6)
    with captured_events() as events:
        update = mw.before_model({"messages": history}, None)  # type: ignore[arg-type]
    assert update is not None
    remove, summary, *kept = update["messages"]
    assert isinstance(remove, RemoveMessage) and remove.id == REMOVE_ALL_MESSAGES
    assert isinstance(summary, HumanMessage)
    assert (
        summary.content
        == "Here is a summary of the conversation to date:\n\nThey greeted and chatted."
    )
    assert summary.content == SUMMARY_PREFIX + "They greeted and chatted."
    assert [m.id for m in kept] == ["m4", "m5"]
    # what the summary model was asked
    (call,) = mw.model.calls
    prompt = call.messages[0].text
    assert "Human: message 0" in prompt and "AI: message 3" in prompt and "message 4" not in prompt
    # applied through the reducer the state becomes summary + 2
    new_state = add_messages(history, update["messages"])
    assert [m.text for m in new_state][1:] == ["message 4", "message 5"]
    assert len(new_state) == 3
    (done,) = actions(events, "summarized")
    assert done.detail["summarized"] == 4 and done.detail["kept"] == 2
    assert done.detail["summary"] == "They greeted and chatted."


def test_below_trigger_or_no_trigger_does_nothing() -> None:
    mw = summarizer(trigger=("messages", 10), keep=("messages", 2))
    assert mw.before_model({"messages": chat(9)}, None) is None  # type: ignore[arg-type]
    never = summarizer(keep=("messages", 1))
    assert never.before_model({"messages": chat(50)}, None) is None  # type: ignore[arg-type]
    assert never.model.calls == []


def test_any_of_several_triggers() -> None:
    mw = summarizer(trigger=[("tokens", 10_000), ("messages", 4)], keep=("messages", 1))
    update = mw.before_model({"messages": chat(4)}, None)  # type: ignore[arg-type]
    assert update is not None and [m.id for m in update["messages"][2:]] == ["m3"]


def test_token_trigger_and_token_keep() -> None:
    msgs = [HumanMessage(content="x" * 400, id=f"b{i}") for i in range(5)]  # ~103 tokens each
    mw = summarizer(trigger=("tokens", 500), keep=("tokens", 250))
    update = mw.before_model({"messages": msgs}, None)  # type: ignore[arg-type]
    assert update is not None and [m.id for m in update["messages"][2:]] == ["b3", "b4"]
    assert summarizer(trigger=("tokens", 600)).before_model({"messages": msgs}, None) is None  # type: ignore[arg-type]


def test_fraction_uses_the_model_profile() -> None:
    model = ScriptedChatModel(["short"], profile=ModelProfile(max_input_tokens=1000))
    mw = SummarizationMiddleware(model, trigger=("fraction", 0.3), keep=("messages", 1))
    msgs = [HumanMessage(content="y" * 400, id=f"f{i}") for i in range(3)]  # ~309 tokens >= 300
    update = mw.before_model({"messages": msgs}, None)  # type: ignore[arg-type]
    assert update is not None and [m.id for m in update["messages"][2:]] == ["f2"]


def test_cutoff_never_separates_a_tool_result_from_its_call() -> None:
    msgs: list[BaseMessage] = [
        HumanMessage(content="q", id="h"),
        AIMessage(
            content="",
            id="ai1",
            tool_calls=[{"name": "a", "args": {}, "id": "x"}, {"name": "b", "args": {}, "id": "y"}],
        ),
        ToolMessage(content="ra", tool_call_id="x", id="tx"),
        ToolMessage(content="rb", tool_call_id="y", id="ty"),
        AIMessage(content="final", id="ai2"),
    ]
    mw = summarizer(trigger=("messages", 2), keep=("messages", 2))  # naive cutoff at "ty"
    assert mw.find_cutoff(msgs) == 1
    update = mw.before_model({"messages": msgs}, None)  # type: ignore[arg-type]
    assert update is not None
    assert [m.id for m in update["messages"][2:]] == ["ai1", "tx", "ty", "ai2"]
    only_pair = summarizer(trigger=("messages", 2), keep=("messages", 3))
    assert only_pair.find_cutoff(msgs[1:4]) == 0
    assert only_pair.before_model({"messages": msgs[1:4]}, None) is None  # type: ignore[arg-type]


@pytest.fixture
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr(retry_policy, "sleep_sync", slept.append)
    return slept


def test_a_failed_summary_is_retried_then_raises(no_sleep: list[float]) -> None:
    down = RuntimeError("summary model down")
    mw = summarizer(down, down, down, trigger=("messages", 3), keep=("messages", 1))
    history = chat(5)
    with captured_events() as events, pytest.raises(RuntimeError, match="summary model down"):
        mw.before_model({"messages": history}, None)  # type: ignore[arg-type]
    assert len(no_sleep) == 2  # three attempts in all
    (failed,) = actions(events, "summarization_failed")
    assert failed.detail["error"]["message"] == "summary model down"
    assert not actions(events, "summarized")
    assert [m.id for m in history] == [f"m{i}" for i in range(5)]


def test_a_transient_failure_is_retried(no_sleep: list[float]) -> None:
    mw = summarizer(
        RuntimeError("blip"), "the summary", trigger=("messages", 3), keep=("messages", 1)
    )
    update = mw.before_model({"messages": chat(5)}, None)  # type: ignore[arg-type]
    assert update is not None and update["messages"][1].text.endswith("the summary")
    assert len(no_sleep) == 1


def test_a_permanent_failure_is_not_retried(no_sleep: list[float]) -> None:
    class Denied(Exception):
        is_retryable = False

    mw = summarizer(Denied("bad key"), trigger=("messages", 3), keep=("messages", 1))
    with pytest.raises(Denied):
        mw.before_model({"messages": chat(5)}, None)  # type: ignore[arg-type]
    assert no_sleep == []


def test_keep_history_on_failure_option_goes_on_without_a_summary(no_sleep: list[float]) -> None:
    down = RuntimeError("summary model down")
    mw = summarizer(
        down,
        down,
        down,
        trigger=("messages", 3),
        keep=("messages", 1),
        keep_history_on_failure=True,
    )
    with captured_events() as events:
        assert mw.before_model({"messages": chat(5)}, None) is None  # type: ignore[arg-type]
    assert actions(events, "summarization_failed")


def test_long_histories_are_trimmed_before_summarizing() -> None:
    msgs = [HumanMessage(content=f"{i}" * 400, id=f"l{i}") for i in range(10)]
    mw = summarizer(trigger=("messages", 5), keep=("messages", 1), trim_tokens_to_summarize=250)
    mw.before_model({"messages": msgs}, None)  # type: ignore[arg-type]
    prompt = mw.model.calls[0].messages[0].text
    assert "8888" in prompt and "7777" in prompt and "6666" not in prompt


async def test_async_summarizes_with_ainvoke() -> None:
    mw = summarizer("async summary", trigger=("messages", 4), keep=("messages", 2))
    with captured_events() as events:
        update = await mw.abefore_model({"messages": chat(4)}, None)  # type: ignore[arg-type]
    assert update is not None and update["messages"][1].content == SUMMARY_PREFIX + "async summary"
    assert actions(events, "summarized")
