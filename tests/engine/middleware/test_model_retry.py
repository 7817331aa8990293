"""ModelRetryMiddleware: retries, failure handling, events, sync and async."""

from __future__ import annotations

import time

import pytest

from engine.errors import GraphInterrupt
from engine.events import AttemptFinished, AttemptStarted
from engine.messages import AIMessage
from engine.middleware import retry_policy
from engine.middleware.model_retry import ModelRetryMiddleware
from engine.middleware.types import ModelResponse
from engine.models import ModelTimeoutError
from engine.types import Interrupt
from tests.engine.middleware.helpers import (
    Flaky,
    actions,
    ai_answer,
    captured_events,
    model_request,
    of_kind,
)

FAST = {"initial_delay": 0.001, "jitter": False}


def test_defaults() -> None:
    mw = ModelRetryMiddleware()
    cfg = mw.config
    assert (cfg.max_retries, cfg.retry_on, cfg.on_failure) == (
        2,
        retry_policy.default_retry_on,
        "continue",
    )
    assert (cfg.backoff_factor, cfg.initial_delay, cfg.max_delay, cfg.jitter) == (
        2.0,
        1.0,
        60.0,
        True,
    )
    assert mw.name == "ModelRetryMiddleware"


def test_validation_texts() -> None:
    with pytest.raises(ValueError, match=r"^max_retries must be >= 0$"):
        ModelRetryMiddleware(max_retries=-1)
    with pytest.raises(ValueError, match=r"^initial_delay must be >= 0$"):
        ModelRetryMiddleware(initial_delay=-1)


def test_timeout_then_success_reports_every_attempt() -> None:
    mw = ModelRetryMiddleware(max_retries=2, retry_on=(TimeoutError,), **FAST)
    handler = Flaky([ModelTimeoutError("slow")], ai_answer("plan"))
    with captured_events() as events:
        result = mw.wrap_model_call(model_request(), handler)
    assert isinstance(result, ModelResponse) and result.result[0].text == "plan"
    assert handler.calls == 2
    started = of_kind(events, "attempt.started")
    finished = of_kind(events, "attempt.finished")
    assert [(e.attempt, e.max_attempts, e.model) for e in started] == [
        (1, 3, "primary"),
        (2, 3, "primary"),
    ]
    first, second = finished
    assert (first.outcome, first.will_retry, first.delay_s) == ("error", True, 0.001)
    assert first.error.type == "ModelTimeoutError" and first.error.message == "slow"
    assert (second.outcome, second.will_retry, second.delay_s) == ("ok", False, None)
    # the model call runs inside its attempt's span, which nests in the caller's span
    assert handler.spans == [started[0].span_id, started[1].span_id]
    assert [f.span_id for f in finished] == [s.span_id for s in started]
    assert started[0].span_id != started[1].span_id
    assert not actions(events, "retry_exhausted")


def test_non_matching_exception_is_reraised_at_once() -> None:
    mw = ModelRetryMiddleware(max_retries=5, retry_on=(TimeoutError,), **FAST)
    handler = Flaky([ValueError("bad request")], ai_answer())
    with captured_events() as events, pytest.raises(ValueError, match="bad request"):
        mw.wrap_model_call(model_request(), handler)
    assert handler.calls == 1
    (finished,) = of_kind(events, "attempt.finished")
    assert finished.outcome == "error" and not finished.will_retry
    assert not actions(events, "retry_exhausted")


def test_interrupts_are_never_retried() -> None:
    mw = ModelRetryMiddleware(max_retries=3, **FAST)
    handler = Flaky([GraphInterrupt((Interrupt("ask", "i1"),))], ai_answer())
    with pytest.raises(GraphInterrupt):
        mw.wrap_model_call(model_request(), handler)
    assert handler.calls == 1


def test_scenario_18_exhausted_continue_answers_with_a_failure_message() -> None:
    mw = ModelRetryMiddleware(max_retries=2, **FAST)
    handler = Flaky([RuntimeError("boom")] * 3, ai_answer())
    with captured_events() as events:
        result = mw.wrap_model_call(model_request(), handler)
    assert handler.calls == 3
    assert isinstance(result, ModelResponse)
    (msg,) = result.result
    assert isinstance(msg, AIMessage) and not msg.tool_calls
    assert msg.content == "Model call failed after 3 attempts with RuntimeError: boom"
    (exhausted,) = actions(events, "retry_exhausted")
    assert exhausted.middleware == "ModelRetryMiddleware"
    assert exhausted.detail["attempts"] == 3 and exhausted.detail["on_failure"] == "continue"
    assert exhausted.detail["error"]["type"] == "RuntimeError"
    assert [e.will_retry for e in of_kind(events, "attempt.finished")] == [True, True, False]


def test_one_attempt_is_singular() -> None:
    mw = ModelRetryMiddleware(max_retries=0)
    result = mw.wrap_model_call(model_request(), Flaky([TimeoutError("t")], ai_answer()))
    assert isinstance(result, ModelResponse)
    assert result.result[0].content == "Model call failed after 1 attempt with TimeoutError: t"


