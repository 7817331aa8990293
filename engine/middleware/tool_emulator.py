"""``LLMToolEmulator``: answer selected tool calls with a model instead of running the tools.

For testing agents without side effects: a call to an emulated tool (every tool when
``tools`` is None, none when it is empty) never reaches the tool; the emulator model is asked,
in one ``HumanMessage``, to produce a realistic output for the tool's name, description and
arguments, and its reply's content answers the call as a ``ToolMessage``. Other tools run
normally.

``model`` is a model object or a ``"provider:model"`` string (``temperature=1``). Leaving it out
is deprecated (upstream's default is an Anthropic model): a ``DeprecationWarning`` is issued and,
when no Anthropic provider is available, an ``ImportError`` says to pass ``model``.

The emulation call is tagged as internal (``internal_call_metadata``, ``lc_source:
tool_emulation``) for models that take a LangChain-style ``config``. Each emulated call is
reported as ``middleware.action`` ``tool_emulated`` (tool, call id, arguments, emulator model,
the emulated output and the prompt sent).
"""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from engine.core import foreign
from engine.events import MiddlewareAction
from engine.messages import BaseMessage, HumanMessage, ToolMessage
from engine.middleware.internal_calls import (
    InternalCallTransformer,
    accepts_config,
    internal_call_metadata,
)
from engine.middleware.retry_policy import Call, Emit, Steps, drive_async, drive_sync, model_name
from engine.middleware.types import AgentMiddleware, ToolCallRequest
from engine.tools import BaseTool
from engine.types import Command

__all__ = ["LLMToolEmulator"]

DEFAULT_EMULATOR_MODEL = "anthropic:claude-sonnet-4-5-20250929"
ToolResult = ToolMessage | Command


def init_chat_model(model: str, **kwargs: Any) -> Any:
    """``engine.models.init_chat_model``, imported on first use (module-level for patching).

    A ``"provider:model"`` whose provider this engine has no integration for raises
    ``ImportError`` (as LangChain does when the provider's package is not installed).
    """
    from engine.models.init import PROVIDERS
    from engine.models.init import init_chat_model as init

    provider = model.split(":", 1)[0].strip().lower() if ":" in model else ""
    if provider and provider not in PROVIDERS:
        raise ImportError(
            f"No integration for model provider {provider!r} is available "
            f"(known: {', '.join(sorted(PROVIDERS))})"
        )
    return init(model, **kwargs)


def _default_model() -> Any:
    warnings.warn(
        f"LLMToolEmulator's default model ({DEFAULT_EMULATOR_MODEL!r}) is deprecated and will be "
        "removed in a future release. Pass `model` explicitly instead.",
        DeprecationWarning,
        stacklevel=3,
    )
    try:
        return init_chat_model(DEFAULT_EMULATOR_MODEL, temperature=1)
    except (ImportError, ValueError) as exc:
        raise ImportError(
            "LLMToolEmulator's default model needs an Anthropic provider (in LangChain, the "
            "`langchain-anthropic` package), which is not available; pass `model=...` "
            "explicitly to use a different provider."
        ) from exc


class LLMToolEmulator(AgentMiddleware):
    """Emulate tools with a model.

    Args:
        tools: tool names or ``BaseTool``s to emulate; None = all tools, ``[]`` = none.
        model: the emulator model (object or ``"provider:model"``).
    """

    transformers = (InternalCallTransformer,)  # the emulation call stays out of v3 streams

    def __init__(
        self,
        *,
        tools: Sequence[str | BaseTool] | None = None,
        model: Any = None,
    ) -> None:
        self.emulate_all = tools is None
        self.tools_to_emulate: set[str] = {
            t if isinstance(t, str) else t.name for t in (tools or [])
        }
        if model is None:
            model = _default_model()
        elif isinstance(model, str):
            model = init_chat_model(model, temperature=1)
        self.model: Any = model
        self.tools = []

    def emulates(self, tool_name: str) -> bool:
        return self.emulate_all or tool_name in self.tools_to_emulate

    @staticmethod
    def prompt(request: ToolCallRequest) -> str:
        """What the emulator model is asked for one tool call."""
        name = request.tool_call.get("name", "")
        description = (
            request.tool.description if request.tool is not None else "No description available"
        )
        return (
            "You are emulating a tool call for testing purposes.\n\n"
            f"Tool: {name}\n"
            f"Description: {description}\n"
            f"Arguments: {request.tool_call.get('args', {})}\n\n"
            "Generate a realistic response that this tool would return given these arguments.\n"
            "Return ONLY the tool's output, no explanation or preamble. "
            "Introduce variation into your responses."
        )

    def _emulate(self, request: ToolCallRequest) -> Steps[ToolMessage]:
        name = str(request.tool_call.get("name", ""))
        call_id = str(request.tool_call.get("id") or "")
        prompt = self.prompt(request)
        outcome = yield Call([HumanMessage(content=prompt)])
        assert outcome is not None
        if outcome.error is not None:
            raise outcome.error
        reply = outcome.value
        # a langchain_core model (the program's own) answers with its own AIMessage
        reply = foreign.adapt("message", reply) or reply
        content = reply.content if isinstance(reply, BaseMessage) else str(reply)
        yield Emit(
            MiddlewareAction,
            {
                "middleware": self.name,
                "action": "tool_emulated",
                "detail": {
                    "tool": name,
                    "tool_call_id": call_id,
                    "args": _plain(request.tool_call.get("args", {})),
                    "model": model_name(self.model),
                    "output": _plain(content),
                    "prompt": prompt,
                },
            },
        )
        return ToolMessage(content=content, tool_call_id=call_id, name=name)

    def _config(self, method: Any) -> dict[str, Any]:
        if not accepts_config(method):
            return {}
        return {"config": {"metadata": {"lc_source": "tool_emulation", **internal_call_metadata()}}}

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], ToolResult]
    ) -> ToolResult:
        if not self.emulates(str(request.tool_call.get("name", ""))):
            return handler(request)

        def ask(messages: list[BaseMessage]) -> Any:
            return self.model.invoke(messages, **self._config(self.model.invoke))

        return drive_sync(self._emulate(request), ask)

    async def awrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[ToolResult]]
    ) -> ToolResult:
        if not self.emulates(str(request.tool_call.get("name", ""))):
            return await handler(request)

        async def ask(messages: list[BaseMessage]) -> Any:
            return await self.model.ainvoke(messages, **self._config(self.model.ainvoke))

        return await drive_async(self._emulate(request), ask)


def _plain(value: Any) -> Any:
    """``value`` as JSON-friendly data for an event (unknown objects become their repr)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return repr(value)
