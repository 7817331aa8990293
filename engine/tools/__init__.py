"""Tools: ``@tool``, ``BaseTool`` and the injection markers.

A tool's *model-facing* schema (``tool_call_schema``) lists only the parameters the model
fills in; injected parameters (``InjectedState``, ``InjectedStore``, ``InjectedToolCallId``,
``ToolRuntime``) are hidden from it and filled in by ``ToolNode`` at call time.

    @tool
    def create_file(path: str, content: str = "") -> str:
        '''Create a file.

        Args:
            path: where to write it
        '''
"""

from __future__ import annotations

import copy
import inspect
import json
from collections.abc import Awaitable, Callable
from typing import (
    Any,
    Literal,
)

from pydantic import BaseModel, ValidationError

from engine.core.aio import in_thread
from engine.core.foreign import adapt
from engine.tool_errors import ToolArgsValidationError, ToolException, ToolInvocationError
from engine.tool_injection import (
    InjectedState,
    InjectedStore,
    InjectedToolArg,
    InjectedToolCallId,
    Injection,
    ToolRuntime,
)
from engine.tools.signature import docstring_parts, schema_for_function, strict_docstring

__all__ = [
    "BaseTool",
    "InjectedState",
    "InjectedStore",
    "InjectedToolArg",
    "InjectedToolCallId",
    "StructuredTool",
    "ToolArgsValidationError",
    "ToolException",
    "ToolInvocationError",
    "ToolRuntime",
    "tool",
]


