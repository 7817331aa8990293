"""Structured output (``response_format``): ``ToolStrategy``, ``ProviderStrategy``, ``AutoStrategy``.

- ``ToolStrategy(schema)``: the schema becomes a tool (one per union member) the model must
  call (``tool_choice="any"``).  A valid call ends the loop with ``structured_response`` set
  and a ToolMessage answering the call; an invalid one is answered with a ToolMessage giving
  the error so the model can try again (``handle_errors``); as LangChain's, that answer's
  status stays "success", so a tools step after it ends the loop as a valid one would.
- ``ProviderStrategy(schema)``: the provider's native JSON-schema response format; the final
  AIMessage text is parsed.
- ``AutoStrategy(schema)`` (what a raw schema means): provider strategy when the model's
  profile says it supports native structured output, else the tool strategy.

Schemas: a pydantic model, a dataclass, a TypedDict, or a JSON schema dict.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Union, get_args, get_origin

import typing_extensions
from pydantic import BaseModel, TypeAdapter

from engine.messages import AIMessage, ToolCall, ToolMessage
from engine.middleware.types import ModelResponse
from engine.models.profiles import native_structured_output
from engine.models.schema_tools import pydantic_friendly

__all__ = [
    "AutoStrategy",
    "MultipleStructuredOutputsError",
    "ProviderStrategy",
    "ResponseFormat",
    "SchemaKind",
    "SchemaSpec",
    "StructuredOutputError",
    "StructuredOutputValidationError",
    "ToolStrategy",
    "handle_model_output",
    "resolve_strategy",
]

ERROR_TEMPLATE = "Error: {error}\n Please fix your mistakes."


class StructuredOutputError(Exception):
    """Base of the structured-output errors."""

    ai_message: AIMessage | None = None


class StructuredOutputValidationError(StructuredOutputError):
    """The model's structured output does not match the schema."""

    def __init__(
        self, tool_name: str, source: Exception, ai_message: AIMessage | None = None
    ) -> None:
        self.tool_name = tool_name
        self.source = source
        self.ai_message = ai_message
        super().__init__(f"Failed to parse structured output for tool '{tool_name}': {source}.")


class MultipleStructuredOutputsError(StructuredOutputError):
    """The model called more than one structured-output tool in one message."""

    def __init__(self, tool_names: list[str], ai_message: AIMessage | None = None) -> None:
        self.tool_names = tool_names
        self.ai_message = ai_message
        super().__init__(
            "Model incorrectly returned multiple structured responses "
            f"({', '.join(tool_names)}) when only one is expected."
        )


class SchemaSpec:
    """One schema: its name, description, JSON schema, and how to parse data into it."""

    def __init__(
        self,
        schema: Any,
        *,
        name: str | None = None,
        description: str | None = None,
        strict: bool | None = None,
    ) -> None:
        self.schema = schema
        self.strict = strict
        self.schema_kind: SchemaKind = _kind_of(schema)
        if isinstance(schema, dict):
            self.json_schema: dict[str, Any] = dict(schema)
            self.name = name or str(
                schema.get("title") or f"response_format_{uuid.uuid4().hex[:4]}"
            )
            self.description = description or str(schema.get("description") or "")
            self._adapter: TypeAdapter[Any] | None = None
        else:
            if isinstance(schema, type) and issubclass(schema, BaseModel):
                self._adapter = None
                self.json_schema = schema.model_json_schema()
            else:
                self._adapter = TypeAdapter(pydantic_friendly(schema))
                self.json_schema = self._adapter.json_schema()
            self.name = name or getattr(schema, "__name__", None) or "response_format"
            self.description = description or (getattr(schema, "__doc__", None) or "").strip()
            if dataclasses.is_dataclass(schema) and self.description.startswith(f"{self.name}("):
                self.description = ""  # the generated dataclass docstring is not a description
        self.source_json_schema: dict[str, Any] = dict(self.json_schema)
        """The JSON schema as the schema itself gives it (title included)."""
        self.json_schema.pop("title", None)
        self.json_schema.setdefault("type", "object")

    @property
    def tool_schema(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.json_schema}

    def parse(self, data: Any) -> Any:
        """An instance of the schema from ``data`` (a dict); raises on mismatch.  A JSON-schema
        dict is not checked (nor is it by LangChain): ``data`` is returned as it is."""
        if self._adapter is not None or isinstance(self.schema, type):
            try:
                if self._adapter is None:
                    return self.schema.model_validate(data)
                return self._adapter.validate_python(data)
            except Exception as e:  # worded as LangChain words it (the model reads it)
                schema_name = getattr(self.schema, "__name__", str(self.schema))
                raise ValueError(f"Failed to parse data to {schema_name}: {e}") from e
        return data  # a JSON schema has no type to build: the data is the answer, unchecked


