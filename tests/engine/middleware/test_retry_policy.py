"""The shared retry machinery: parameter validation, delays, the step drivers."""

from __future__ import annotations

import asyncio

import pytest

from engine.middleware import retry_policy
from engine.middleware.retry_policy import Call, Emit, RetryConfig, Sleep, drive_async, drive_sync


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_retries": -1}, "max_retries must be >= 0"),
        ({"initial_delay": -0.5}, "initial_delay must be >= 0"),
        ({"max_delay": -1.0}, "max_delay must be >= 0"),
        ({"backoff_factor": -2.0}, "backoff_factor must be >= 0"),
    ],
)
def test_invalid_numbers_raise_with_exact_text(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError) as info:
        RetryConfig(**kwargs)
    assert str(info.value) == message


@pytest.mark.parametrize("rule", [(), ("TimeoutError",), 42, (ValueError, "x")])
def test_invalid_retry_on(rule: object) -> None:
    with pytest.raises(ValueError, match="retry_on must be"):
        RetryConfig(retry_on=rule)  # type: ignore[arg-type]


def test_invalid_on_failure() -> None:
    with pytest.raises(ValueError, match="on_failure must be 'continue', 'error' or a callable"):
        RetryConfig(on_failure="ignore")  # type: ignore[arg-type]


def test_deprecated_on_failure_spellings_warn_and_map() -> None:
    with pytest.warns(DeprecationWarning):
        assert RetryConfig(on_failure="raise").on_failure == "error"  # type: ignore[arg-type]
    with pytest.warns(DeprecationWarning):
        assert RetryConfig(on_failure="return_message").on_failure == "continue"  # type: ignore[arg-type]


def test_retry_on_forms() -> None:
    assert RetryConfig(retry_on=TimeoutError).should_retry(TimeoutError())
    assert not RetryConfig(retry_on=TimeoutError).should_retry(ValueError())
    both = RetryConfig(retry_on=(TimeoutError, OSError))
    assert both.should_retry(OSError("disk")) and not both.should_retry(KeyError())
    pred = RetryConfig(retry_on=lambda e: "transient" in str(e))
    assert pred.should_retry(RuntimeError("transient glitch"))
    assert not pred.should_retry(RuntimeError("fatal"))


def test_exponential_delays_without_jitter() -> None:
    cfg = RetryConfig(initial_delay=1.0, backoff_factor=2.0, max_delay=5.0, jitter=False)
    assert [cfg.delay(k) for k in range(5)] == [1.0, 2.0, 4.0, 5.0, 5.0]


def test_zero_backoff_is_a_constant_delay() -> None:
    cfg = RetryConfig(initial_delay=0.7, backoff_factor=0.0, jitter=False)
    assert [cfg.delay(k) for k in range(3)] == [0.7, 0.7, 0.7]


def test_jitter_stays_within_a_quarter_and_varies() -> None:
    cfg = RetryConfig(initial_delay=4.0, backoff_factor=1.0, jitter=True)
    samples = [cfg.delay(0) for _ in range(400)]
    assert all(3.0 <= s <= 5.0 for s in samples)
    assert min(samples) < 3.5 and max(samples) > 4.5  # really random, really +-25%


def test_zero_delay_has_no_jitter() -> None:
    assert RetryConfig(initial_delay=0.0).delay(3) == 0.0


def _steps():
    yield Emit(retry_policy.MiddlewareAction, {"middleware": "m", "action": "a"})
    yield Sleep(0.001)
    outcome = yield Call("ping")
    assert outcome is not None
    if outcome.error is not None:
        raise outcome.error
    return f"got {outcome.value}"


def test_drive_sync_runs_steps_and_returns() -> None:
    assert drive_sync(_steps(), lambda req: req.upper()) == "got PING"


async def test_drive_async_runs_the_same_steps() -> None:
    async def handler(req: str) -> str:
        await asyncio.sleep(0)
        return req * 2

    assert await drive_async(_steps(), handler) == "got pingping"


def test_drive_passes_handler_errors_to_the_steps() -> None:
    def boom(_req: str) -> str:
        raise KeyError("nope")

    with pytest.raises(KeyError):
        drive_sync(_steps(), boom)


def test_a_call_without_a_handler_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="none was given"):
        drive_sync(_steps())


def test_sleeps_go_through_the_replaceable_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(retry_policy, "sleep_sync", slept.append)
    drive_sync(_steps(), str)
    assert slept == [0.001]
