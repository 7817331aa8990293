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

import json
import math
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from engine.events import MiddlewareAction
from engine.messages import AIMessage, BaseMessage, ToolMessage, coerce_messages
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


def count_tokens_approximately(
    messages: Iterable[Any],
    *,
    chars_per_token: float = 4.0,
    extra_tokens_per_message: float = 3.0,
    count_name: bool = True,
    tokens_per_image: int = 85,
    use_usage_metadata_scaling: bool = False,
    tools: Sequence[Any] | None = None,
) -> int:
    """An estimate of the prompt tokens of ``messages`` (no tokenizer needed), counted as
    LangChain's estimate counts them, so a trigger in tokens fires on the same turn.

    Per message: the characters of its text (text blocks; an image block is
    ``tokens_per_image``; another block, the length of its repr), of its tool calls' repr (an
    AI message whose content is a string), of a tool message's call id, of its OpenAI role and
    (``count_name``) of its name; divided by ``chars_per_token`` and rounded up, plus
    ``extra_tokens_per_message``.  ``tools``: their JSON schemas are counted once.  Good enough
    to decide *when* to trim; not a billing figure.

    With ``use_usage_metadata_scaling``, when every AIMessage names the same
    ``response_metadata["model_provider"]``, the estimate is calibrated on the latest AIMessage
    that reports ``usage_metadata["total_tokens"]``: multiplied by reported / estimated (up to
    and with that message), kept between 1.0 and 1.25.
    """
    total = 0.0
    if tools:
        chars = sum(len(json.dumps(_tool_schema(t))) for t in tools)
        total += math.ceil(chars / chars_per_token)
    providers: set[Any] = set()
    reported: int | None = None
    estimated_at_report = 0.0
    count = 0
    for m in coerce_messages(list(messages)):
        count += 1
        chars, images = _content_chars(m.content)
        total += images * tokens_per_image
        if isinstance(m, AIMessage) and not isinstance(m.content, list) and m.tool_calls:
            chars += len(repr(m.tool_calls))
        if isinstance(m, ToolMessage):
            chars += len(m.tool_call_id)
        chars += len(openai_role(m))
        if m.name and count_name:
            chars += len(m.name)
        total += math.ceil(chars / chars_per_token) + extra_tokens_per_message
        if use_usage_metadata_scaling and isinstance(m, AIMessage):
            providers.add(m.response_metadata.get("model_provider"))
            usage_total = (m.usage_metadata or {}).get("total_tokens")
            if isinstance(usage_total, int):
                reported, estimated_at_report = usage_total, total
    if (
        use_usage_metadata_scaling
        and count > 1
        and len(providers) == 1
        and None not in providers
        and reported is not None
        and estimated_at_report > 0
    ):
        total *= min(1.25, max(1.0, reported / estimated_at_report))
    return math.ceil(total)


def openai_role(message: BaseMessage) -> str:
    """The role OpenAI's API gives ``message`` (a system message may carry its own)."""
    if isinstance(message, AIMessage):
        return "assistant"
    if isinstance(message, ToolMessage):
        return "tool"
    if message.type == "system":
        return str(message.additional_kwargs.get("__openai_role__", "system"))
    return "user"


def _content_chars(content: Any) -> tuple[int, int]:
    """(characters, images) of a message's content, as the estimate counts them."""
    if isinstance(content, str):
        return len(content), 0
    if not isinstance(content, list):
        return len(repr(content)), 0
    chars = images = 0
    for block in content:
        if isinstance(block, str):
            chars += len(block)
        elif isinstance(block, dict) and block.get("type", "") in ("image", "image_url"):
            images += 1
        elif isinstance(block, dict) and block.get("type", "") == "text":
            chars += len(block.get("text", ""))
        else:
            chars += len(repr(block))
    return chars, images


def _tool_schema(tool: Any) -> Any:
    """A tool as the estimate counts it: a dict as given, else its name, description and
    parameters (without the schema's own title and description)."""
    if isinstance(tool, dict):
        return tool
    parameters = dict(tool.tool_call_schema)
    parameters.pop("title", None)
    parameters.pop("description", None)
    return {"name": tool.name, "description": tool.description, "parameters": parameters}


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