SchemaKind = Literal["pydantic", "dataclass", "typeddict", "json_schema"]


def _kind_of(schema: Any) -> SchemaKind:
    if isinstance(schema, dict):
        return "json_schema"
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return "pydantic"
    if dataclasses.is_dataclass(schema):
        return "dataclass"
    if typing.is_typeddict(schema) or typing_extensions.is_typeddict(schema):
        return "typeddict"
    raise ValueError(
        f"Unsupported schema type: {type(schema)}. Supported types: Pydantic models, "
        "dataclasses, TypedDicts, and JSON schema dicts."
    )


def _members(schema: Any) -> list[Any]:
    """The schemas a response format allows: union members, or a JSON schema's ``oneOf``."""
    origin = get_origin(schema)
    if origin is Union or origin is types.UnionType:
        return [m for a in get_args(schema) if a is not type(None) for m in _members(a)]
    if origin is typing.Annotated:
        return _members(get_args(schema)[0])
    if isinstance(schema, dict) and isinstance(schema.get("oneOf"), list):
        return [m for sub in schema["oneOf"] for m in _members(sub)]
    return [schema]


@dataclass
class ToolStrategy:
    """Structured output through a forced tool call (one tool per union member)."""

    schema: Any
    tool_message_content: str | None = None
    handle_errors: (
        bool | str | type[Exception] | tuple[type[Exception], ...] | Callable[[Exception], str]
    ) = True
    specs: list[SchemaSpec] = field(init=False)

    def __post_init__(self) -> None:
        self.specs = [SchemaSpec(m) for m in _members(self.schema)]

    @property
    def schema_specs(self) -> list[SchemaSpec]:
        """One spec per union member of ``schema`` (upstream's name for ``specs``)."""
        return self.specs

    @property
    def tools(self) -> dict[str, SchemaSpec]:
        return {s.name: s for s in self.specs}

    def error_reply(self, exc: StructuredOutputError) -> str | None:
        """The error ToolMessage text for ``exc``, or None when the error must be raised."""
        handle = self.handle_errors
        if handle is False:
            return None
        if handle is True:
            return ERROR_TEMPLATE.format(error=exc)
        if isinstance(handle, str):
            return handle
        if isinstance(handle, type) and issubclass(handle, Exception):
            return ERROR_TEMPLATE.format(error=exc) if isinstance(exc, handle) else None
        if isinstance(handle, tuple):
            return ERROR_TEMPLATE.format(error=exc) if isinstance(exc, handle) else None
        if callable(handle):
            return str(handle(exc))
        return None


@dataclass
class ProviderStrategy:
    """Structured output through the provider's JSON-schema response format."""

    schema: Any
    strict: bool | None = None
    spec: SchemaSpec = field(init=False)

    def __post_init__(self) -> None:
        self.spec = SchemaSpec(self.schema, strict=self.strict)

    @property
    def schema_spec(self) -> SchemaSpec:
        """The schema's spec (upstream's name for ``spec``)."""
        return self.spec

    def to_model_kwargs(self) -> dict[str, Any]:
        """The keyword arguments that make a model answer in this schema (OpenAI's form)."""
        js: dict[str, Any] = {"name": self.spec.name, "schema": self.spec.source_json_schema}
        if self.strict:
            js["strict"] = True
        return {"response_format": {"type": "json_schema", "json_schema": js}}

    @property
    def response_format(self) -> dict[str, Any]:
        """The OpenAI-style ``response_format`` dict sent to the model."""
        js: dict[str, Any] = {"name": self.spec.name, "schema": self.spec.json_schema}
        if self.spec.description:
            js["description"] = self.spec.description
        if self.strict is not None:
            js["strict"] = self.strict
        return {"type": "json_schema", "json_schema": js}

    def parse(self, message: AIMessage) -> Any:
        # named as LangChain names it: the schema type's name ("response_format" for a dict)
        schema_name = getattr(self.spec.schema, "__name__", "response_format")
        try:
            try:
                data = json.loads(message.text)
            except Exception as e:
                raise ValueError(
                    f"Native structured output expected valid JSON for {schema_name}, "
                    f"but parsing failed: {e}."
                ) from e
            return self.spec.parse(data)
        except Exception as exc:
            raise StructuredOutputValidationError(schema_name, exc, message) from exc


