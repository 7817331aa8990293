"""``SummarizationMiddleware``: replace old history with a summary when it grows too long.

``before_model``: when the ``trigger`` condition holds, the messages before a cutoff are
summarized by ``model`` and the state's history becomes

    [RemoveMessage(REMOVE_ALL), HumanMessage("Here is a summary of the conversation to date:\\n\\n" + summary), *kept]

``trigger``: ``("messages", n)`` (at least n messages), ``("tokens", n)`` (at least n tokens),
``("fraction", f)`` (at least f of the model's ``profile.max_input_tokens``), or a list of
those (any one suffices). None never summarizes. ``keep``: how much recent history survives,
``("messages", n)``, ``("tokens", n)`` or ``("fraction", f)``. The cutoff never separates a
ToolMessage from the AIMessage that called it (it moves earlier, keeping more).

Tokens are counted with ``count_tokens_approximately`` unless ``token_counter`` is given.
Reported as ``middleware.action`` ``summarized``. If the summary model fails, the history is left
as it is (reported as ``summarization_failed``) and the run goes on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

from engine.events import ErrorInfo, MiddlewareAction
from engine.graph.runtime import Runtime
from engine.messages import (
    REMOVE_ALL_MESSAGES,
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    ToolMessage,
)
from engine.middleware.context_editing import TokenCounter, count_tokens_approximately
from engine.middleware.retry_policy import Call, Emit, Steps, drive_async, drive_sync, model_name
from engine.middleware.types import AgentMiddleware

__all__ = ["DEFAULT_SUMMARY_PROMPT", "SUMMARY_PREFIX", "ContextSize", "SummarizationMiddleware"]

ContextSize: TypeAlias = tuple[Literal["messages", "tokens", "fraction"], int | float]

SUMMARY_PREFIX = "Here is a summary of the conversation to date:\n\n"

DEFAULT_SUMMARY_PROMPT = """<role>
Context Extraction Assistant
</role>

<primary_objective>
Extract the highest quality, most relevant context from the conversation history below.
</primary_objective>

<instructions>
The conversation history below will be replaced with the context you extract. Record everything that matters for the overall goal: what was asked, what was decided, what was done (so it is not repeated), and what remains open.
Respond ONLY with the extracted context, with no text before or after it.
</instructions>

