"""Retry middleware waits as long as the server's Retry-After hint asks (capped by max_delay)."""

from __future__ import annotations

import pytest

from engine.middleware import retry_policy
from engine.middleware.model_retry import ModelRetryMiddleware
from engine.models import RateLimitError
from tests.engine.middleware.helpers import (
    Flaky,
    ai_answer,
    captured_events,
    model_request,
    of_kind,
)


def _limited(seconds: float | None) -> RateLimitError:
    return RateLimitError("HTTP 429: slow down", retry_after=seconds)


def test_retry_after_replaces_the_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(retry_policy, "sleep_sync", slept.append)
    mw = ModelRetryMiddleware(max_retries=2, initial_delay=0.2, jitter=False)
    with captured_events() as events:
        mw.wrap_model_call(model_request(), Flaky([_limited(2.0), _limited(None)], ai_answer()))
    assert slept == [2.0, 0.4]  # the hint, then the ordinary backoff when there is none
    assert [e.delay_s for e in of_kind(events, "attempt.finished")] == [2.0, 0.4, None]


def test_retry_after_is_capped_by_max_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(retry_policy, "sleep_sync", slept.append)
    mw = ModelRetryMiddleware(max_retries=1, initial_delay=0.2, max_delay=5.0, jitter=False)
    mw.wrap_model_call(model_request(), Flaky([_limited(3600.0)], ai_answer()))
    assert slept == [5.0]


async def test_retry_after_async(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []

    async def fake_sleep(s: float) -> None:
        slept.append(s)

    monkeypatch.setattr(retry_policy, "sleep_async", fake_sleep)
    mw = ModelRetryMiddleware(max_retries=1, initial_delay=0.1, jitter=True)
    handler = Flaky([_limited(1.5)], ai_answer())
    await mw.awrap_model_call(model_request(), handler.acall)
    assert slept == [1.5]  # no jitter on a server-given wait