def test_exhausted_error_reraises_the_last_exception() -> None:
    mw = ModelRetryMiddleware(max_retries=1, on_failure="error", **FAST)
    errors = [TimeoutError("first"), TimeoutError("second")]
    last = errors[1]
    with pytest.raises(TimeoutError) as info:
        mw.wrap_model_call(model_request(), Flaky(errors, ai_answer()))
    assert info.value is last


def test_callable_on_failure_gives_the_content() -> None:
    mw = ModelRetryMiddleware(max_retries=1, on_failure=lambda e: f"sorry: {e}", **FAST)
    result = mw.wrap_model_call(model_request(), Flaky([OSError("down")] * 2, ai_answer()))
    assert isinstance(result, ModelResponse) and result.result[0].content == "sorry: down"


def test_predicate_retry_on() -> None:
    mw = ModelRetryMiddleware(retry_on=lambda e: "429" in str(e), **FAST)
    assert mw.wrap_model_call(model_request(), Flaky([RuntimeError("HTTP 429")], ai_answer("ok")))
    with pytest.raises(RuntimeError, match="500"):
        mw.wrap_model_call(model_request(), Flaky([RuntimeError("HTTP 500")], ai_answer()))


def test_by_default_errors_marked_permanent_are_not_retried() -> None:
    class Denied(Exception):
        is_retryable = False

    handler = Flaky([Denied("bad key")], ai_answer())
    with pytest.raises(Denied):
        ModelRetryMiddleware(**FAST).wrap_model_call(model_request(), handler)
    assert len(handler.requests) == 1
    again = Flaky([RuntimeError("blip")], ai_answer("ok"))
    assert ModelRetryMiddleware(**FAST).wrap_model_call(model_request(), again)
    assert len(again.requests) == 2


def test_the_same_request_is_sent_on_every_attempt() -> None:
    mw = ModelRetryMiddleware(**FAST)
    handler = Flaky([TimeoutError(), TimeoutError()], ai_answer())
    req = model_request()
    mw.wrap_model_call(req, handler)
    assert handler.requests == [req, req, req]


def test_backoff_delays_are_slept_for_real(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(retry_policy, "sleep_sync", slept.append)
    mw = ModelRetryMiddleware(max_retries=3, jitter=False)  # default initial 1s, factor 2
    with captured_events() as events:
        mw.wrap_model_call(model_request(), Flaky([TimeoutError()] * 3, ai_answer()))
    assert slept == [1.0, 2.0, 4.0]
    assert [e.delay_s for e in of_kind(events, "attempt.finished")] == [1.0, 2.0, 4.0, None]


def test_real_sleep_takes_the_time() -> None:
    mw = ModelRetryMiddleware(max_retries=2, initial_delay=0.02, backoff_factor=1.0, jitter=False)
    t0 = time.perf_counter()
    mw.wrap_model_call(model_request(), Flaky([TimeoutError()] * 2, ai_answer()))
    assert time.perf_counter() - t0 >= 0.04


async def test_async_retry_matches_sync(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []

    async def fake_sleep(s: float) -> None:
        slept.append(s)

    monkeypatch.setattr(retry_policy, "sleep_async", fake_sleep)
    mw = ModelRetryMiddleware(
        max_retries=2, retry_on=(TimeoutError,), initial_delay=0.5, jitter=False
    )
    handler = Flaky([TimeoutError("t1"), TimeoutError("t2")], ai_answer("finally"))
    with captured_events() as events:
        result = await mw.awrap_model_call(model_request(), handler.acall)
    assert isinstance(result, ModelResponse) and result.result[0].text == "finally"
    assert slept == [0.5, 1.0]
    assert [type(e) for e in events if e.kind.startswith("attempt")] == [
        AttemptStarted,
        AttemptFinished,
        AttemptStarted,
        AttemptFinished,
        AttemptStarted,
        AttemptFinished,
    ]
    assert handler.spans == [e.span_id for e in of_kind(events, "attempt.started")]


async def test_async_exhausted_and_error_modes() -> None:
    cont = ModelRetryMiddleware(max_retries=1, **FAST)
    result = await cont.awrap_model_call(
        model_request(), Flaky([RuntimeError("x")] * 2, ai_answer()).acall
    )
    assert isinstance(result, ModelResponse)
    assert result.result[0].content == "Model call failed after 2 attempts with RuntimeError: x"
    err = ModelRetryMiddleware(max_retries=1, on_failure="error", **FAST)
    with pytest.raises(RuntimeError):
        await err.awrap_model_call(
            model_request(), Flaky([RuntimeError("x")] * 2, ai_answer()).acall
        )


def test_without_a_run_nothing_is_emitted_and_it_still_works() -> None:
    mw = ModelRetryMiddleware(**FAST)
    result = mw.wrap_model_call(model_request(), Flaky([TimeoutError()], ai_answer("fine")))
    assert isinstance(result, ModelResponse) and result.result[0].text == "fine"
