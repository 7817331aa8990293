"""langchain_core chat models and tools, usable wherever the engine takes its own.

Imported only when such an object shows up (``engine.interop.is_langchain``): needs
``pip install 'stepwise[langchain]'`` (langchain-core).

- ``LangChainChatModel(lc_model)``: our ``ChatModel`` over any langchain_core
  ``BaseChatModel`` (ChatOpenAI, ChatAnthropic, ChatOllama, Bedrock, Gemini, the fakes...).
  Messages cross both ways; tools are bound with ``bind_tools`` (with ``tool_choice``); model
  settings and ``response_format`` with ``bind``; the model is called with ``ainvoke`` as
  LangChain calls it, streaming only when someone consumes tokens (``langchain_tokens``), and
  the reply keeps its usage.  Provider errors become the engine's error types
  (``ModelTimeoutError``, ``RateLimitError`` with ``retry_after``, ``ModelConnectionError``,
  ``ServerError``, ``ModelAPIError``; the original is the ``__cause__``) so ``retry_on`` works.
- ``LangChainTool(lc_tool)``: our ``BaseTool`` over a langchain_core ``BaseTool`` (``@tool``,
  ``StructuredTool``, toolkits): its model-facing schema, ``return_direct``,
  ``response_format="content_and_artifact"``, ``handle_tool_error``, and injected arguments
  (``InjectedToolCallId``, ``InjectedState``, ``InjectedStore``).
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, get_args, get_origin

from pydantic import ValidationError

from engine.core.aio import in_thread
from engine.graph.runtime import current_run
from engine.interop.langchain_binding import bind_like_agent
from engine.interop.langchain_face import tools_see_our_injections
from engine.interop.langchain_messages import message_from_langchain, message_to_langchain
from engine.interop.langchain_node_tokens import engine_call
from engine.interop.langchain_tokens import stream_through_invoke
from engine.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from engine.models.base import BaseChatModel, ChatRequest, ModelProfile
from engine.models.errors import (
    AuthenticationError,
    ChatModelError,
    ModelAPIError,
    ModelConnectionError,
    ModelResponseError,
    ModelTimeoutError,
    RateLimitError,
    ServerError,
)
from engine.tools import BaseTool, Injection, ToolArgsValidationError

__all__ = ["LangChainChatModel", "LangChainTool", "map_error", "to_langchain"]

_CALL_ID = "__stepwise_tool_call_id__"
"""The private injection through which a wrapped tool learns its call id."""


def to_langchain(value: Any) -> Any:
    if isinstance(value, BaseMessage):
        return message_to_langchain(value)
    return [message_to_langchain(m) for m in value]


def model_name_of(lc_model: Any) -> str:
    for attr in ("model_name", "model", "model_id", "deployment_name"):
        value = getattr(lc_model, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(lc_model).__name__


def _sync_run() -> bool:
    """Was the run started by a sync call (``invoke`` / ``stream``)?"""
    run = current_run()
    return run is not None and run.sync_call


# -- errors --------------------------------------------------------------------------------------


def _status(exc: BaseException) -> int | None:
    for holder in (exc, getattr(exc, "response", None)):
        code = getattr(holder, "status_code", None) or getattr(holder, "status", None)
        if isinstance(code, int):
            return code
    return None


def _retry_after(exc: BaseException) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    value = headers.get("retry-after") if isinstance(headers, Mapping) else None
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def map_error(exc: BaseException, model: str) -> BaseException:
    """A provider's exception as the engine's error type (``exc`` itself when none fits)."""
    if isinstance(exc, ChatModelError):
        return exc
    mapped = _engine_error(exc, model)
    if mapped is not None:
        mapped.provider_error = exc
        return mapped
    return exc


def _engine_error(exc: BaseException, model: str) -> ChatModelError | None:
    name = type(exc).__name__
    text = f"{model}: {name}: {exc}"
    status = _status(exc)
    if isinstance(exc, TimeoutError) or "Timeout" in name:
        return ModelTimeoutError(text)
    if "RateLimit" in name or status == 429:
        return RateLimitError(text, status_code=429, retry_after=_retry_after(exc))
    if isinstance(exc, ConnectionError) or "Connection" in name:
        return ModelConnectionError(text)
    if status is not None and status >= 500:
        return ServerError(text, status_code=status)
    if status in (401, 403):
        return AuthenticationError(text, status_code=status)
    if status is not None and status >= 400:
        return ModelAPIError(text, status_code=status)
    return None


# -- models --------------------------------------------------------------------------------------


class LangChainChatModel(BaseChatModel):
    """Our chat model over a langchain_core ``BaseChatModel`` (see the module docstring)."""

    def __init__(self, lc_model: Any) -> None:
        # native structured output when its profile says so (else its name decides), as
        # LangChain's agent decides for the auto strategy
        profile = getattr(lc_model, "profile", None)
        declared = profile.get("structured_output") if isinstance(profile, Mapping) else None
        super().__init__(
            model_name_of(lc_model),
            profile=ModelProfile(structured_output=True if declared else None),
        )
        self.lc_model = lc_model

    def __repr__(self) -> str:
        return f"LangChainChatModel({type(self.lc_model).__name__}, model_name={self.model_name!r})"

    def bound_like_agent(
        self,
        tools: Sequence[Any] | None,
        kwargs: Mapping[str, Any],
        *,
        provider_strategy: bool = False,
    ) -> LangChainChatModel:
        """This model for one call of ``create_agent``'s model node, bound as LangChain's agent
        binds it (``langchain_binding``): ``bind_tools(tools, **kwargs)``, or ``bind(**kwargs)``
        when ``tools`` is None.  The call's own tools and settings are then not bound again."""
        bound = copy.copy(self)
        bound._prebound = bind_like_agent(
            self.lc_model, tools, kwargs, provider_strategy=provider_strategy
        )
        return bound

    _prebound: Any = None

    @property
    def run_name(self) -> str:
        """The name LangChain gives this model's runs (its ``get_name()``)."""
        try:
            return str(self.lc_model.get_name())
        except Exception:
            return type(self.lc_model).__name__

    @property
    def run_tags(self) -> list[str]:
        """The model's own tags, which LangChain adds to its runs'."""
        return [str(t) for t in getattr(self.lc_model, "tags", None) or ()]

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None, **kw: Any) -> Any:
        """This model with ``tools`` bound, as LangChain binds them: the model's own
        ``bind_tools`` gets the tool objects (``langchain_binding``), and ``tool_choice`` when
        one is given; our calls still carry the tools' schemas (events, the request hash)."""
        choice = {"tool_choice": tool_choice} if tool_choice is not None else {}
        bound = self.bound_like_agent(list(tools), {**choice, **kw})
        return BaseChatModel.bind_tools(bound, tools, tool_choice=tool_choice, **kw)

    def _bound(self, request: ChatRequest) -> Any:
        if self._prebound is not None:
            return self._prebound
        runnable = self.lc_model
        if request.tools:
            tools = [
                t if "type" in t else {"type": "function", "function": t} for t in request.tools
            ]
            choice = {"tool_choice": request.tool_choice} if request.tool_choice else {}
            try:
                runnable = runnable.bind_tools(tools, **choice)
            except NotImplementedError:
                raise TypeError(
                    f"{type(self.lc_model).__name__} cannot call tools (its bind_tools is not "
                    "implemented); give the agent a model that supports tool calling"
                ) from None
        settings = dict(request.settings)
        if request.response_format is not None:
            settings["response_format"] = request.response_format
        return runnable.bind(**settings) if settings else runnable

    def stream_metadata(self) -> dict[str, Any]:
        """What LangChain adds to a ``messages`` chunk's metadata for this model: its LangSmith
        parameters (provider, model name and type...) and its own metadata."""
        lc = self.lc_model
        try:
            params = dict(lc._get_ls_params_with_defaults(stop=None))
        except Exception:
            params = {}
        own = getattr(lc, "metadata", None)
        return {**params, **(own if isinstance(own, dict) else {})}

    def _call(self, request: ChatRequest) -> tuple[Any, list[Any]]:
        return self._bound(request), [message_to_langchain(m) for m in request.messages]

    def _mapped(self, exc: Exception) -> BaseException:
        return map_error(exc, self.model_name)

    def _reply(self, out: Any) -> AIMessage:
        final = message_from_langchain(out) if out is not None else None
        if final is None:
            raise ModelResponseError(f"{self.model_name}: the model returned nothing")
        if isinstance(final, AIMessageChunk):
            final = final.to_message()
        if not isinstance(final, AIMessage):
            raise ModelResponseError(f"{self.model_name}: expected an AI message, got {final.type}")
        return final

    async def _agenerate(self, request: ChatRequest) -> AIMessage:
        """The reply, as LangChain gets it: ``ainvoke`` (the model streams only if its own
        settings say so)."""
        runnable, messages = self._call(request)
        config = dict(request.config or {}) or None
        try:
            if _sync_run():  # as LangChain's sync agent calls it: ``invoke``
                out = await engine_call(in_thread(runnable.invoke, messages, config))
            else:
                out = await engine_call(runnable.ainvoke(messages, config))
        except Exception as exc:
            mapped = self._mapped(exc)
            if mapped is exc:
                raise
            raise mapped from exc
        return self._reply(out)

    async def _astream(self, request: ChatRequest) -> AsyncIterator[AIMessage]:
        """Tokens, then the reply, for someone who consumes tokens: still ``invoke`` /
        ``ainvoke`` (as ``_agenerate``), with a streaming consumer attached
        (``langchain_tokens``), as LangGraph's messages stream gets them: a sync run's model
        streams through its sync ``_stream``, an async run's through ``_astream``."""
        runnable, messages = self._call(request)
        out: Any = None
        sync = _sync_run()

        def call(cfg: Any) -> Any:
            if sync:
                return engine_call(in_thread(runnable.invoke, messages, cfg))
            return engine_call(runnable.ainvoke(messages, cfg))

        try:
            async for kind, item in stream_through_invoke(call, request.config):
                if kind == "result":
                    out = item
                    continue
                ours = message_from_langchain(item)
                if isinstance(ours, AIMessageChunk):
                    yield ours
        except Exception as exc:
            mapped = self._mapped(exc)
            if mapped is exc:
                raise
            raise mapped from exc
        yield self._reply(out)


