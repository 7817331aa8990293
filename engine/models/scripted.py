"""``ScriptedChatModel``: a deterministic model for demos and tests.

Each call consumes the next item of the script:

- an ``AIMessage`` — returned as a copy with a fresh id (tool calls without ids get ids);
- a ``str`` — an ``AIMessage`` with that text;
- an exception instance (or class) — raised; this is how a demo scripts a timeout;
- a callable ``(messages, tools) -> AIMessage | str`` (may be async) — called with the
  request's messages and tool schemas.

``.calls`` records every request (``ChatRequest``: messages, tools, tool_choice,
response_format, settings), including those that raised.  ``push`` and ``inject_error`` put
items at the front of the script, for fault injection in the middle of a run.
"""

from __future__ import annotations

import inspect
import threading
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias

from engine.messages import AIMessage, AIMessageChunk, BaseMessage, ToolCall
from engine.models.base import BaseChatModel, ChatRequest, ModelProfile
from engine.models.errors import ChatModelError

__all__ = ["ScriptExhaustedError", "ScriptItem", "ScriptedChatModel"]

ScriptItem: TypeAlias = (
    AIMessage
    | str
    | BaseException
    | type[BaseException]
    | Callable[[list[BaseMessage], list[dict[str, Any]]], Any]
)


class ScriptExhaustedError(ChatModelError):
    """A ``ScriptedChatModel`` was called more times than it has scripted responses."""


def _preview(messages: list[BaseMessage]) -> str:
    if not messages:
        return "no messages"
    last = messages[-1]
    text = last.text if len(last.text) <= 80 else last.text[:77] + "..."
    return f"last message: {type(last).__name__} {text!r}"


def _fresh(message: AIMessage) -> AIMessage:
    """A copy with a new id; tool calls without an id get one."""
    if isinstance(message, AIMessageChunk):
        message = message.to_message()
    copy = message.model_copy(deep=True)
    copy.id = str(uuid.uuid4())
    copy.tool_calls = [
        ToolCall(**{**call, "id": call.get("id") or f"call_{uuid.uuid4().hex[:24]}"})  # type: ignore[typeddict-item]
        for call in copy.tool_calls
    ]
    return copy


class ScriptedChatModel(BaseChatModel):
    """Replies from a script, one item per call (thread-safe)."""

    def __init__(
        self,
        responses: Iterable[ScriptItem],
        *,
        name: str = "scripted",
        profile: ModelProfile | None = None,
        **model_settings: Any,
    ) -> None:
        super().__init__(name, profile=profile, **model_settings)
        self._script: deque[ScriptItem] = deque(responses)
        self._scripted_total = len(self._script)
        self._lock = threading.Lock()
        self.calls: list[ChatRequest] = []

    def __repr__(self) -> str:
        return f"ScriptedChatModel(name={self.model_name!r}, remaining={self.remaining})"

    @property
    def remaining(self) -> int:
        """How many scripted items are left."""
        return len(self._script)

    def push(self, *items: ScriptItem) -> None:
        """Put ``items`` at the front of the script (the first one is used next)."""
        with self._lock:
            self._script.extendleft(reversed(items))
            self._scripted_total += len(items)

    def inject_error(self, exc: BaseException | type[BaseException], times: int = 1) -> None:
        """Make the next ``times`` calls raise ``exc``."""
        if times < 1:
            raise ValueError("times must be at least 1")
        self.push(*([exc] * times))

    def _take(self, request: ChatRequest) -> tuple[int, ScriptItem]:
        with self._lock:
            self.calls.append(request)
            number = len(self.calls)
            if not self._script:
                raise ScriptExhaustedError(
                    f"ScriptedChatModel {self.model_name!r}: no scripted response for call "
                    f"#{number} (the script had {self._scripted_total} response(s)); "
                    f"{_preview(request.messages)}"
                )
            return number, self._script.popleft()

    async def _agenerate(self, request: ChatRequest) -> AIMessage:
        number, item = self._take(request)
        if isinstance(item, type) and issubclass(item, BaseException):
            item = item(f"scripted failure for call #{number} of {self.model_name!r}")
        if isinstance(item, BaseException):
            raise item.with_traceback(None)
        if callable(item) and not isinstance(item, AIMessage):
            item = item(list(request.messages), list(request.tools))
            if inspect.isawaitable(item):
                item = await item
        if isinstance(item, str):
            return AIMessage(content=item, id=str(uuid.uuid4()))
        if isinstance(item, AIMessage):
            return _fresh(item)
        raise TypeError(
            f"ScriptedChatModel {self.model_name!r}: call #{number} got a {type(item).__name__}; "
            "a script item must be an AIMessage, a str, an exception or a callable returning one"
        )