<messages>
Messages to summarize:
{messages}
</messages>"""


def _validate(size: Any, label: str) -> ContextSize:
    if not isinstance(size, tuple) or len(size) != 2:
        raise ValueError(f"{label} must be a tuple like ('messages', 20), got {size!r}")
    kind, value = size
    if kind == "fraction":
        if not 0 < value <= 1:
            raise ValueError(f"Fractional {label} values must be between 0 and 1, got {value}.")
    elif kind in ("messages", "tokens"):
        if label == "trigger" and value <= 0:
            raise ValueError(f"{label} thresholds must be greater than 0, got {value}.")
        if label == "keep" and value < 0:
            raise ValueError(f"{label} values must be non-negative, got {value}.")
    else:
        raise ValueError(f"Unsupported context size type {kind} for {label}.")
    return (kind, value)


def _render(messages: Sequence[BaseMessage]) -> str:
    lines = []
    for m in messages:
        role = {"human": "Human", "ai": "AI", "tool": "Tool", "system": "System"}.get(
            m.type, m.type
        )
        text = m.text
        if isinstance(m, AIMessage) and m.tool_calls:
            calls = ", ".join(f"{c.get('name')}({c.get('args')})" for c in m.tool_calls)
            text = f"{text} [tool calls: {calls}]".strip()
        lines.append(f"{role}: {text}")
    return "\n".join(lines)


class SummarizationMiddleware(AgentMiddleware):
    """Summarize older messages once the ``trigger`` condition holds, keeping ``keep``."""

    def __init__(
        self,
        model: Any,
        *,
        trigger: ContextSize | list[ContextSize] | None = None,
        keep: ContextSize = ("messages", 20),
        token_counter: TokenCounter | None = None,
        summary_prompt: str = DEFAULT_SUMMARY_PROMPT,
        trim_tokens_to_summarize: int | None = 4000,
    ) -> None:
        from engine.models.resolve import as_chat_model

        model = as_chat_model(model)
        if model is None:
            raise ValueError("SummarizationMiddleware needs a model to write the summary")
        conditions = (
            [] if trigger is None else (list(trigger) if isinstance(trigger, list) else [trigger])
        )
        self.trigger: list[ContextSize] = [_validate(c, "trigger") for c in conditions]
        self.keep: ContextSize = _validate(keep, "keep")
        if "{messages}" not in summary_prompt:
            raise ValueError("summary_prompt must contain the placeholder {messages}")
        if trim_tokens_to_summarize is not None and trim_tokens_to_summarize <= 0:
            raise ValueError("trim_tokens_to_summarize must be > 0 or None")
        self.model = model
        self.token_counter: TokenCounter = token_counter or count_tokens_approximately
        self.summary_prompt = summary_prompt
        self.trim_tokens_to_summarize = trim_tokens_to_summarize
        uses_fraction = any(k == "fraction" for k, _ in [*self.trigger, self.keep])
        if uses_fraction and self._max_input_tokens() is None:
            raise ValueError(
                "Fractional limits need the model's profile.max_input_tokens; "
                "use ('tokens', n) or ('messages', n) instead."
            )
        self.tools = []

    def _max_input_tokens(self) -> int | None:
        limit = getattr(getattr(self.model, "profile", None), "max_input_tokens", None)
        return limit if isinstance(limit, int) and limit > 0 else None

    def _tokens_of(self, value: float, kind: str) -> int:
        if kind == "fraction":
            return max(1, int((self._max_input_tokens() or 0) * value))
        return int(value)

    def _triggered(self, messages: list[BaseMessage], tokens: int) -> bool:
        for kind, value in self.trigger:
            if kind == "messages" and len(messages) >= value:
                return True
            if kind in ("tokens", "fraction") and tokens >= self._tokens_of(value, kind):
                return True
        return False

    def _target_cutoff(self, messages: list[BaseMessage]) -> int:
        kind, value = self.keep
        if kind == "messages":
            return max(0, len(messages) - int(value))
        return self._tail_start(messages, self._tokens_of(value, kind))

    def _tail_start(self, messages: list[BaseMessage], budget: int) -> int:
        """Start of the longest tail of ``messages`` within ``budget`` tokens (counted per
        message and summed, so long histories cost linear time)."""
        start, used = len(messages), 0
        while start > 0:
            used += self.token_counter(messages[start - 1 : start])
            if used > budget:
                break
            start -= 1
        return start

    @staticmethod
    def _safe(messages: list[BaseMessage], cutoff: int) -> bool:
        before = {
            c.get("id") for m in messages[:cutoff] if isinstance(m, AIMessage) for c in m.tool_calls
        }
        return not any(
            isinstance(m, ToolMessage) and m.tool_call_id in before for m in messages[cutoff:]
        )

    def find_cutoff(self, messages: list[BaseMessage]) -> int:
        """Index of the first kept message (0 = nothing to summarize)."""
        cutoff = self._target_cutoff(messages)
        while cutoff > 0 and not self._safe(messages, cutoff):
            cutoff -= 1
        return cutoff

    def _trimmed(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        """The most recent messages to summarize that fit ``trim_tokens_to_summarize``."""
        if self.trim_tokens_to_summarize is None:
            return messages
        return (
            messages[self._tail_start(messages, self.trim_tokens_to_summarize) :] or messages[-1:]
        )

    def _steps(self, state: Any) -> Steps[dict[str, Any] | None]:
        messages: list[BaseMessage] = list(state.get("messages") or [])
        tokens = self.token_counter(messages)
        if not self.trigger or not self._triggered(messages, tokens):
            return None
        cutoff = self.find_cutoff(messages)
        if cutoff <= 0:
            return None
        old, kept = messages[:cutoff], messages[cutoff:]
        prompt = self.summary_prompt.format(messages=_render(self._trimmed(old)))
        outcome = yield Call([HumanMessage(content=prompt)])
        assert outcome is not None
        if outcome.error is not None:  # keep the history rather than replace it with nothing
            yield Emit(
                MiddlewareAction,
                {
                    "middleware": self.name,
                    "action": "summarization_failed",
                    "detail": {
                        "error": ErrorInfo.from_exception(outcome.error).model_dump(),
                        "model": model_name(self.model),
                    },
                },
            )
            return None
        reply = outcome.value
        summary = (reply.text if isinstance(reply, BaseMessage) else str(reply)).strip()
        yield Emit(
            MiddlewareAction,
            {
                "middleware": self.name,
                "action": "summarized",
                "detail": {
                    "summarized": len(old),
                    "kept": len(kept),
                    "tokens_before": tokens,
                    "model": model_name(self.model),
                    "summary": summary,
                },
            },
        )
        return {
            "messages": [
                RemoveMessage(id=REMOVE_ALL_MESSAGES),
                HumanMessage(content=SUMMARY_PREFIX + summary),
                *kept,
            ]
        }

    def before_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return drive_sync(self._steps(state), self.model.invoke)

    async def abefore_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return await drive_async(self._steps(state), self.model.ainvoke)