class BaseTool:
    """A tool the model can call.  Subclass and implement ``_run`` and/or ``_arun``."""

    name: str = ""
    description: str = ""
    args_schema: type[BaseModel] | dict[str, Any] | None = None
    return_direct: bool = False
    response_format: Literal["content", "content_and_artifact"] = "content"
    extras: dict[str, Any] | None = None
    """Provider-specific settings sent along with the tool's definition (e.g. ``defer_loading``)."""
    handle_tool_error: bool | str | Callable[[ToolException], Any] | None = False
    """A ``ToolException`` the tool raises becomes its answer (status "error"): ``True`` its
    message, a string that string, a callable what it returns; falsy: it escapes."""
    handle_validation_error: bool | str | Callable[[Exception], Any] | None = False
    """Arguments not matching the schema become the answer: ``True`` "Tool input validation
    error", a string that string, a callable what it returns; falsy: the tools node's rule."""
    injected: dict[str, Injection]

    def __init__(
        self,
        *,
        name: str | None = None,
        description: str | None = None,
        args_schema: type[BaseModel] | dict[str, Any] | None = None,
        return_direct: bool | None = None,
        response_format: Literal["content", "content_and_artifact"] | None = None,
        extras: dict[str, Any] | None = None,
        handle_tool_error: bool | str | Callable[[ToolException], Any] | None = None,
        handle_validation_error: bool | str | Callable[[Exception], Any] | None = None,
    ) -> None:
        if extras is not None:
            self.extras = dict(extras)
        if handle_tool_error is not None:
            self.handle_tool_error = handle_tool_error
        if handle_validation_error is not None:
            self.handle_validation_error = handle_validation_error
        if name is not None:
            self.name = name
        if description is not None:
            self.description = description
        if args_schema is not None:
            self.args_schema = args_schema
        if return_direct is not None:
            self.return_direct = return_direct
        if response_format is not None:
            self.response_format = response_format
        if not self.name:
            self.name = type(self).__name__
        if not hasattr(self, "injected"):
            self.injected = {}
        if self.args_schema is None:
            fn = type(self)._run if type(self)._run is not BaseTool._run else type(self)._arun
            if fn is not BaseTool._arun:
                _, param_docs = docstring_parts(fn.__doc__)
                self.args_schema, self.injected = schema_for_function(fn, self.name, param_docs)

    # -- schemas -------------------------------------------------------------------------

    @property
    def parameters_json_schema(self) -> dict[str, Any]:
        """JSON schema of the model-facing arguments (injected parameters hidden).

        Built once per schema (pydantic's schema generation is slow); each call returns a copy.
        """
        key = (id(self.args_schema), tuple(self.injected))
        cached = self.__dict__.get("_schema_cache")
        if cached is None or cached[0] != key:
            cached = (key, self._build_parameters_schema())
            self.__dict__["_schema_cache"] = cached
        return copy.deepcopy(cached[1])

    def _build_parameters_schema(self) -> dict[str, Any]:
        schema = self.args_schema
        if schema is None:
            return {"type": "object", "properties": {}}
        if isinstance(schema, dict):
            return schema
        js = schema.model_json_schema()
        js.pop("title", None)
        props = js.get("properties", {})
        for pname in list(props):
            props[pname].pop("title", None)
            if pname in self.injected:
                props.pop(pname)
        if "required" in js:
            js["required"] = [r for r in js["required"] if r not in self.injected]
            if not js["required"]:
                js.pop("required")
        js.setdefault("type", "object")
        return js

    @property
    def args(self) -> dict[str, Any]:
        """The model-facing arguments: JSON schema properties by name, as LangChain's
        ``tool.args`` shows them (pydantic's titles kept; injected parameters hidden).  The
        schema sent to a model (``parameters_json_schema``) leaves the titles out."""
        schema = self.args_schema
        if schema is None or isinstance(schema, dict):
            return dict(self.parameters_json_schema.get("properties", {}))
        props = schema.model_json_schema().get("properties", {})
        return {k: v for k, v in props.items() if k not in self.injected}

    @property
    def tool_call_schema(self) -> dict[str, Any]:
        """``{"name", "description", "parameters"}`` as sent to a model."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters_json_schema,
        }

    def validate_args(self, args: Any) -> dict[str, Any]:
        """The model's arguments, validated and coerced; raises ``ToolArgsValidationError``."""
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except json.JSONDecodeError as exc:
                raise ToolArgsValidationError(
                    self.name, args, [("args", f"not valid JSON ({exc})")]
                ) from None
        if not isinstance(args, dict):
            raise ToolArgsValidationError(
                self.name, args, [("args", f"expected an object, got {type(args).__name__}")]
            )
        args = {k: v for k, v in args.items() if k not in self.injected}
        schema = self.args_schema
        if schema is None or isinstance(schema, dict):
            return dict(args)
        try:
            obj = schema.model_validate(args)
        except ValidationError as exc:
            errors = [(".".join(str(x) for x in e["loc"]), e["msg"]) for e in exc.errors()]
            raise ToolArgsValidationError(self.name, args, errors, exc) from None
        return {
            k: getattr(obj, k)
            for k in type(obj).model_fields
            if k in args or k not in self.injected
        }

    # -- running -------------------------------------------------------------------------

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"Tool '{self.name}' has no synchronous implementation")

    async def _arun(self, *args: Any, **kwargs: Any) -> Any:
        return await in_thread(self._run, *args, **kwargs)

    @property
    def is_async(self) -> bool:
        return type(self)._arun is not BaseTool._arun

    async def arun(self, args: dict[str, Any], **injected: Any) -> Any:
        """Run with already-validated model args plus injected values; returns the raw output."""
        return await self._arun(**args, **injected)

    async def ainvoke(self, input: Any, config: dict[str, Any] | None = None) -> Any:
        """Call the tool directly: a dict of args returns the output; a ToolCall returns a ToolMessage."""
        from engine.messages import ToolMessage
        from engine.tool_errors import UNHANDLED, tool_error_answer

        is_call = (isinstance(input, dict) and input.get("type") == "tool_call") or (
            isinstance(input, dict) and {"name", "args", "id"} <= set(input)
        )
        call_id = input.get("id") if is_call else None
        try:
            given = input.get("args", {}) if is_call else input if isinstance(input, dict) else {}
            args = self.validate_args(given)
            out = await self.arun(args, **self.default_injections(call_id, config))
        except Exception as exc:
            own = tool_error_answer(self, exc)
            if own is UNHANDLED:
                if isinstance(exc, ToolArgsValidationError) and exc.source is not None:
                    raise exc.source from None  # pydantic's own error, as LangChain's tools raise
                raise
            if not is_call:
                return own
            return ToolMessage(
                content=own if isinstance(own, str | list) else str(own),
                tool_call_id=call_id or "",
                name=self.name,
                status="error",
            )
        if is_call:
            from engine.types import Command

            if isinstance(out, Command | ToolMessage):
                return out  # the tool answered for itself (LangChain passes these through)
            return ToolMessage(
                content=out if isinstance(out, str) else json.dumps(out, default=str),
                tool_call_id=call_id or "",
                name=self.name,
            )
        return out

    def invoke(self, input: Any, config: dict[str, Any] | None = None) -> Any:
        from engine.core.aio import run_sync

        return run_sync(self.ainvoke(input, config))

    def run(self, tool_input: Any, *, config: dict[str, Any] | None = None, **_: Any) -> Any:
        """LangChain's older name for ``invoke`` (its display options are taken and unused)."""
        return self.invoke(tool_input, config)

    def default_injections(
        self, call_id: str | None, config: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Values for the injected parameters when no graph run provides them (a direct call,
        a plan step): the call id, the call's config and a bare ``ToolRuntime``; state and
        store are None."""
        out: dict[str, Any] = {}
        for pname, inj in self.injected.items():
            if inj.kind == "tool_call_id":
                out[pname] = call_id
            elif inj.kind == "config":
                out[pname] = dict(config or {})
            elif inj.kind == "runtime":
                out[pname] = ToolRuntime(tool_call_id=call_id)
            else:
                out[pname] = None
        return out

    def __repr__(self) -> str:
        return f"<tool {self.name}>"


class StructuredTool(BaseTool):
    """A tool made from a function (what ``@tool`` returns)."""

    def __init__(
        self,
        func: Callable[..., Any] | None = None,
        coroutine: Callable[..., Awaitable[Any]] | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        args_schema: type[BaseModel] | dict[str, Any] | None = None,
        return_direct: bool = False,
        response_format: Literal["content", "content_and_artifact"] = "content",
        extras: dict[str, Any] | None = None,
        parse_docstring: bool = False,
        error_on_invalid_docstring: bool = False,
        handle_tool_error: bool | str | Callable[[ToolException], Any] | None = None,
        handle_validation_error: bool | str | Callable[[Exception], Any] | None = None,
    ) -> None:
        source = func or coroutine
        if source is None:
            raise ValueError("StructuredTool needs a function or a coroutine")
        self.func = func
        self.coroutine = coroutine
        tool_name = name or source.__name__
        doc_desc, param_docs = docstring_parts(source.__doc__)
        if parse_docstring:
            doc_desc = strict_docstring(source, param_docs, error_on_invalid_docstring)
        schema, injected = schema_for_function(source, tool_name, param_docs)
        self.injected = injected
        if description is None:
            if not doc_desc and args_schema is None:
                raise ValueError(
                    f"Function {tool_name} must have a docstring if description not provided."
                )
            description = (
                doc_desc
                or (args_schema.__doc__ or "" if isinstance(args_schema, type) else "").strip()
            )
        super().__init__(
            name=tool_name,
            description=description,
            args_schema=args_schema or schema,
            return_direct=return_direct,
            response_format=response_format,
            extras=extras,
            handle_tool_error=handle_tool_error,
            handle_validation_error=handle_validation_error,
        )

    @classmethod
    def from_function(
        cls, func: Callable[..., Any] | None = None, coroutine: Any = None, **kw: Any
    ) -> StructuredTool:
        return cls(func, coroutine, **kw)

    @property
    def is_async(self) -> bool:
        return self.coroutine is not None

    async def _arun(self, *args: Any, **kwargs: Any) -> Any:
        if self.coroutine is not None:
            return await self.coroutine(*args, **kwargs)
        assert self.func is not None
        return await in_thread(self.func, *args, **kwargs)

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        if self.func is not None:
            return self.func(*args, **kwargs)
        from engine.core.aio import run_sync

        assert self.coroutine is not None
        coroutine = self.coroutine

        async def call() -> Any:
            return await coroutine(*args, **kwargs)

        return run_sync(call())

    async def arun(self, args: dict[str, Any], **injected: Any) -> Any:
        if self.coroutine is None and self.func is not None:
            # sync tool: always on a worker thread so the event loop never blocks
            return await in_thread(self.func, **args, **injected)
        return await self._arun(**args, **injected)


def tool(
    name_or_callable: str | Callable[..., Any] | None = None,
    *,
    description: str | None = None,
    return_direct: bool = False,
    args_schema: type[BaseModel] | dict[str, Any] | None = None,
    response_format: Literal["content", "content_and_artifact"] = "content",
    parse_docstring: bool = False,
    error_on_invalid_docstring: bool = True,
    extras: dict[str, Any] | None = None,
) -> Any:
    """Make a tool from a function (sync or async); usable bare or with arguments.

    Argument descriptions always come from a Google-style ``Args:`` section;
    ``parse_docstring=True`` also makes the description the summary paragraphs joined by
    spaces and, with ``error_on_invalid_docstring``, requires that section (LangChain's rule).
    ``extras`` are provider-specific settings carried with the tool's definition."""

    def make(fn: Callable[..., Any], name: str | None) -> StructuredTool:
        is_coro = inspect.iscoroutinefunction(fn)
        return StructuredTool(
            None if is_coro else fn,
            fn if is_coro else None,
            name=name,
            description=description,
            args_schema=args_schema,
            return_direct=return_direct,
            response_format=response_format,
            extras=extras,
            parse_docstring=parse_docstring,
            error_on_invalid_docstring=error_on_invalid_docstring,
        )

    if callable(name_or_callable):
        return make(name_or_callable, None)

    def decorator(fn: Callable[..., Any]) -> StructuredTool:
        return make(fn, name_or_callable if isinstance(name_or_callable, str) else None)

    return decorator


def as_tool(obj: Any) -> BaseTool:
    """A ``BaseTool`` from a tool or a plain function."""
    if isinstance(obj, BaseTool):
        return obj
    adapted = adapt("tool", obj)  # a langchain_core tool (@tool, StructuredTool, a toolkit's)
    if adapted is not None:
        return adapted  # type: ignore[no-any-return]
    if callable(obj):
        return tool(obj)
    raise TypeError(f"Not a tool: {obj!r}")