@dataclass
class AutoStrategy:
    """Pick ``ProviderStrategy`` or ``ToolStrategy`` from the model's profile."""

    schema: Any
    tool_strategy: ToolStrategy = field(init=False)
    provider_strategy: ProviderStrategy = field(init=False)

    def __post_init__(self) -> None:
        self.tool_strategy = ToolStrategy(self.schema)
        self.provider_strategy = ProviderStrategy(self.schema)


ResponseFormat = ToolStrategy | ProviderStrategy | AutoStrategy


def as_strategy(response_format: Any) -> ResponseFormat | None:
    """The strategy for ``create_agent(response_format=...)`` (a raw schema means Auto)."""
    if response_format is None or isinstance(
        response_format, ToolStrategy | ProviderStrategy | AutoStrategy
    ):
        return response_format
    return AutoStrategy(response_format)


def resolve_strategy(
    strategy: Any, model: Any, *, with_tools: bool = False
) -> ToolStrategy | ProviderStrategy | None:
    """The concrete strategy for one call (``AutoStrategy`` decided by the model's profile;
    ``with_tools``: the call binds tools too)."""
    if isinstance(strategy, AutoStrategy):
        if native_structured_output(model, with_tools=with_tools):
            return strategy.provider_strategy
        return strategy.tool_strategy
    if isinstance(strategy, ToolStrategy | ProviderStrategy):
        return strategy
    return None


def structured_tool_names(strategy: ResponseFormat | None) -> set[str]:
    """Names of the tools a (tool or auto) strategy may bind; empty for provider strategies."""
    if isinstance(strategy, ToolStrategy):
        return set(strategy.tools)
    if isinstance(strategy, AutoStrategy):
        return set(strategy.tool_strategy.tools)
    return set()


def handle_model_output(
    output: AIMessage, strategy: ToolStrategy | ProviderStrategy | None
) -> ModelResponse:
    """The model node's result for one reply: structured output parsed or answered with errors."""
    if isinstance(strategy, ProviderStrategy):
        if output.tool_calls:
            return ModelResponse([output])
        return ModelResponse([output], structured_response=strategy.parse(output))
    if not isinstance(strategy, ToolStrategy) or not output.tool_calls:
        return ModelResponse([output])
    specs = strategy.tools
    calls = [c for c in output.tool_calls if c.get("name") in specs]
    if not calls:
        return ModelResponse([output])
    if len(calls) > 1:
        multi = MultipleStructuredOutputsError([str(c.get("name")) for c in calls], output)
        reply = strategy.error_reply(multi)
        if reply is None:
            raise multi
        return ModelResponse([output, *(_answer(c, reply) for c in calls)])
    call = calls[0]
    name = str(call.get("name"))
    try:
        value = specs[name].parse(call.get("args") or {})
    except Exception as exc:
        err = StructuredOutputValidationError(name, exc, output)
        reply = strategy.error_reply(err)
        if reply is None:
            raise err from exc
        return ModelResponse([output, _answer(call, reply)])
    content = strategy.tool_message_content or f"Returning structured response: {value}"
    return ModelResponse([output, _answer(call, content)], structured_response=value)


def _answer(call: ToolCall, content: str) -> ToolMessage:
    """The answer to a structured-output call, valid or not (LangChain's: status "success")."""
    return ToolMessage(content=content, tool_call_id=call.get("id") or "", name=call.get("name"))