# -- tools ---------------------------------------------------------------------------------------


def _marker_kind(annotation: Any) -> Injection | None:
    """Which of our injections a langchain injected-argument annotation asks for."""
    metas = get_args(annotation)[1:] if get_origin(annotation) is not None else ()
    candidates = [annotation, *metas, *(get_args(annotation)[:1])]
    for item in candidates:
        cls = item if isinstance(item, type) else type(item)
        names = {c.__name__ for c in getattr(cls, "__mro__", (cls,))}
        if "InjectedToolCallId" in names:
            return Injection("tool_call_id")
        if "InjectedState" in names:
            field = getattr(item, "field", None) if not isinstance(item, type) else None
            return Injection("state", field if isinstance(field, str) else None)
        if "InjectedStore" in names:
            return Injection("store")
        if "ToolRuntime" in names:
            return Injection("runtime")
    return None


def _injections(lc_tool: Any) -> dict[str, Injection]:
    """The tool's injected parameters: in its input schema, hidden from the model."""
    try:
        full = lc_tool.get_input_schema().model_fields
        shown = getattr(lc_tool.tool_call_schema, "model_fields", None)
    except Exception:
        return {}
    if shown is None:
        return {}
    out: dict[str, Injection] = {}
    for name, info in full.items():
        if name in shown:
            continue
        annotation = info.annotation
        for meta in info.metadata:
            annotation = meta if _marker_kind(meta) else annotation
        kind = _marker_kind(annotation)
        if kind is not None:
            out[name] = kind
    return out


