"""The ``ChatModel`` protocol and ``BaseChatModel``, the base class our models share.

Calling a model::

    reply = await model.ainvoke(messages, tools=[search], tool_choice="auto")
    async for item in model.astream(messages):   # AIMessageChunk deltas, then the AIMessage
        ...
    reply = model.invoke(messages)                # sync wrapper (engine.core.aio.run_sync)

``tools`` holds ``BaseTool``s or plain schemas ``{"name", "description", "parameters"}``, and
a provider's built-in tools (a dict whose ``type`` is not ``"function"``, e.g.
``{"type": "web_search"}``): sent to the provider as they are, never run by the engine.
``tool_choice`` is None, ``"auto"``, ``"any"``, ``"required"``, ``"none"`` or a tool name.
``response_format`` is None or an OpenAI-style dict
``{"type": "json_schema", "json_schema": {"name", "schema", "strict"}}``.  Any other keyword
is a model setting (temperature, max_tokens, prompt_cache_key, ...) and overrides the
model's own ``model_settings`` for that call.

A subclass implements ``_agenerate`` (a whole reply) and/or ``_astream`` (chunks, then the
reply); each defaults to being derived from the other, so the logic is written once.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias, runtime_checkable

from engine.core import foreign
from engine.core.aio import iter_sync, run_sync
from engine.core.context import call_metadata, current_task_view, note_model_run
from engine.messages import AIMessage, AIMessageChunk, BaseMessage, coerce_messages
from engine.models.errors import ModelResponseError
from engine.models.runnable_api import ModelRunnableAPI
from engine.models.schema_tools import is_schema_class, schema_class_tool
from engine.models.streaming import closing_chunk, collect, split_message
from engine.tools import BaseTool

__all__ = [
    "TOOL_CHOICE_MODES",
    "BaseChatModel",
    "ChatModel",
    "ChatRequest",
    "ModelProfile",
    "ToolLike",
    "is_builtin_tool",
    "tool_schema",
]

ToolLike: TypeAlias = BaseTool | Mapping[str, Any]
#: ``tool_choice`` values that are modes rather than tool names.
TOOL_CHOICE_MODES = ("auto", "any", "required", "none")


@dataclass(frozen=True)
class ModelProfile:
    """What a model can do; the agent reads it to pick strategies (e.g. structured output)."""

    tool_calling: bool = True
    structured_output: bool | None = None
    """Native structured output (``response_format`` with a JSON schema); None: not known,
    decided from the model's name as LangChain decides it (``native_structured_output``)."""
    streaming: bool = True
    max_input_tokens: int | None = None


@dataclass(frozen=True)
class ChatRequest:
    """One normalized call: what a model implementation receives (and what tests record)."""

    messages: list[BaseMessage]
    tools: list[dict[str, Any]] = field(default_factory=list)
    """Schemas ``{"name", "description", "parameters"}``, and built-in tools as they were
    given (``is_builtin_tool``)."""
    tool_choice: str | None = None
    response_format: dict[str, Any] | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    config: Mapping[str, Any] | None = None
    """LangChain's ``RunnableConfig`` when the caller passed one (``model.invoke(messages,
    config)``): a LangChain model gets it; ours need nothing from it (the run's context already
    carries what LangChain puts there: its events, the ``messages`` stream)."""

    @property
    def tool_names(self) -> list[str]:
        """The function tools' names, then each built-in tool's name (or its type)."""
        return [t["name"] if "name" in t else str(t.get("type")) for t in self.tools]


def is_builtin_tool(tool: Any) -> bool:
    """Whether ``tool`` is a provider's built-in tool (``{"type": "web_search"}``, Anthropic's
    ``{"type": "bash_20250124", "name": "bash"}``): a dict with a ``type`` other than
    ``"function"``.  The provider runs it; the model request carries it as it is."""
    return isinstance(tool, Mapping) and "type" in tool and tool["type"] != "function"


