"""The one-line errors of server calls: ``RemoteError`` and ``explain``, which turns what httpx
or ``langgraph-sdk`` raised into a line a person can act on ("cannot reach ...", "the API key
... was refused (401)", "thread t is busy ...").  Server texts pass through
``engine.redaction.scrub``: nothing in a message carries a credential.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal

from engine.redaction import scrub
from engine.targets.base import TargetError

if TYPE_CHECKING:
    from engine.remote.client import RemoteClient

__all__ = ["ErrorKind", "RemoteError", "explain"]

ErrorKind = Literal[
    "unreachable", "auth", "forbidden", "not_found", "invalid", "busy", "server", "lost", "sdk"
]


class RemoteError(TargetError):
    """A server call failed; ``str(err)`` is one line for a terminal or a status bar."""

    def __init__(
        self,
        message: str,
        kind: ErrorKind = "server",
        status: int | None = None,
        detail: str = "",
    ) -> None:
        super().__init__(scrub(message))
        self.kind: ErrorKind = kind
        self.status = status
        self.detail = scrub(detail)
        """The server's whole explanation (several lines), for code that reads it."""


def _detail(exc: BaseException) -> str:
    """The server's own explanation, first line."""
    body = getattr(exc, "body", None)
    text: Any = None
    if isinstance(body, dict):
        text = body.get("detail") or body.get("message") or body.get("error")
    if text is None:
        text = getattr(exc, "message", None) or str(exc)
    if not isinstance(text, str):
        text = json.dumps(text, default=str)
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[0] if lines else type(exc).__name__


def explain(exc: BaseException, client: RemoteClient, what: str) -> RemoteError:
    """``exc`` (from httpx or the SDK, while doing ``what``) as a ``RemoteError``."""
    if isinstance(exc, RemoteError):
        return exc
    import httpx

    url = client.display_url
    status = getattr(exc, "status_code", None)
    if status is None and isinstance(exc, httpx.HTTPStatusError):
        status = exc.response.status_code
    if status is None:
        if isinstance(exc, httpx.TimeoutException):
            return RemoteError(
                f"the LangGraph server at {url} did not answer in time ({what})", "unreachable"
            )
        if isinstance(exc, httpx.TransportError | OSError):
            reason = _detail(exc)
            return RemoteError(
                f"cannot reach the LangGraph server at {url} ({reason}): is it running?",
                "unreachable",
            )
        return RemoteError(f"{what} failed: {type(exc).__name__}: {_detail(exc)}", "sdk")
    detail = _detail(exc)
    if status == 401:
        source = client.credentials.api_key_source()
        hint = (
            f"the API key from {source} was refused"
            if source
            else "no API key was sent: set LANGGRAPH_API_KEY (or LANGSMITH_API_KEY)"
        )
        return RemoteError(
            f"the server at {url} needs credentials (401): {hint} ({detail})", "auth", 401
        )
    if status == 403:
        return RemoteError(
            f"the server at {url} does not allow {what} with these credentials (403): {detail}",
            "forbidden",
            403,
        )
    if status == 404:
        return RemoteError(f"{what}: not found on the server (404): {detail}", "not_found", 404)
    if status == 409:
        return RemoteError(f"{what}: {detail} (409)", "busy", 409)
    if status == 422:
        body = getattr(exc, "body", None)
        full = json.dumps(body, default=str) if body is not None else str(exc)
        return RemoteError(
            f"{what}: the server refused the request (422): {detail}", "invalid", 422, full
        )
    return RemoteError(f"{what}: the server answered {status}: {detail}", "server", status)
