"""ContextEditingMiddleware + ClearToolUsesEdit: request-only edits and their report."""

from __future__ import annotations

import math
from typing import Any

import pytest

from engine.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from engine.middleware.context_editing import (
    ClearToolUsesEdit,
    ContextEditingMiddleware,
    count_tokens_approximately,
)
from tests.engine.middleware.helpers import (
    Flaky,
    actions,
    ai_answer,
    captured_events,
    model_request,
)


def conversation(
    n: int, size: int = 400, tools: tuple[str, ...] = ("search",)
) -> list[BaseMessage]:
    """Human, then n rounds of AI(tool call) + ToolMessage(size chars)."""
    msgs: list[BaseMessage] = [HumanMessage(content="research this")]
    for i in range(n):
        name = tools[i % len(tools)]
        msgs.append(
            AIMessage(
                content="", tool_calls=[{"name": name, "args": {"q": f"query {i}"}, "id": f"t{i}"}]
            )
        )
        msgs.append(ToolMessage(content=f"{i}" * size, tool_call_id=f"t{i}", name=name))
    return msgs


def tool_contents(messages: list[BaseMessage]) -> list[str]:
    return [
        m.text if m.text == "[cleared]" else m.text[:1]
        for m in messages
        if isinstance(m, ToolMessage)
    ]


def test_defaults_and_validation() -> None:
    edit = ClearToolUsesEdit()
    assert (edit.trigger, edit.clear_at_least, edit.keep, edit.clear_tool_inputs) == (
        100_000,
        0,
        3,
        False,
    )
    assert (tuple(edit.exclude_tools), edit.placeholder) == ((), "[cleared]")
    with pytest.raises(ValueError, match=r"^keep must be >= 0$"):
        ClearToolUsesEdit(keep=-1)
    with pytest.raises(ValueError, match=r"^trigger must be >= 0$"):
        ClearToolUsesEdit(trigger=-5)
    with pytest.raises(ValueError, match=r"^clear_at_least must be >= 0$"):
        ClearToolUsesEdit(clear_at_least=-1)
    with pytest.raises(ValueError, match="exclude_tools must be a sequence"):
        ClearToolUsesEdit(exclude_tools="search")
    with pytest.raises(ValueError, match="token_count_method must be 'approximate' or 'model'"):
        ContextEditingMiddleware(token_count_method="exact")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="apply"):
        ContextEditingMiddleware(edits=[object()])  # type: ignore[list-item]
    assert isinstance(ContextEditingMiddleware().edits[0], ClearToolUsesEdit)


def test_approximate_counter() -> None:
    # 400 chars + "user" (4) -> ceil(404 / 4) + 3
    assert count_tokens_approximately([HumanMessage(content="x" * 400)]) == 104
    with_call = AIMessage(content="", tool_calls=[{"name": "abcd", "args": {"k": "v"}, "id": "1"}])
    # the tool calls' repr (70 chars) + "assistant" (9) -> ceil(79 / 4) + 3
    assert count_tokens_approximately([with_call]) == 20 + 3
    assert count_tokens_approximately([]) == 0


def test_the_approximate_counter_counts_as_langchains() -> None:
    """A trigger in tokens (summarization, context editing) fires on the turn it fires on in
    LangChain only if the estimate is the same: compared with langchain_core's own."""
    import pytest

    lc = pytest.importorskip("langchain_core.messages.utils")
    from engine.messages import SystemMessage

    samples = [
        HumanMessage(content="hello there", name="ada"),
        SystemMessage(content="be brief"),
        AIMessage(content="", tool_calls=[{"name": "big", "args": {"n": 0}, "id": "b0"}]),
        ToolMessage(content="x" * 51, tool_call_id="b0", name="big"),
        HumanMessage(
            content=[
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": "data:x"}},
                {"type": "file", "id": "f1"},
                "plain",
            ]
        ),
        AIMessage(
            content="done",
            usage_metadata={"input_tokens": 90, "output_tokens": 10, "total_tokens": 100},
            response_metadata={"model_provider": "openai"},
        ),
    ]
    theirs = [m.model_dump(exclude={"id"}) for m in samples]
    for kw in (
        {},
        {"count_name": False, "chars_per_token": 3.3},
        {"use_usage_metadata_scaling": True},
    ):
        for n in range(1, len(samples) + 1):
            real = lc.count_tokens_approximately(
                [_lc_message(d) for d in theirs[:n]],
                **kw,  # type: ignore[arg-type]
            )
            assert count_tokens_approximately(samples[:n], **kw) == real, (n, kw)