def tool_schema(tool: ToolLike) -> dict[str, Any]:
    """``{"name", "description", "parameters"}`` of a tool, a plain schema or an OpenAI tool;
    a provider's built-in tool as it is (a copy)."""
    if isinstance(tool, BaseTool):
        return tool.tool_call_schema
    if is_builtin_tool(tool):
        return dict(tool)  # type: ignore[arg-type]
    if isinstance(tool, Mapping):
        spec: Mapping[str, Any] = (
            tool.get("function", tool) if tool.get("type") == "function" else tool
        )
        if not isinstance(spec.get("name"), str) or not spec["name"]:
            raise ValueError(f"A tool schema needs a 'name': {dict(tool)!r}")
        return {
            "name": spec["name"],
            "description": spec.get("description") or "",
            "parameters": dict(spec.get("parameters") or {"type": "object", "properties": {}}),
        }
    if isinstance(tool, type) and is_schema_class(tool):  # a pydantic model, dataclass, TypedDict
        return schema_class_tool(tool)
    if callable(tool) or foreign.family_of(tool) is not None:
        # a plain function (its docstring and annotations), a langchain_core tool
        from engine.tools import as_tool

        return as_tool(tool).tool_call_schema
    raise TypeError(
        f"A tool must be a BaseTool, a function, a schema class or a schema dict, "
        f"not {type(tool).__name__}"
    )


@runtime_checkable
class ChatModel(Protocol):
    """What the engine needs from a chat model (see the module docstring for the arguments)."""

    model_name: str
    profile: ModelProfile

    async def ainvoke(
        self,
        messages: Sequence[Any],
        config: Mapping[str, Any] | None = None,
        *,
        tools: Sequence[ToolLike] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
        **settings: Any,
    ) -> AIMessage: ...

    def astream(
        self,
        messages: Sequence[Any],
        config: Mapping[str, Any] | None = None,
        *,
        tools: Sequence[ToolLike] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
        **settings: Any,
    ) -> AsyncIterator[AIMessage]:
        """``AIMessageChunk`` deltas, then the full ``AIMessage`` as the last item."""
        ...

    def invoke(
        self,
        messages: Sequence[Any],
        config: Mapping[str, Any] | None = None,
        *,
        tools: Sequence[ToolLike] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
        **settings: Any,
    ) -> AIMessage: ...

    def stream(
        self,
        messages: Sequence[Any],
        config: Mapping[str, Any] | None = None,
        *,
        tools: Sequence[ToolLike] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
        **settings: Any,
    ) -> Iterator[AIMessage]: ...


def foreign_face(model: Any) -> Any:
    """Our model as a loaded foreign library's model (for its ``|`` composition)."""
    face = foreign.face_attribute(model, "invoke")
    owner = getattr(face, "__self__", None)
    if owner is None:
        raise TypeError(
            f"{type(model).__name__} composes with | only with langchain_core installed and loaded"
        )
    return owner


def _finalize(message: AIMessage) -> AIMessage:
    """A plain ``AIMessage`` (not a chunk) with an id."""
    if isinstance(message, AIMessageChunk):
        message = message.to_message()
    if message.id is None:
        message.id = str(uuid.uuid4())
    return message


def model_run_name(model: Any) -> str:
    """The name LangChain gives a chat model's runs (its ``astream_events`` name them so): the
    model's ``run_name`` where its class has one (a langchain_core model's ``get_name()``: its
    ``name``, else its class name), else its class name."""
    if getattr(type(model), "run_name", None) is not None:  # not our models' foreign face
        name = model.run_name
        if isinstance(name, str) and name:
            return name
    return type(model).__name__


MODEL_CALL_TAGS = ["seq:step:1"]
"""The tags of a chat model's run called by a node: the node's first step, as LangGraph tags it."""


def model_run_tags(model: Any) -> list[str]:
    """The tags of a chat model's run called by a node: the node step's, then the model's own
    (a langchain_core model's ``tags``)."""
    own = getattr(type(model), "run_tags", None) is not None and model.run_tags
    return [*MODEL_CALL_TAGS, *own] if own else MODEL_CALL_TAGS


