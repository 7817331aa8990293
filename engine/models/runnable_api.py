"""The model API tutorials call, on every engine chat model (a mixin of ``BaseChatModel``).

    llm.invoke("a string")                         # a HumanMessage
    llm.bind_tools([search], tool_choice="any")    # a model with default call arguments
    llm.with_structured_output(Weather).invoke(q)  # a Weather (pydantic, dataclass, TypedDict)
    llm.batch(["q1", "q2"])                        # one reply per input
    llm.with_retry(stop_after_attempt=3)           # retries failed calls
    llm.with_fallbacks([other])                    # the next model when one fails

Each returns an object with the same calling methods (``ainvoke``/``invoke``/``astream``/
``stream``/``batch``/``abatch``), so it can be given to ``create_agent`` too.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from pydantic import TypeAdapter

from engine.core.aio import iter_sync, run_sync
from engine.messages import AIMessage

__all__ = ["ModelRunnableAPI"]


class ModelRunnableAPI:
    """Mixin: needs ``ainvoke`` and ``astream`` (``BaseChatModel`` has them)."""

    model_name: str

    async def ainvoke(
        self, messages: Any, config: Any = None, **kwargs: Any
    ) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def astream(
        self, messages: Any, config: Any = None, **kwargs: Any
    ) -> AsyncIterator[Any]:  # pragma: no cover
        raise NotImplementedError

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None, **kw: Any) -> Any:
        return self.bind(tools=list(tools), tool_choice=tool_choice, **kw)

    def bind(self, **defaults: Any) -> Any:
        """This model with default call arguments (a call's own arguments win)."""
        return _Bound(self, {k: v for k, v in defaults.items() if v is not None})

    def with_structured_output(
        self, schema: Any, *, include_raw: bool = False, method: str = "function_calling"
    ) -> Any:
        """Replies parsed into ``schema``: by a forced tool call (``method="function_calling"``,
        any tool-calling model) or the provider's JSON schema format (``"json_schema"``)."""
        if method not in ("function_calling", "json_schema"):
            raise ValueError(f"method must be 'function_calling' or 'json_schema', not {method!r}")
        return _Structured(self, schema, include_raw, native=method == "json_schema")

    async def abatch(self, inputs: Sequence[Any], config: Any = None, **kwargs: Any) -> list[Any]:
        """``ainvoke`` each input at once; ``config``: one for all, or a list, one per input."""
        configs = list(config) if isinstance(config, list | tuple) else [config] * len(inputs)
        if len(configs) != len(inputs):
            raise ValueError(f"batch got {len(inputs)} inputs but {len(configs)} configs")
        calls = (self.ainvoke(i, c, **kwargs) for i, c in zip(inputs, configs, strict=True))
        return list(await asyncio.gather(*calls))

    def batch(self, inputs: Sequence[Any], config: Any = None, **kwargs: Any) -> list[Any]:
        return run_sync(self.abatch(inputs, config, **kwargs))

    def with_retry(
        self,
        *,
        stop_after_attempt: int = 3,
        retry_if_exception_type: tuple[type[BaseException], ...] = (Exception,),
    ) -> Any:
        return _Retrying(self, stop_after_attempt, retry_if_exception_type)

    def with_fallbacks(
        self,
        fallbacks: Sequence[Any],
        *,
        exceptions_to_handle: tuple[type[BaseException], ...] = (Exception,),
    ) -> Any:
        return _Fallbacks([self, *fallbacks], exceptions_to_handle)


class _Derived(ModelRunnableAPI):
    """A model made from another: calls go through ``_call``; streaming is delegated."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.model_name = getattr(inner, "model_name", type(inner).__name__)
        self.profile = getattr(inner, "profile", None)

    def invoke(self, messages: Any, config: Any = None, **kwargs: Any) -> Any:
        return run_sync(self.ainvoke(messages, config, **kwargs))

    def stream(self, messages: Any, config: Any = None, **kwargs: Any) -> Iterator[Any]:
        return iter_sync(self.astream(messages, config, **kwargs))

    def astream(self, messages: Any, config: Any = None, **kwargs: Any) -> AsyncIterator[Any]:
        return self.inner.astream(messages, config, **kwargs)

    def __repr__(self) -> str:
        return f"{type(self).__name__.lstrip('_')}({self.inner!r})"


class _Bound(_Derived):
    def __init__(self, inner: Any, defaults: dict[str, Any]) -> None:
        super().__init__(inner)
        self.defaults = defaults

    async def ainvoke(self, messages: Any, config: Any = None, **kwargs: Any) -> Any:
        return await self.inner.ainvoke(messages, config, **{**self.defaults, **kwargs})

    def astream(self, messages: Any, config: Any = None, **kwargs: Any) -> AsyncIterator[Any]:
        return self.inner.astream(messages, config, **{**self.defaults, **kwargs})


class _Structured(_Derived):
    """Replies parsed into ``schema`` (see ``with_structured_output``)."""

    def __init__(self, inner: Any, schema: Any, include_raw: bool, *, native: bool) -> None:
        super().__init__(inner)
        self.native = native
        self.schema = schema
        self.include_raw = include_raw
        self.adapter: TypeAdapter[Any] = TypeAdapter(schema)
        self.name = str(getattr(schema, "__name__", None) or "Response")
        self.json_schema = self.adapter.json_schema()

    async def ainvoke(self, messages: Any, config: Any = None, **kwargs: Any) -> Any:
        if self.native:
            fmt = {
                "type": "json_schema",
                "json_schema": {"name": self.name, "schema": self.json_schema, "strict": False},
            }
            raw: AIMessage = await self.inner.ainvoke(
                messages, config, response_format=fmt, **kwargs
            )
            data: Any = json.loads(raw.text) if raw.text.strip() else {}
        else:
            spec = {"name": self.name, "description": "", "parameters": self.json_schema}
            raw = await self.inner.ainvoke(
                messages, config, tools=[spec], tool_choice=self.name, **kwargs
            )
            call = next((c for c in raw.tool_calls if c.get("name") == self.name), None)
            if call is None:
                raise ValueError(f"{self.model_name} did not call {self.name}: {raw.text!r}")
            data = call.get("args") or {}
        parsed = self.adapter.validate_python(data)
        return {"raw": raw, "parsed": parsed} if self.include_raw else parsed


class _Retrying(_Derived):
    def __init__(
        self, inner: Any, attempts: int, retry_on: tuple[type[BaseException], ...]
    ) -> None:
        super().__init__(inner)
        if attempts < 1:
            raise ValueError("stop_after_attempt must be >= 1")
        self.attempts = attempts
        self.retry_on = retry_on

    async def ainvoke(self, messages: Any, config: Any = None, **kwargs: Any) -> Any:
        for attempt in range(1, self.attempts + 1):
            try:
                return await self.inner.ainvoke(messages, config, **kwargs)
            except self.retry_on:
                if attempt == self.attempts:
                    raise
        raise AssertionError("unreachable")


class _Fallbacks(_Derived):
    def __init__(self, models: list[Any], handle: tuple[type[BaseException], ...]) -> None:
        super().__init__(models[0])
        self.models = models
        self.handle = handle

    async def ainvoke(self, messages: Any, config: Any = None, **kwargs: Any) -> Any:
        error: BaseException | None = None
        for model in self.models:
            try:
                return await model.ainvoke(messages, config, **kwargs)
            except self.handle as exc:
                error = exc
        assert error is not None
        raise error
