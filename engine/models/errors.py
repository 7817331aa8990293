"""Errors raised by chat models, named so users can list them in ``retry_on``.

Every model in ``engine.models`` turns its provider's failures into these types, so retry and
fallback policies do not depend on a provider SDK:

- ``ModelTimeoutError`` — the request took longer than the model's ``timeout``.  A subclass
  of the built-in ``TimeoutError``, so ``retry_on=(TimeoutError,)`` catches it.
- ``ModelConnectionError`` — the server could not be reached (refused, reset, DNS).  A
  subclass of the built-in ``ConnectionError``.
- ``ModelAPIError`` — the server answered with an error status.  ``.status_code`` holds it
  (``None`` when the error arrived inside a stream without one).  Two subclasses are kept
  apart because they call for different policies:

  - ``RateLimitError`` — HTTP 429; ``.retry_after`` is the server's hint in seconds, if any.
  - ``ServerError`` — HTTP 5xx.

- ``ModelResponseError`` — the server answered 200 but the reply cannot be used (no choices,
  not valid JSON, unexpected shape).
- ``ReplayDivergenceError`` — a ``ReplayChatModel`` without a fallback got a request that
  is not the recorded one.

All of them derive from ``ChatModelError``.  Messages never contain an API key: models pass
every message through ``redact`` before raising.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.event_base import ENGINE_ERROR_ATTR
from engine.redaction import scrub

__all__ = [
    "AuthenticationError",
    "ChatModelError",
    "ModelAPIError",
    "ModelAuthenticationError",
    "ModelConnectionError",
    "ModelRateLimitError",
    "ModelRefusalError",
    "ModelResponseError",
    "ModelTimeoutError",
    "RateLimitError",
    "ReplayDivergenceError",
    "ServerError",
    "redact",
    "surfaced_error",
]


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every given secret, every registered one (``engine.redaction``) and every
    ``sk-...``-looking token replaced by ``[REDACTED]``."""
    return scrub(text, secrets)


class ChatModelError(Exception):
    """Base class of every error a chat model raises on purpose."""

    provider_error: BaseException | None = None
    """The library's own exception this one stands for (a langchain_core model's, mapped so
    ``retry_on`` works), when there is one: what a message about the failure names."""


def surfaced_error(exc: BaseException) -> BaseException:
    """What a program sees of a failed model call: the library's own exception when one of
    ours stands for it (LangChain re-raises the model's exception as it is), with ours kept on
    it (``engine.event_base.engine_error_of``) for the events and ``retry_on``; else ``exc``."""
    original = exc.provider_error if isinstance(exc, ChatModelError) else None
    if original is None:
        return exc
    try:
        setattr(original, ENGINE_ERROR_ATTR, exc)
    except AttributeError:  # an exception type that takes no attributes: ours it is
        return exc
    return original


class ModelTimeoutError(ChatModelError, TimeoutError):
    """The model did not answer within its timeout (a ``TimeoutError``)."""


class ModelConnectionError(ChatModelError, ConnectionError):
    """The model's server could not be reached (a ``ConnectionError``)."""


class ModelAPIError(ChatModelError):
    """The server answered with an error status (``.status_code``; ``.body`` is redacted)."""

    def __init__(
        self, message: str, *, status_code: int | None = None, body: object = None
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.body = body


class RateLimitError(ModelAPIError):
    """HTTP 429: too many requests.  ``.retry_after`` is the server's hint in seconds, if any."""

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = 429,
        body: object = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, status_code=status_code, body=body)
        self.retry_after = retry_after


class AuthenticationError(ModelAPIError):
    """HTTP 401/403: the credentials were refused.  Retrying cannot help, so it is marked
    ``retryable = False`` (retry middleware and policies re-raise it at once)."""

    retryable = False

    def __init__(self, message: str, *, status_code: int | None = 401, body: object = None) -> None:
        super().__init__(message, status_code=status_code, body=body)


ModelAuthenticationError = AuthenticationError
"""langchain_core's name (``langchain_core.exceptions``) for the same error."""
ModelRateLimitError = RateLimitError
"""langchain_core's name (``langchain_core.exceptions``) for the same error."""


class ServerError(ModelAPIError):
    """HTTP 5xx: the server failed (``.status_code`` says how)."""


class ModelResponseError(ChatModelError):
    """The server answered, but the reply is malformed or unusable."""


class ModelRefusalError(ChatModelError):
    """The model declined to produce the requested output (a refusal block in its reply;
    ``ModelRefusalMiddleware`` raises it).  ``.raw_message`` is that reply."""

    def __init__(
        self,
        message: str = "Model refused to produce the requested output",
        *,
        raw_message: object = None,
    ) -> None:
        super().__init__(message)
        self.raw_message = raw_message


class ReplayDivergenceError(ChatModelError):
    """A replayed run sent a request that differs from the recording (and has no fallback)."""