def _lc_message(fields: dict[str, Any]) -> Any:
    from langchain_core.messages import convert_to_messages

    [message] = convert_to_messages([{k: v for k, v in fields.items() if v is not None}])
    return message


def test_below_trigger_nothing_changes() -> None:
    mw = ContextEditingMiddleware([ClearToolUsesEdit(trigger=10_000)])
    req = model_request(messages=conversation(5))
    h = Flaky([], ai_answer())
    with captured_events() as events:
        mw.wrap_model_call(req, h)
    assert h.requests[0] is req and not events


def test_clears_all_but_the_last_keep_and_reports() -> None:
    mw = ContextEditingMiddleware([ClearToolUsesEdit(trigger=200, keep=2)])
    state_messages = conversation(5)
    req = model_request(messages=state_messages)
    h = Flaky([], ai_answer())
    with captured_events() as events:
        mw.wrap_model_call(req, h)
    sent = h.requests[0].messages
    assert tool_contents(sent) == ["[cleared]", "[cleared]", "[cleared]", "3", "4"]
    cleared = [m for m in sent if isinstance(m, ToolMessage) and m.text == "[cleared]"]
    assert all(m.response_metadata["context_editing"]["cleared"] for m in cleared)
    assert [m.id for m in sent] == [m.id for m in state_messages]
    # the state (the request's own list) is untouched
    assert tool_contents(state_messages) == ["0", "1", "2", "3", "4"]
    assert tool_contents(req.messages) == ["0", "1", "2", "3", "4"]
    (edit,) = actions(events, "context_edit")
    assert edit.detail["cleared"] == ["t0", "t1", "t2"]
    assert edit.detail["tokens_before"] > edit.detail["tokens_after"]
    assert edit.detail["tokens_before"] == count_tokens_approximately(state_messages)


def test_system_message_counts_towards_the_trigger() -> None:
    small = conversation(1, size=8)
    edit = ClearToolUsesEdit(trigger=count_tokens_approximately(small), keep=0)
    mw = ContextEditingMiddleware([edit])
    h = Flaky([], ai_answer())
    mw.wrap_model_call(model_request(messages=small), h)
    assert tool_contents(h.requests[0].messages) == ["0"]
    mw.wrap_model_call(
        model_request(messages=small, system_message=SystemMessage(content="be brief")), h
    )
    assert tool_contents(h.requests[1].messages) == ["[cleared]"]


def test_exclude_tools_and_already_cleared_are_skipped() -> None:
    msgs = conversation(4, tools=("search", "read_secret"))
    mw = ContextEditingMiddleware(
        [ClearToolUsesEdit(trigger=10, keep=0, exclude_tools=["read_secret"])]
    )
    h = Flaky([], ai_answer())
    with captured_events() as events:
        mw.wrap_model_call(model_request(messages=msgs), h)
    assert tool_contents(h.requests[0].messages) == ["[cleared]", "1", "[cleared]", "3"]
    assert actions(events, "context_edit")[0].detail["cleared"] == ["t0", "t2"]
    with captured_events() as events:
        mw.wrap_model_call(model_request(messages=h.requests[0].messages), h)
    assert not events  # nothing new to clear