def _node_token_tap() -> tuple[Any, dict[str, Any], str] | None:
    """``(run, metadata, ns)`` when this call runs inside a graph node of a run that streams
    ``messages``; None otherwise."""
    task = current_task_view()
    if task is None or not task.run.wants("messages"):
        return None
    return task.run, call_metadata(task.config), task.ns


class BaseChatModel(ModelRunnableAPI):
    """Shared plumbing: argument normalization, sync wrappers, stream <-> whole reply; the
    runnable API tutorials call (``bind_tools``, ``with_structured_output``, ``batch``...)."""

    model_name: str
    profile: ModelProfile
    model_settings: dict[str, Any]

    def __init__(
        self, model_name: str, *, profile: ModelProfile | None = None, **model_settings: Any
    ) -> None:
        self.model_name = model_name
        self.profile = profile or ModelProfile()
        self.model_settings = model_settings
        foreign.enroll(BaseChatModel)  # e.g. a langchain Runnable, if langchain_core is loaded

    def __getattr__(self, name: str) -> Any:
        """The API of a loaded foreign library that ours lacks (``transform``, ``get_name``,
        ``with_config``... of a langchain ``Runnable``), from our model's face there."""
        if not name.startswith("_"):
            found = foreign.face_attribute(self, name)
            if found is not None:
                return found
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __or__(self, other: Any) -> Any:
        return foreign_face(self) | other

    def __ror__(self, other: Any) -> Any:
        return other | foreign_face(self)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls._agenerate is BaseChatModel._agenerate and cls._astream is BaseChatModel._astream:
            raise TypeError(f"{cls.__name__} must implement _agenerate or _astream")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model_name={self.model_name!r})"

    # -- the implementation hooks --------------------------------------------------------

    async def _agenerate(self, request: ChatRequest) -> AIMessage:
        """The whole reply.  Default: collected from ``_astream``."""
        items = [item async for item in self._astream(request)]
        message = collect(items)
        if message is None:
            raise ModelResponseError(f"{self.model_name}: the stream ended without any output")
        return message

    async def _astream(self, request: ChatRequest) -> AsyncIterator[AIMessage]:
        """Chunks, then the whole reply.  Default: ``_agenerate``'s reply split into chunks."""
        message = _finalize(await self._agenerate(request))
        for chunk in split_message(message):
            yield chunk
        yield message

    # -- public API ----------------------------------------------------------------------

    def make_request(
        self,
        messages: Sequence[Any],
        config: Mapping[str, Any] | None = None,
        *,
        tools: Sequence[ToolLike] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
        settings: Mapping[str, Any] | None = None,
    ) -> ChatRequest:
        """Validate and normalize call arguments (merging in ``model_settings``)."""
        schemas = [tool_schema(t) for t in tools or ()]
        names = [s["name"] for s in schemas if "name" in s]
        if tool_choice is not None:
            if not isinstance(tool_choice, str):
                raise TypeError(
                    f"tool_choice must be a string or None, not {type(tool_choice).__name__}"
                )
            if tool_choice not in ("auto", "none") and not schemas:
                raise ValueError(f"tool_choice={tool_choice!r} needs tools, but none were given")
            if tool_choice not in TOOL_CHOICE_MODES and tool_choice not in names:
                raise ValueError(f"tool_choice={tool_choice!r} is not one of the tools {names}")
        if response_format is not None and not (
            isinstance(response_format, Mapping) and "type" in response_format
        ):
            raise TypeError('response_format must be a dict like {"type": "json_schema", ...}')
        # None means "not set": it neither overrides the model's setting nor is sent
        merged = {
            **self.model_settings,
            **{k: v for k, v in (settings or {}).items() if v is not None},
        }
        return ChatRequest(
            messages=coerce_messages(messages),
            tools=schemas,
            tool_choice=tool_choice,
            response_format=dict(response_format) if response_format is not None else None,
            settings={k: v for k, v in merged.items() if v is not None},
            config=config,
        )

    async def ainvoke(
        self,
        messages: Sequence[Any],
        config: Mapping[str, Any] | None = None,
        *,
        tools: Sequence[ToolLike] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
        **settings: Any,
    ) -> AIMessage:
        request = self.make_request(
            messages,
            config,
            tools=tools,
            tool_choice=tool_choice,
            response_format=response_format,
            settings=settings,
        )
        tap = _node_token_tap()
        if tap is None:
            reply = _finalize(await self._agenerate(request))
        else:
            reply = await self._ainvoke_streaming(request, tap)
        family = foreign.input_family(messages)
        # asked in a foreign library's messages (a langchain prompt | model): answered in them
        return reply if family is None else foreign.to_family(family, reply)

    async def _ainvoke_streaming(self, request: ChatRequest, tap: Any) -> AIMessage:
        """Called inside a graph node while someone streams ``messages``: the reply's chunks
        go to that stream as they arrive (as LangGraph does through its callbacks)."""
        run, meta, ns = tap
        call_meta = (request.config or {}).get("metadata")
        if isinstance(call_meta, Mapping):  # the call's own metadata (e.g. an internal call)
            meta = {**meta, **call_meta}
        msg_id = f"run-{uuid.uuid4()}"
        chunks: list[AIMessage] = []
        final: AIMessage | None = None
        run_name = (request.config or {}).get("run_name") or model_run_name(self)
        async for item in self._astream(request):
            if isinstance(item, AIMessageChunk):
                if item.id is None:
                    item.id = msg_id
                chunks.append(item)
                note_model_run(item.id, run_name, MODEL_CALL_TAGS, request.messages)
                run.push_any_thread("messages", (item, meta), ns)
            else:
                final = item
        closing = closing_chunk(chunks)
        if closing is not None:
            note_model_run(closing.id, run_name, MODEL_CALL_TAGS, request.messages)
            run.push_any_thread("messages", (closing, meta), ns)
        final = final or collect(chunks)
        if final is None:
            raise ModelResponseError(f"{self.model_name}: the stream ended without any output")
        if final.id is None:
            final.id = chunks[0].id if chunks else msg_id
        final = _finalize(final)
        if not chunks:
            note_model_run(final.id, run_name, MODEL_CALL_TAGS, request.messages)
            run.push_any_thread("messages", (final, meta), ns)
        run.streamed_message_ids.add(final.id)
        return final

    async def astream(
        self,
        messages: Sequence[Any],
        config: Mapping[str, Any] | None = None,
        *,
        tools: Sequence[ToolLike] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
        **settings: Any,
    ) -> AsyncIterator[AIMessage]:
        request = self.make_request(
            messages,
            config,
            tools=tools,
            tool_choice=tool_choice,
            response_format=response_format,
            settings=settings,
        )
        chunks: list[AIMessage] = []
        final: AIMessage | None = None
        async for item in self._astream(request):
            if isinstance(item, AIMessageChunk):
                chunks.append(item)
                yield item
            else:
                final = item
        closing = closing_chunk(chunks)
        if closing is not None:
            yield closing
        final = final or collect(chunks)
        if final is None:
            raise ModelResponseError(f"{self.model_name}: the stream ended without any output")
        yield _finalize(final)

    def invoke(
        self,
        messages: Sequence[Any],
        config: Mapping[str, Any] | None = None,
        *,
        tools: Sequence[ToolLike] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
        **settings: Any,
    ) -> AIMessage:
        """``ainvoke`` from synchronous code."""
        return run_sync(
            self.ainvoke(
                messages,
                config,
                tools=tools,
                tool_choice=tool_choice,
                response_format=response_format,
                **settings,
            )
        )

    def stream(
        self,
        messages: Sequence[Any],
        config: Mapping[str, Any] | None = None,
        *,
        tools: Sequence[ToolLike] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
        **settings: Any,
    ) -> Iterator[AIMessage]:
        """``astream`` from synchronous code."""
        return iter_sync(
            self.astream(
                messages,
                config,
                tools=tools,
                tool_choice=tool_choice,
                response_format=response_format,
                **settings,
            )
        )
