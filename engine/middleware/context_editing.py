"""``ContextEditingMiddleware`` + ``ClearToolUsesEdit``: trim old tool results from requests.

The middleware edits the **request** the model sees (``wrap_model_call``), never the state:
the full history stays in the checkpoints, only the model's copy is trimmed.

``ClearToolUsesEdit``: when the request holds more than ``trigger`` tokens, every ToolMessage
but the last ``keep`` has its content replaced by ``placeholder``, oldest first, skipping tools
in ``exclude_tools`` and results already cleared; with ``clear_at_least > 0`` it stops once
that many tokens were reclaimed; with ``clear_tool_inputs`` the matching call's arguments in
the AIMessage are emptied too.

Token counting is approximate by default (``count_tokens_approximately``: about four
characters per token plus a small per-message overhead, tool calls included; no tokenizer is
needed). Pass ``token_counter=`` for an exact count.

Every edit is reported as ``middleware.action`` ``context_edit`` with
``{"cleared": [tool_call_ids], "tokens_before", "tokens_after"}``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from engine.events import MiddlewareAction
from engine.message_tokens import count_tokens_approximately
from engine.messages import AIMessage, BaseMessage, ToolMessage
from engine.middleware.retry_policy import Emit, Steps, drive_async, drive_sync
from engine.middleware.types import AgentMiddleware, ModelCallResult, ModelRequest, ModelResponse

__all__ = [
    "DEFAULT_TOOL_PLACEHOLDER",
    "ClearToolUsesEdit",
    "ContextEdit",
    "ContextEditingMiddleware",
    "TokenCounter",
    "count_tokens_approximately",
]

DEFAULT_TOOL_PLACEHOLDER = "[cleared]"

TokenCounter = Callable[[Sequence[BaseMessage]], int]


class ContextEdit(Protocol):
    """A context editing strategy: edits ``messages`` in place, returns the ids it cleared."""

    def apply(self, messages: list[BaseMessage], *, count_tokens: TokenCounter) -> list[str]: ...


def _is_cleared(msg: ToolMessage) -> bool:
    return bool((msg.response_metadata.get("context_editing") or {}).get("cleared"))


@dataclass
class ClearToolUsesEdit:
    """Replace old tool results with a placeholder once the context grows past ``trigger``."""

    trigger: int = 100_000
    clear_at_least: int = 0
    keep: int = 3
    clear_tool_inputs: bool = False
    exclude_tools: Sequence[str] = ()
    placeholder: str = DEFAULT_TOOL_PLACEHOLDER
    _excluded: frozenset[str] = field(default=frozenset(), init=False, repr=False)

    def __post_init__(self) -> None:
        for label in ("trigger", "clear_at_least", "keep"):
            value = getattr(self, label)
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"{label} must be an int, got {value!r}")
            if value < 0:
                raise ValueError(f"{label} must be >= 0")
        if isinstance(self.exclude_tools, str):
            raise ValueError("exclude_tools must be a sequence of tool names, not a string")
        self._excluded = frozenset(self.exclude_tools)

    def apply(self, messages: list[BaseMessage], *, count_tokens: TokenCounter) -> list[str]:
        before = count_tokens(messages)
        if before <= self.trigger:
            return []
        tool_indexes = [i for i, m in enumerate(messages) if isinstance(m, ToolMessage)]
        candidates = tool_indexes[: max(0, len(tool_indexes) - self.keep)]
        cleared: list[str] = []
        for idx in candidates:
            msg = messages[idx]
            assert isinstance(msg, ToolMessage)
            if _is_cleared(msg):
                continue
            ai_idx, call = _find_call(messages, idx, msg.tool_call_id)
            if (msg.name or (call or {}).get("name")) in self._excluded:
                continue
            messages[idx] = msg.model_copy(
                update={
                    "content": self.placeholder,
                    "artifact": None,
                    "response_metadata": {
                        **msg.response_metadata,
                        "context_editing": {"cleared": True, "strategy": "clear_tool_uses"},
                    },
                }
            )
            cleared.append(msg.tool_call_id)
            if self.clear_tool_inputs and ai_idx is not None:
                messages[ai_idx] = _without_args(messages[ai_idx], msg.tool_call_id)  # type: ignore[arg-type]
            if self.clear_at_least > 0 and before - count_tokens(messages) >= self.clear_at_least:
                break
        return cleared


def _find_call(
    messages: list[BaseMessage], before: int, call_id: str
) -> tuple[int | None, dict[str, Any] | None]:
    for i in range(before - 1, -1, -1):
        m = messages[i]
        if isinstance(m, AIMessage):
            for call in m.tool_calls:
                if call.get("id") == call_id:
                    return i, dict(call)
    return None, None


def _without_args(message: AIMessage, call_id: str) -> AIMessage:
    calls = [{**c, "args": {}} if c.get("id") == call_id else c for c in message.tool_calls]
    meta = dict(message.response_metadata)
    entry = dict(meta.get("context_editing") or {})
    entry["cleared_tool_inputs"] = sorted({*entry.get("cleared_tool_inputs", []), call_id})
    meta["context_editing"] = entry
    return message.model_copy(update={"tool_calls": calls, "response_metadata": meta})


class ContextEditingMiddleware(AgentMiddleware):
    """Apply context edits (default: one ``ClearToolUsesEdit()``) to every model request.

    Args:
        edits: the strategies, applied in order.
        token_count_method: ``"approximate"`` (``count_tokens_approximately``) or ``"model"``
            (the request model's ``get_num_tokens_from_messages(messages, tools)``, when it
            has one; else approximate).
        token_counter: a custom ``(messages) -> int``; overrides ``token_count_method``.
    """

    def __init__(
        self,
        edits: Sequence[ContextEdit] | None = None,
        *,
        token_count_method: Literal["approximate", "model"] = "approximate",
        token_counter: TokenCounter | None = None,
    ) -> None:
        if token_count_method not in ("approximate", "model"):
            raise ValueError(
                f"token_count_method must be 'approximate' or 'model', got {token_count_method!r}"
            )
        self.token_count_method = token_count_method
        self.custom_counter = token_counter is not None
        if isinstance(edits, ClearToolUsesEdit):
            edits = [edits]
        self.edits: list[ContextEdit] = list(edits) if edits is not None else [ClearToolUsesEdit()]
        for edit in self.edits:
            if not callable(getattr(edit, "apply", None)):
                raise ValueError(
                    f"every edit needs an apply(messages, *, count_tokens) method, got {edit!r}"
                )
        self.token_counter: TokenCounter = token_counter or count_tokens_approximately
        self.tools = []

    def _edit(self, request: ModelRequest) -> Steps[ModelRequest]:
        messages = list(request.messages)
        if not self.edits or not messages:
            return request
        system = [request.system_message] if request.system_message is not None else []
        by_model = getattr(request.model, "get_num_tokens_from_messages", None)

        def count(msgs: Sequence[BaseMessage]) -> int:
            if self.token_count_method == "model" and not self.custom_counter and by_model:
                return int(by_model([*system, *msgs], request.tools))
            return self.token_counter([*system, *msgs])

        before = count(messages)
        cleared: list[str] = []
        for edit in self.edits:
            cleared.extend(edit.apply(messages, count_tokens=count))
        if not cleared:
            return request
        yield Emit(
            MiddlewareAction,
            {
                "middleware": self.name,
                "action": "context_edit",
                "detail": {
                    "cleared": cleared,
                    "tokens_before": before,
                    "tokens_after": count(messages),
                },
            },
        )
        return request.override(messages=messages)

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelCallResult:
        return handler(drive_sync(self._edit(request)))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelCallResult:
        return await handler(await drive_async(self._edit(request)))