def test_clear_at_least_stops_early() -> None:
    msgs = conversation(5, size=400)
    mw = ContextEditingMiddleware([ClearToolUsesEdit(trigger=10, keep=0, clear_at_least=150)])
    h = Flaky([], ai_answer())
    mw.wrap_model_call(model_request(messages=msgs), h)
    assert tool_contents(h.requests[0].messages) == ["[cleared]", "[cleared]", "2", "3", "4"]


def test_clear_tool_inputs_empties_the_call_args() -> None:
    msgs = conversation(2)
    mw = ContextEditingMiddleware(
        [ClearToolUsesEdit(trigger=10, keep=1, clear_tool_inputs=True, placeholder="<gone>")]
    )
    h = Flaky([], ai_answer())
    mw.wrap_model_call(model_request(messages=msgs), h)
    sent = h.requests[0].messages
    assert sent[1].tool_calls[0]["args"] == {} and sent[1].response_metadata["context_editing"][
        "cleared_tool_inputs"
    ] == ["t0"]
    assert sent[2].text == "<gone>"
    assert sent[3].tool_calls[0]["args"] == {"q": "query 1"}
    assert msgs[1].tool_calls[0]["args"] == {"q": "query 0"}


def test_custom_token_counter() -> None:
    mw = ContextEditingMiddleware([ClearToolUsesEdit(trigger=3, keep=0)], token_counter=len)
    h = Flaky([], ai_answer())
    mw.wrap_model_call(model_request(messages=conversation(2, size=1)), h)  # 5 messages > 3
    assert tool_contents(h.requests[0].messages) == ["[cleared]", "[cleared]"]


async def test_async_edits_the_request() -> None:
    mw = ContextEditingMiddleware([ClearToolUsesEdit(trigger=100, keep=1)])
    h = Flaky([], ai_answer())
    with captured_events() as events:
        await mw.awrap_model_call(model_request(messages=conversation(3)), h.acall)
    assert tool_contents(h.requests[0].messages) == ["[cleared]", "[cleared]", "2"]
    assert actions(events, "context_edit")[0].detail["cleared"] == ["t0", "t1"]


def test_token_count_method_model_asks_the_request_model() -> None:
    class Counting:
        seen: list[int] = []

        def get_num_tokens_from_messages(self, messages: list[Any], tools: Any) -> int:
            self.seen.append(len(messages))
            return 10_000  # always above the trigger

    counting = Counting()
    mw = ContextEditingMiddleware(
        [ClearToolUsesEdit(trigger=100, keep=0)], token_count_method="model"
    )
    calls = [AIMessage(content="", tool_calls=[{"name": "t", "args": {}, "id": "a"}])]
    msgs = [HumanMessage(content="q"), *calls, ToolMessage(content="long result", tool_call_id="a")]
    seen: list[Any] = []
    mw.wrap_model_call(model_request(model=counting, messages=msgs), lambda r: seen.append(r))
    assert counting.seen and seen[0].messages[-1].content == "[cleared]"


def test_usage_metadata_scaling_calibrates_on_the_reported_total() -> None:
    def ai(total: int | None, provider: str = "acme") -> AIMessage:
        usage = {"input_tokens": 0, "output_tokens": 0, "total_tokens": total} if total else None
        return AIMessage(
            content="x" * 40, response_metadata={"model_provider": provider}, usage_metadata=usage
        )

    plain = [HumanMessage(content="y" * 40), ai(None)]
    base = count_tokens_approximately(plain)
    assert count_tokens_approximately(plain, use_usage_metadata_scaling=True) == base  # no report
    big = [HumanMessage(content="y" * 40), ai(1000)]
    assert count_tokens_approximately(big, use_usage_metadata_scaling=True) == math.ceil(
        base * 1.25
    )
    low = [HumanMessage(content="y" * 40), ai(1)]
    assert count_tokens_approximately(low, use_usage_metadata_scaling=True) == base  # never < 1.0
    mixed = [HumanMessage(content="y" * 40), ai(1000), ai(None, provider="other")]
    assert count_tokens_approximately(mixed, use_usage_metadata_scaling=True) == (
        count_tokens_approximately(mixed)
    )
