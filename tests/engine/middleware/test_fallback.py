"""ModelFallbackMiddleware, alone and composed with ModelRetry (scenario 17)."""

from __future__ import annotations

import pytest

from engine.errors import GraphInterrupt
from engine.messages import AIMessage
from engine.middleware.fallback import ModelFallbackMiddleware
from engine.middleware.model_retry import ModelRetryMiddleware
from engine.middleware.types import ModelResponse
from engine.models import ScriptedChatModel
from tests.engine.middleware.helpers import (
    Flaky,
    NamedModel,
    achain_model,
    actions,
    ai_answer,
    amodel_from_request,
    captured_events,
    chain_model,
    model_from_request,
    model_request,
    of_kind,
)


def test_needs_a_model() -> None:
    with pytest.raises(TypeError):
        ModelFallbackMiddleware()  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="must not be None"):
        ModelFallbackMiddleware(None)


def test_string_models_are_resolved(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-xyz")
    mw = ModelFallbackMiddleware("openai:gpt-4o-mini")
    assert mw.models[0].model_name == "gpt-4o-mini"


def test_primary_ok_no_fallback() -> None:
    mw = ModelFallbackMiddleware(NamedModel("m2"))
    h = Flaky([], ai_answer("primary answer"))
    with captured_events() as events:
        mw.wrap_model_call(model_request(), h)
    assert [r.model.model_name for r in h.requests] == ["primary"]
    assert [(e.attempt, e.max_attempts) for e in of_kind(events, "attempt.started")] == [(1, 2)]
    assert not actions(events)


def test_switches_in_order_and_reports_it() -> None:
    m2, m3 = NamedModel("m2"), NamedModel("m3")
    mw = ModelFallbackMiddleware(m2, m3)
    h = Flaky([RuntimeError("primary down"), TimeoutError("m2 slow")], ai_answer("from m3"))
    with captured_events() as events:
        result = mw.wrap_model_call(model_request(), h)
    assert isinstance(result, ModelResponse) and result.result[0].text == "from m3"
    assert [r.model for r in h.requests][1:] == [m2, m3]
    finished = of_kind(events, "attempt.finished")
    assert [(e.attempt, e.model, e.outcome, e.fallback_model) for e in finished] == [
        (1, "primary", "error", "m2"),
        (2, "m2", "error", "m3"),
        (3, "m3", "ok", None),
    ]
    switches = actions(events, "fallback_switch")
    assert [(a.detail["from"], a.detail["to"], a.detail["error"]["type"]) for a in switches] == [
        ("primary", "m2", "RuntimeError"),
        ("m2", "m3", "TimeoutError"),
    ]
    assert h.spans == [e.span_id for e in of_kind(events, "attempt.started")]


def test_all_fail_raises_the_last_exception() -> None:
    mw = ModelFallbackMiddleware(NamedModel("m2"))
    last = ValueError("m2 failed too")
    with captured_events() as events, pytest.raises(ValueError) as info:
        mw.wrap_model_call(model_request(), Flaky([RuntimeError("p"), last], ai_answer()))
    assert info.value is last
    assert actions(events, "fallback_exhausted")[0].detail["models"] == ["primary", "m2"]


def test_interrupts_do_not_switch_models() -> None:
    mw = ModelFallbackMiddleware(NamedModel("m2"))
    h = Flaky([GraphInterrupt(())], ai_answer())
    with pytest.raises(GraphInterrupt):
        mw.wrap_model_call(model_request(), h)
    assert h.calls == 1


def test_scenario_17_retry_around_fallback_with_real_models() -> None:
    primary = ScriptedChatModel([RuntimeError("p1"), RuntimeError("p2")], name="primary")
    m2 = ScriptedChatModel([RuntimeError("m2 once"), "answer from m2"], name="m2")
    retry = ModelRetryMiddleware(max_retries=1, initial_delay=0.001, jitter=False)
    fallback = ModelFallbackMiddleware(m2)
    with captured_events() as events:
        result = chain_model([retry, fallback], model_from_request)(model_request(primary))
    assert isinstance(result, ModelResponse)
    (msg,) = result.result
    assert isinstance(msg, AIMessage) and msg.text == "answer from m2"
    assert len(primary.calls) == 2 and len(m2.calls) == 2
    retry_attempts = [
        e for e in of_kind(events, "attempt.started") if e.middleware == "ModelRetryMiddleware"
    ]
    fallback_attempts = [
        e for e in of_kind(events, "attempt.started") if e.middleware == "ModelFallbackMiddleware"
    ]
    assert [e.attempt for e in retry_attempts] == [1, 2]
    assert [(e.attempt, e.model) for e in fallback_attempts] == [(1, "primary"), (2, "m2")] * 2
    # fallback attempts nest inside the retry attempt that ran them
    assert [e.parent_span_id for e in fallback_attempts] == [retry_attempts[0].span_id] * 2 + [
        retry_attempts[1].span_id
    ] * 2


async def test_scenario_17_async() -> None:
    primary = ScriptedChatModel([RuntimeError("p1"), RuntimeError("p2")], name="primary")
    m2 = ScriptedChatModel([RuntimeError("m2 once"), "answer from m2"], name="m2")
    retry = ModelRetryMiddleware(max_retries=1, initial_delay=0.001, jitter=False)
    handler = achain_model([retry, ModelFallbackMiddleware(m2)], amodel_from_request)
    with captured_events() as events:
        result = await handler(model_request(primary))
    assert isinstance(result, ModelResponse) and result.result[0].text == "answer from m2"
    assert len(primary.calls) == 2 and len(m2.calls) == 2
    assert len(actions(events, "fallback_switch")) == 2


def test_fallback_outside_retry_retries_each_model() -> None:
    """[ModelFallback, ModelRetry]: every model gets its own retry budget."""
    primary = ScriptedChatModel([RuntimeError("a"), RuntimeError("b")], name="primary")
    m2 = ScriptedChatModel([RuntimeError("c"), "m2 ok"], name="m2")
    retry = ModelRetryMiddleware(max_retries=1, on_failure="error", initial_delay=0.001)
    result = chain_model([ModelFallbackMiddleware(m2), retry], model_from_request)(
        model_request(primary)
    )
    assert isinstance(result, ModelResponse) and result.result[0].text == "m2 ok"
    assert len(primary.calls) == 2 and len(m2.calls) == 2


def test_a_failing_sanitizer_surfaces_instead_of_falling_further(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from engine.middleware import fallback

    def broken(request: object, model: object = None) -> object:
        raise RuntimeError("sanitizer bug")

    monkeypatch.setattr(fallback, "sanitized_for", broken)
    mw = ModelFallbackMiddleware(NamedModel("m2"), NamedModel("m3"))
    h = Flaky([RuntimeError("primary down")], ai_answer("from m2"))
    with pytest.raises(RuntimeError, match="sanitizer bug"):
        mw.wrap_model_call(model_request(), h)
    assert [r.model.model_name for r in h.requests] == ["primary"]  # m3 was never tried
