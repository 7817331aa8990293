"""``OpenAIChatModel``: any OpenAI-compatible Chat Completions endpoint, via the ``openai`` SDK.

Works with OpenAI itself and with compatible servers (Ollama, vLLM, LM Studio, llama.cpp)::

    OpenAIChatModel("gpt-4o-mini")                                   # OPENAI_API_KEY from env
    OpenAIChatModel("llama3.2", base_url="http://localhost:11434/v1")  # no key needed

``timeout`` limits each network read (a server that keeps dripping bytes never trips it);
``deadline`` (seconds, also a per-call setting) limits the whole call, stream included, and
raises ``ModelTimeoutError`` when it passes.

``base_url`` and ``api_key`` default to ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``.  Retries
are off (``max_retries=0``): retrying is a middleware decision.  SDK errors become the types
in ``engine.models.errors``.  The API key is kept in a ``SecretStr``: it never appears in a
repr, and every error message is redacted before it is raised.  The key, every header value
(``default_headers=``, ``extra_headers=``) and the credentials of a ``base_url``
(``https://user:password@host``) are registered with ``engine.redaction``, which keeps them out
of errors, events and session files.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import re
import threading
import uuid
import warnings
import weakref
from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import openai
from openai.resources.chat.completions import AsyncCompletions
from pydantic import SecretStr

from engine.messages import AIMessage, AIMessageChunk
from engine.models.base import BaseChatModel, ChatRequest, ModelProfile
from engine.models.errors import (
    ChatModelError,
    ModelAPIError,
    ModelConnectionError,
    ModelResponseError,
    ModelTimeoutError,
    RateLimitError,
    ServerError,
    redact,
)
from engine.models.openai_format import (
    delta_to_chunk,
    from_completion,
    to_openai_messages,
    to_openai_tool_choice,
    to_openai_tools,
)
from engine.models.streaming import collect
from engine.redaction import register_headers, register_secret, register_url

__all__ = ["LOCAL_API_KEY", "OpenAIChatModel"]

LOCAL_API_KEY = "not-needed"
"""Sent when a ``base_url`` is set and no key is: local servers ignore it, the SDK needs one."""

#: Settings the model sets itself; passing them as settings is a mistake.
_RESERVED = frozenset(
    {"model", "messages", "stream", "stream_options", "tools", "tool_choice", "response_format"}
)
#: Keyword arguments ``chat.completions.create`` knows; other settings go in ``extra_body``.
_KNOWN = frozenset(inspect.signature(AsyncCompletions.create).parameters) - _RESERVED - {"self"}


def _has_credentials(url: str | None) -> bool:
    return bool(url) and "@" in urlsplit(str(url)).netloc


def _display_url(url: str | None) -> str:
    """``url`` without any ``user:password@`` part."""
    if not url:
        return "https://api.openai.com/v1"
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def _redact_data(data: object, secrets: tuple[str, ...]) -> object:
    if isinstance(data, str):
        return redact(data, secrets)
    if isinstance(data, dict):
        return {k: _redact_data(v, secrets) for k, v in data.items()}
    if isinstance(data, list):
        return [_redact_data(v, secrets) for v in data]
    return data


def _not_a_reply(body: object, content_type: str = "") -> str:
    """One line describing a 200 answer that is not a chat completion (e.g. a proxy's page)."""
    text = " ".join(re.sub(r"<[^>]*>", " ", str(body)).split())
    kind = f" ({content_type.split(';')[0]})" if content_type else ""
    return f"the server answered 200 with something that is not a chat completion{kind}: {text[:120]!r}"


def _retry_after(exc: openai.APIStatusError) -> float | None:
    headers = exc.response.headers
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value:
            try:
                return float(value) * scale
            except ValueError:
                continue
    return None


class OpenAIChatModel(BaseChatModel):
    """A chat model served over the OpenAI Chat Completions API (or a compatible one)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 0,
        profile: ModelProfile | None = None,
        stream_usage: bool = True,
        default_headers: Mapping[str, str] | None = None,
        deadline: float | None = None,
        **model_settings: Any,
    ) -> None:
        super().__init__(model, profile=profile, **model_settings)
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        self.default_headers = dict(default_headers or {})
        # every credential this model is given is scrubbed from errors, events and files
        register_url(self.base_url)
        register_headers(self.default_headers)
        register_headers(model_settings.get("extra_headers"))
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if self.base_url is None:
                raise ValueError(
                    "OpenAIChatModel: no API key. Set OPENAI_API_KEY or pass api_key=...; "
                    "for a local server that needs no key, pass base_url=..."
                )
            key = LOCAL_API_KEY
        register_secret(key if key != LOCAL_API_KEY else None)
        if key != LOCAL_API_KEY and _has_credentials(self.base_url):
            # the URL's user:password becomes "Authorization: Basic ...", which replaces the
            # key's "Bearer" header: say so rather than drop the key silently
            warnings.warn(
                f"OpenAIChatModel: the base_url {_display_url(self.base_url)} carries "
                "user:password, which is sent (as Basic authorization) instead of the API key: "
                "the key is not sent; remove them from the URL to send the key",
                UserWarning,
                stacklevel=2,
            )
        self._api_key = SecretStr(key)
        self.timeout = timeout
        if deadline is not None and deadline <= 0:
            raise ValueError("deadline must be > 0 seconds (or None)")
        self.deadline = deadline
        self.max_retries = max_retries
        self.stream_usage = stream_usage
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, openai.AsyncOpenAI] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        settings = f", settings={sorted(self.model_settings)}" if self.model_settings else ""
        return (
            f"OpenAIChatModel(model={self.model_name!r}, base_url={_display_url(self.base_url)!r}, "
            f"timeout={self.timeout}{settings})"
        )

    # -- client --------------------------------------------------------------------------

    def _client(self) -> openai.AsyncOpenAI:
        """One SDK client per event loop (its connection pool belongs to that loop)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            client = self._clients.get(loop)
            if client is None:
                client = openai.AsyncOpenAI(
                    api_key=self._api_key.get_secret_value(),
                    base_url=self.base_url,
                    timeout=self.timeout,
                    max_retries=self.max_retries,
                    default_headers=self.default_headers or None,
                )
                self._clients[loop] = client
            return client

    async def aclose(self) -> None:
        """Close the connection pool used on the current event loop."""
        with self._lock:
            client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    # -- requests ------------------------------------------------------------------------

    def request_params(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        """The keyword arguments for ``chat.completions.create`` (no secrets in them)."""
        params: dict[str, Any] = {
            "model": self.model_name,
            "messages": to_openai_messages(request.messages),
        }
        if request.tools:
            params["tools"] = to_openai_tools(request.tools)
            choice = to_openai_tool_choice(request.tool_choice)
            if choice is not None:
                params["tool_choice"] = choice
        if request.response_format is not None:
            params["response_format"] = request.response_format
        extra: dict[str, Any] = {}
        register_headers(request.settings.get("extra_headers"))
        for key, value in request.settings.items():
            if key == "deadline":  # ours, not the server's
                continue
            if key in _RESERVED:
                raise ValueError(f"{key!r} cannot be a model setting (the model sets it)")
            if key in _KNOWN:
                params[key] = value
            else:
                extra[key] = value
        if extra:
            params["extra_body"] = {**params.get("extra_body", {}), **extra}
        if stream:
            params["stream"] = True
            if self.stream_usage:
                params["stream_options"] = {"include_usage": True}
        return params

    def _translate(self, exc: Exception, request: ChatRequest) -> ChatModelError:
        """The engine error for an SDK error, with every secret redacted."""
        secrets = (self._api_key.get_secret_value(),)
        where = f"model {self.model_name!r} at {_display_url(self.base_url)}"
        if isinstance(exc, openai.APITimeoutError):
            timeout = request.settings.get("timeout", self.timeout)
            return ModelTimeoutError(f"{where} did not answer within {timeout}s")
        if isinstance(exc, openai.APIConnectionError):
            cause = f": {exc.__cause__}" if exc.__cause__ else ""
            return ModelConnectionError(redact(f"cannot reach {where}{cause}", secrets))
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            message = redact(f"{where} answered HTTP {status}: {exc.message}", secrets)
            body = _redact_data(exc.body, secrets)
            if status == 429:
                return RateLimitError(
                    message, status_code=status, body=body, retry_after=_retry_after(exc)
                )
            if status >= 500:
                return ServerError(message, status_code=status, body=body)
            return ModelAPIError(message, status_code=status, body=body)
        if isinstance(exc, openai.APIResponseValidationError | json.JSONDecodeError):
            return ModelResponseError(redact(f"{where} sent a malformed reply: {exc}", secrets))
        if isinstance(exc, openai.APIError):  # e.g. an error event inside a stream
            return ModelAPIError(
                redact(f"{where} reported an error: {exc.message}", secrets), body=None
            )
        return ChatModelError(redact(f"{where} failed: {type(exc).__name__}: {exc}", secrets))

    def _where(self) -> str:
        return f"model {self.model_name!r} at {_display_url(self.base_url)}"

    def _deadline(self, request: ChatRequest) -> float | None:
        value = request.settings.get("deadline", self.deadline)
        return None if value is None else float(value)

    def _late(self, limit: float) -> ModelTimeoutError:
        return ModelTimeoutError(
            f"model {self.model_name!r} at {_display_url(self.base_url)} did not finish within "
            f"its deadline of {limit:g}s"
        )

    async def _agenerate(self, request: ChatRequest) -> AIMessage:
        params = self.request_params(request, stream=False)
        limit = self._deadline(request)
        error: ChatModelError | None = None
        try:
            call = self._client().chat.completions.create(**params)
            completion = await (call if limit is None else asyncio.wait_for(call, limit))
        except (openai.OpenAIError, json.JSONDecodeError) as exc:
            error = self._translate(exc, request)
        except TimeoutError:
            error = self._late(limit or 0.0)
        else:
            try:
                if not hasattr(completion, "choices"):  # e.g. an HTML page served with 200
                    raise ModelResponseError(_not_a_reply(completion))
                return from_completion(completion, str(uuid.uuid4()))
            except ModelResponseError as exc:
                error = ModelResponseError(redact(f"{self._where()}: {exc}"))
        raise error  # outside the handler: the SDK error (which may quote the key) is not chained

    async def _astream(self, request: ChatRequest) -> AsyncIterator[AIMessage]:
        params = self.request_params(request, stream=True)
        limit = self._deadline(request)
        loop = asyncio.get_running_loop()
        ends = None if limit is None else loop.time() + limit

        async def within(awaitable: Any) -> Any:
            if ends is None:
                return await awaitable
            return await asyncio.wait_for(awaitable, max(0.0, ends - loop.time()))

        message_id = str(uuid.uuid4())
        chunks: list[AIMessageChunk] = []
        error: ChatModelError | None = None
        finished = False
        try:
            stream = await within(self._client().chat.completions.create(**params))
            response = getattr(stream, "response", None)
            kind = str(getattr(response, "headers", {}).get("content-type", ""))
            if response is not None and kind and "event-stream" not in kind:
                body = (await within(response.aread())).decode("utf-8", "replace")
                await stream.close()
                raise ModelResponseError(redact(f"{self._where()}: {_not_a_reply(body, kind)}"))
            async with stream:
                items = aiter(stream)
                while True:
                    try:
                        raw = await within(anext(items))
                    except StopAsyncIteration:
                        break
                    chunk = delta_to_chunk(raw, message_id)
                    if chunk is None:
                        continue
                    chunks.append(chunk)
                    finished = finished or "finish_reason" in chunk.response_metadata
                    if chunk.content or chunk.tool_call_chunks:
                        yield chunk
        except (openai.OpenAIError, json.JSONDecodeError) as exc:
            error = self._translate(exc, request)
        except TimeoutError:
            error = self._late(limit or 0.0)
        if error is None and chunks and not finished:
            # The connection closed without a finish_reason: the text so far is a fragment.
            error = ModelConnectionError(
                f"the stream from model {self.model_name!r} at {_display_url(self.base_url)} "
                f"ended before the reply was complete (no finish_reason; the connection "
                f"was dropped after {len(chunks)} chunk(s))"
            )
        if error is not None:
            raise error
        final = collect(chunks)
        if final is None:
            raise ModelResponseError(f"{self._where()}: the stream ended without any output")
        final.id = message_id
        yield final