def _parameters(lc_tool: Any) -> dict[str, Any]:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    spec = convert_to_openai_tool(lc_tool)["function"]
    return dict(spec.get("parameters") or {"type": "object", "properties": {}})


def commands_pass_langchain_tools() -> None:
    """Let a langchain_core tool return our ``Command`` as it returns LangGraph's.

    A langchain_core tool invoked with a tool call turns what its function returns into a
    ``ToolMessage`` of its text unless the value is a ``ToolOutputMixin``, which LangGraph's
    ``Command`` is.  Ours cannot derive from it while the engine must load without
    langchain_core, so it gains the mixin once langchain_core tools are in use (a program
    ported by imports keeps ``langchain_core.tools.tool`` and returns ``engine.types.Command``)."""
    from langchain_core.messages.tool import ToolOutputMixin

    from engine.types import Command

    if isinstance(ToolOutputMixin, type) and not issubclass(Command, ToolOutputMixin):
        Command.__bases__ = (*Command.__bases__, ToolOutputMixin)


class LangChainTool(BaseTool):
    """Our tool over a langchain_core ``BaseTool`` (see the module docstring)."""

    def __init__(self, lc_tool: Any) -> None:
        commands_pass_langchain_tools()
        tools_see_our_injections()  # before its schemas are read
        self.lc_tool = lc_tool
        self.injected = {**_injections(lc_tool), _CALL_ID: Injection("tool_call_id")}
        fmt = getattr(lc_tool, "response_format", "content")
        super().__init__(
            name=lc_tool.name,
            description=lc_tool.description or "",
            args_schema=_parameters(lc_tool),
            return_direct=bool(getattr(lc_tool, "return_direct", False)),
            response_format=fmt if fmt in ("content", "content_and_artifact") else "content",
        )

    @property
    def is_async(self) -> bool:
        return True

    async def arun(self, args: dict[str, Any], **injected: Any) -> Any:
        call_id = injected.pop(_CALL_ID, None) or f"call_{uuid.uuid4().hex[:12]}"
        call = {"type": "tool_call", "name": self.name, "args": {**args, **injected}, "id": call_id}
        try:
            if _sync_run():  # as LangChain's sync tool node calls it: ``invoke``
                out = await in_thread(self.lc_tool.invoke, call)
            else:
                out = await self.lc_tool.ainvoke(call)
        except ValidationError as exc:  # the model's arguments do not fit the tool's schema
            errors = [
                (".".join(str(x) for x in e["loc"]) or "args", e["msg"]) for e in exc.errors()
            ]
            raise ToolArgsValidationError(self.name, args, errors) from None
        if is_message(out):
            message = message_from_langchain(out)
            if isinstance(message, ToolMessage):
                return message
        return out


def is_message(obj: Any) -> bool:
    return any(cls.__name__ == "BaseMessage" for cls in type(obj).__mro__)
