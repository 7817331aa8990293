"""``LLMToolSelectorMiddleware``: let a (small) model pick the tools the main model gets.

Before each model call, the selection model (``model``, else the agent's own) is asked, on
``[system prompt, last HumanMessage]``, for ``{"tools": [names]}``.  A LangChain chat model is
asked as LangChain asks it: ``with_structured_output(<JSON schema of the tool names>)`` (its
own structured output, by its provider's method), with the system prompt alone (plus the
``max_tools`` note), the call tagged ``nostream``.  An engine model gets the JSON schema as its
``response_format`` when it supports it, and a prompt that also lists the tools and asks for
that JSON, so any model can answer. The request then keeps only the chosen
tools, in their original order, capped at ``max_tools`` (the model's first choices win), plus
every ``always_include`` tool (not counted against the cap) and any provider tool dicts.

An answer that is not such JSON is asked again up to ``max_retries`` times; after that
``on_parsing_failure`` decides (default ``"error"``: ``ValueError`` naming the malformed
answer). An answer naming unknown tools raises ``ValueError("Model selected invalid tools:
[...]")`` at once (``retry_invalid_names=True`` asks again first).

Reported as ``middleware.action`` ``tools_selected``; a malformed answer as
``tool_selection_retry``, a fallback selection as ``tool_selection_fallback``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from engine.core import foreign
from engine.events import MiddlewareAction
from engine.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from engine.middleware.internal_calls import (
    InternalCallTransformer,
    internal_call_config,
    internal_call_metadata,
)
from engine.middleware.retry_policy import Call, Emit, Steps, drive_async, drive_sync, model_name
from engine.middleware.types import AgentMiddleware, ModelCallResult, ModelRequest, ModelResponse
from engine.tools import BaseTool

__all__ = ["DEFAULT_SYSTEM_PROMPT", "LLMToolSelectorMiddleware", "OnParsingFailure"]

OnParsingFailure: TypeAlias = (
    Literal["error", "none", "all"] | list[str] | Callable[[Any], list[str]]
)
"""What a selection answer that is still malformed after the retries selects."""

DEFAULT_SYSTEM_PROMPT = (
    "Your goal is to select the most relevant tools for answering the user's query."
)

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)


class _Malformed(ValueError):
    """The answer is not ``{"tools": [names]}``; ``payload`` is what it said instead."""

    def __init__(self, message: str, payload: Any) -> None:
        super().__init__(message)
        self.payload = payload


def _parse_answer(answer: Any) -> list[str]:
    """The tool names of a selection answer (an AIMessage with JSON text or a tool call)."""
    payload: Any = None
    if answer is None:  # a LangChain structured output that found no answer
        raise _Malformed('expected {"tools": [tool names]}, got None', None)
    if isinstance(answer, AIMessage) and answer.tool_calls:
        payload = answer.tool_calls[0].get("args")
    elif isinstance(answer, dict):
        payload = answer
    else:
        text = answer.text if isinstance(answer, BaseMessage) else str(answer)
        text = text.strip()
        fenced = _FENCE.match(text)
        try:
            payload = json.loads(fenced.group(1) if fenced else text)
        except json.JSONDecodeError:
            raise _Malformed(
                f'expected JSON like {{"tools": [...]}}, got {text[:200]!r}', text
            ) from None
    names = payload.get("tools") if isinstance(payload, dict) else None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise _Malformed(f'expected {{"tools": [tool names]}}, got {payload!r}', payload)
    return names


@dataclass
class _LangChainAsk:
    """A selection call of a LangChain model: its structured-output runnable and messages."""

    structured: Any
    messages: list[Any]


def _lc_config() -> dict[str, Any]:
    """The config of a LangChain selection call: internal, never streamed (as LangChain's)."""
    return {
        "metadata": {"lc_source": "tool_selection", **internal_call_metadata()},
        "tags": ["nostream"],
    }


def _selection_schema(candidates: list[BaseTool]) -> dict[str, Any]:
    """The JSON schema a LangChain selection model structures its answer by (the one of
    LangChain's ``ToolSelectionResponse``): a list of tool-name constants with descriptions."""
    names = [{"const": t.name, "description": t.description, "type": "string"} for t in candidates]
    items = names[0] if len(names) == 1 else {"anyOf": names}
    return {
        "description": "Use to select relevant tools.",
        "properties": {
            "tools": {
                "description": "Tools to use. Place the most relevant tools first.",
                "items": items,
                "title": "Tools",
                "type": "array",
            }
        },
        "required": ["tools"],
        "title": "ToolSelectionResponse",
        "type": "object",
    }


def _foreign_model(model: Any) -> Any | None:
    """The LangChain chat model behind ``model`` (itself, or the one our adapter wraps)."""
    for candidate in (model, getattr(model, "lc_model", None)):
        if candidate is not None and foreign.family_of(candidate) is not None:
            return candidate if hasattr(candidate, "with_structured_output") else None
    return None


class LLMToolSelectorMiddleware(AgentMiddleware):
    """Narrow the tools of each model call to the ones a selection model finds relevant.

    Args:
        model: the selection model (an object or ``"provider:model"``); None = the agent's.
        system_prompt: instructions for the selection model.
        max_tools: at most this many selected tools (``always_include`` not counted).
        always_include: tool names always kept.
        max_retries: how many times a malformed answer is asked again (``>= 0``).
        on_parsing_failure: what a still-malformed answer selects: ``"error"`` raises,
            ``"none"`` no tools, ``"all"`` every tool (``max_tools`` not applied), a list of
            names, or ``(last_answer) -> names``.
        retry_invalid_names: Stepwise option - ask again (within ``max_retries``) when the
            answer names unknown tools, instead of raising at once.
    """

    transformers = (InternalCallTransformer,)  # selection calls stay out of v3 streams

    def __init__(
        self,
        model: Any = None,
        *,
        system_prompt: str = DEFAULT_SYSTEM_PROMPT,
        max_tools: int | None = None,
        always_include: Sequence[str] | None = None,
        max_retries: int = 1,
        on_parsing_failure: OnParsingFailure = "error",
        retry_invalid_names: bool = False,
    ) -> None:
        if max_tools is not None and max_tools < 1:
            raise ValueError("max_tools must be >= 1")
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if isinstance(always_include, str):
            raise ValueError("always_include must be a list of tool names, not a string")
        from engine.models.resolve import as_chat_model

        model = as_chat_model(model)
        self.model = model
        self.system_prompt = system_prompt
        self.max_tools = max_tools
        self.always_include = list(always_include or [])
        self.max_retries = max_retries
        if not (
            on_parsing_failure in ("error", "none", "all")
            or callable(on_parsing_failure)
            or isinstance(on_parsing_failure, list)
        ):
            raise ValueError(
                "on_parsing_failure must be 'error', 'none', 'all', a list of tool names or a "
                f"callable, got {on_parsing_failure!r}"
            )
        self.on_parsing_failure: OnParsingFailure = on_parsing_failure
        self.retry_invalid_names = retry_invalid_names
        self.tools = []

    def _cap_note(self) -> str:
        return (
            "IMPORTANT: List the tool names in order of relevance, with the most relevant first. "
            f"If you exceed the maximum number of tools, only the first {self.max_tools} will be used."
        )

    def _prompt(self, candidates: list[BaseTool]) -> str:
        lines = [self.system_prompt]
        if self.max_tools is not None:
            lines.append(self._cap_note())
        lines.append(
            "Available tools:\n" + "\n".join(f"- {t.name}: {t.description}" for t in candidates)
        )
        lines.append('Answer with JSON only: {"tools": ["tool_name", ...]}')
        return "\n\n".join(lines)

    @staticmethod
    def _response_format(names: list[str]) -> dict[str, Any]:
        schema = {
            "type": "object",
            "properties": {
                "tools": {
                    "type": "array",
                    "items": {"type": "string", "enum": names},
                    "description": "Tools to use. Place the most relevant tools first.",
                }
            },
            "required": ["tools"],
            "additionalProperties": False,
        }
        return {
            "type": "json_schema",
            "json_schema": {"name": "ToolSelectionResponse", "schema": schema, "strict": True},
        }

    def _select(self, request: ModelRequest) -> Steps[ModelRequest]:
        tools = [t for t in request.tools if isinstance(t, BaseTool)]
        names = {t.name for t in tools}
        missing = [n for n in self.always_include if n not in names]
        if missing:
            raise ValueError(
                f"Tools in always_include not found in request: {missing}. Available tools: {sorted(names)}"
            )
        candidates = [t for t in tools if t.name not in self.always_include]
        if not candidates:
            return request
        last_human = next(
            (m for m in reversed(request.messages) if isinstance(m, HumanMessage)), None
        )
        if last_human is None:
            raise ValueError("No user message found in request messages")
        model = self.model if self.model is not None else request.model
        valid = [t.name for t in candidates]
        call: Any
        lc_model = _foreign_model(model)
        if lc_model is not None:
            prompt = self.system_prompt
            if self.max_tools is not None:
                prompt += "\n" + self._cap_note()
            call = _LangChainAsk(
                lc_model.with_structured_output(_selection_schema(candidates)),
                [{"role": "system", "content": prompt}, foreign.to_family("langchain", last_human)],
            )
        else:
            kwargs: dict[str, Any] = {}
            profile = getattr(model, "profile", None)
            if getattr(profile, "structured_output", None) is not False:
                kwargs["response_format"] = self._response_format(valid)
            call = ([SystemMessage(content=self._prompt(candidates)), last_human], kwargs)
        chosen: list[str] | None = None
        payload: Any = None
        for attempt in range(1, self.max_retries + 2):
            outcome = yield Call(call)
            assert outcome is not None
            if outcome.error is not None:
                raise outcome.error
            try:
                chosen = _parse_answer(outcome.value)
                invalid = [n for n in chosen if n not in valid]
                if invalid and self.retry_invalid_names and attempt <= self.max_retries:
                    raise _Malformed(f"Model selected invalid tools: {invalid}", chosen)
                break
            except _Malformed as exc:
                chosen = None
                payload = exc.payload
                if attempt > self.max_retries:
                    break
                yield Emit(
                    MiddlewareAction,
                    {
                        "middleware": self.name,
                        "action": "tool_selection_retry",
                        "detail": {
                            "attempt": attempt,
                            "error": str(exc),
                            "model": model_name(model),
                        },
                    },
                )
        capped = chosen is not None
        if chosen is None:
            chosen = self._fallback(payload, valid)
            yield Emit(
                MiddlewareAction,
                {
                    "middleware": self.name,
                    "action": "tool_selection_fallback",
                    "detail": {
                        "on_parsing_failure": self.on_parsing_failure
                        if isinstance(self.on_parsing_failure, str | list)
                        else "callable",
                        "selected": chosen,
                        "model": model_name(model),
                    },
                },
            )
        invalid = [n for n in chosen if n not in valid]
        if invalid:
            raise ValueError(f"Model selected invalid tools: {invalid}")
        picked: list[str] = []
        for n in chosen:
            if n not in picked and (
                not capped or self.max_tools is None or len(picked) < self.max_tools
            ):
                picked.append(n)
        keep = {*picked, *self.always_include}
        new_tools = [t for t in request.tools if not isinstance(t, BaseTool) or t.name in keep]
        yield Emit(
            MiddlewareAction,
            {
                "middleware": self.name,
                "action": "tools_selected",
                "detail": {
                    "selected": [t.name for t in new_tools if isinstance(t, BaseTool)],
                    "chosen_by_model": chosen,
                    "always_include": list(self.always_include),
                    "available": [t.name for t in tools],
                    "model": model_name(model),
                },
            },
        )
        return request.override(tools=new_tools)

    def _fallback(self, payload: Any, valid: list[str]) -> list[str]:
        rule = self.on_parsing_failure
        if rule == "error":
            raise ValueError(
                "LLMToolSelectorMiddleware: selection model returned a malformed response "
                f"after {self.max_retries} retries (expected a dict with a 'tools' list): "
                f"{payload!r}"
            )
        if rule == "none":
            return []
        if rule == "all":
            return list(valid)
        if callable(rule):
            return list(rule(payload))
        return list(rule)

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelCallResult:
        def ask(call: tuple[list[BaseMessage], dict[str, Any]] | _LangChainAsk) -> Any:
            if isinstance(call, _LangChainAsk):
                return call.structured.invoke(call.messages, config=_lc_config())
            model = self.model if self.model is not None else request.model
            marker = internal_call_config(model.invoke, "tool_selection")
            return model.invoke(call[0], **call[1], **marker)

        return handler(drive_sync(self._select(request), ask))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelCallResult:
        async def ask(call: tuple[list[BaseMessage], dict[str, Any]] | _LangChainAsk) -> Any:
            if isinstance(call, _LangChainAsk):
                return await call.structured.ainvoke(call.messages, config=_lc_config())
            model = self.model if self.model is not None else request.model
            marker = internal_call_config(model.ainvoke, "tool_selection")
            return await model.ainvoke(call[0], **call[1], **marker)

        return await handler(await drive_async(self._select(request), ask))
