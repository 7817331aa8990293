"""``SummarizationMiddleware``: replace old history with a summary when it grows too long.

``before_model``: when the ``trigger`` holds, the messages before a cutoff are summarized and
the state's history becomes

    [RemoveMessage(REMOVE_ALL), HumanMessage("Here is a summary of the conversation to date:\\n\\n" + summary), *kept]

``trigger``: a size ``("messages", n)`` / ``("tokens", n)`` / ``("fraction", f)`` (of the
model's ``profile.max_input_tokens``), a clause ``{"tokens": n, "messages": m}`` (all must
hold), or a list of those (any one suffices); None or ``[]`` never summarizes (see
``summarization_trigger``). A ``tokens``/``fraction`` threshold is also reached when the last
AIMessage's reported ``usage_metadata.total_tokens`` reaches it (same provider as ``model``).
``keep``: how much recent history survives. The cutoff never separates a ToolMessage from the
AIMessage that called it (it moves earlier, keeping more).

The summary is written by ``model`` prompted with ``summary_prompt`` - or by ``summarizer``:
another chat model (or model string), or a function ``(messages) -> str`` (sync or async)
given the messages to summarize. Chat-model calls are retried (3 attempts in all, with
backoff) unless the error says it is not retryable. If the summary still fails the error
propagates and the history is left as it was (``keep_history_on_failure=True``, a Stepwise
option, instead goes on without summarizing). Reported as ``middleware.action``
``summarized`` / ``summarization_failed``; retries as ``attempt.*`` events.

Tokens are counted with ``count_tokens_approximately`` (calibrated on the reported usage of the
conversation's AIMessages, and tuned for Anthropic models) unless ``token_counter`` is given;
the kept tail is counted without the calibration.

Deprecated spellings still accepted (with a ``DeprecationWarning``):
``max_tokens_before_summary=n`` (= ``trigger=("tokens", n)``) and ``messages_to_keep=n``
(= ``keep=("messages", n)``).
"""

from __future__ import annotations

import asyncio
import inspect
import warnings
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from engine.events import ErrorInfo, MiddlewareAction
from engine.graph.runtime import Runtime
from engine.message_pretty import transcript
from engine.messages import (
    REMOVE_ALL_MESSAGES,
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    ToolMessage,
)
from engine.middleware.context_editing import TokenCounter, count_tokens_approximately
from engine.middleware.internal_calls import InternalCallTransformer, internal_call_config
from engine.middleware.retry_policy import (
    Call,
    Emit,
    RetryConfig,
    Steps,
    default_retry_on,
    drive_async,
    drive_sync,
    model_name,
    retry_steps,
)
from engine.middleware.summarization_trigger import (
    ContextSize,
    TriggerClause,
    TriggerSpec,
    copy_trigger,
    normalise_trigger,
    validate_size,
)
from engine.middleware.types import AgentMiddleware

__all__ = [
    "DEFAULT_SUMMARY_PROMPT",
    "SUMMARY_PREFIX",
    "ContextSize",
    "SummarizationMiddleware",
    "TriggerClause",
]

DEFAULT_MESSAGES_TO_KEEP = 20

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


def _is_chat_model(obj: Any) -> bool:
    return hasattr(obj, "invoke") and hasattr(obj, "ainvoke")


def _checked_summary(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"`summarizer` must return a str, got {type(value).__name__}.")
    return value.strip()


def _provider_of(model: Any) -> str | None:
    provider = getattr(model, "provider", None)
    if isinstance(provider, str):
        return provider
    ls_params = getattr(model, "_get_ls_params", None)  # LangChain-style chat models
    if callable(ls_params):
        try:
            params: Any = ls_params()
        except Exception:
            return None
        found = params.get("ls_provider") if isinstance(params, Mapping) else None
        return found if isinstance(found, str) else None
    return None


def init_chat_model(model: str, **kwargs: Any) -> Any:
    """``engine.models.init_chat_model`` (a module-level name: what a "provider:model" string
    resolves through, so a test or an app can patch it here)."""
    from engine.models.init import init_chat_model as init

    return init(model, **kwargs)


class SummarizationMiddleware(AgentMiddleware):
    """Summarize older messages once the ``trigger`` holds, keeping ``keep``."""

    transformers = (InternalCallTransformer,)  # the summary call stays out of v3 streams

    def __init__(
        self,
        model: Any,
        *,
        trigger: TriggerSpec = None,
        keep: ContextSize = ("messages", DEFAULT_MESSAGES_TO_KEEP),
        token_counter: TokenCounter | None = None,
        summary_prompt: str = DEFAULT_SUMMARY_PROMPT,
        trim_tokens_to_summarize: int | None = 4000,
        summarizer: Any = None,
        keep_history_on_failure: bool = False,
        **deprecated: Any,
    ) -> None:
        unknown = set(deprecated) - {"max_tokens_before_summary", "messages_to_keep"}
        if unknown:
            raise TypeError(f"SummarizationMiddleware got unexpected arguments {sorted(unknown)}")
        if "max_tokens_before_summary" in deprecated:
            warnings.warn(
                "max_tokens_before_summary is deprecated. Use trigger=('tokens', value) instead.",
                DeprecationWarning,
                stacklevel=2,
            )
            value = deprecated["max_tokens_before_summary"]
            if trigger is None and value is not None:
                trigger = ("tokens", value)
        if "messages_to_keep" in deprecated:
            warnings.warn(
                "messages_to_keep is deprecated. Use keep=('messages', value) instead.",
                DeprecationWarning,
                stacklevel=2,
            )
            if keep == ("messages", DEFAULT_MESSAGES_TO_KEEP):
                keep = ("messages", deprecated["messages_to_keep"])
        from engine.models.resolve import as_chat_model

        # a "provider:model" string (through this module's init_chat_model), a langchain_core model
        model = init_chat_model(model) if isinstance(model, str) else as_chat_model(model)
        if model is None:
            raise ValueError("SummarizationMiddleware needs a model")
        self.model = model
        self.trigger: TriggerSpec = copy_trigger(trigger)
        self.trigger_clauses: list[dict[str, int | float]] = normalise_trigger(self.trigger)
        self.keep: ContextSize = validate_size(keep, "keep")
        if "{messages}" not in summary_prompt:
            raise ValueError("summary_prompt must contain the placeholder {messages}")
        if trim_tokens_to_summarize is not None and trim_tokens_to_summarize <= 0:
            raise ValueError("trim_tokens_to_summarize must be > 0 or None")
        self.token_counter: TokenCounter
        self.cutoff_counter: TokenCounter
        """Counts the kept tail; the default never scales by reported usage there."""
        if token_counter is None or token_counter is count_tokens_approximately:
            tuned: dict[str, Any] = {}
            if str(getattr(model, "_llm_type", "")).startswith("anthropic-chat"):
                tuned["chars_per_token"] = 3.3  # Claude's tokenizer packs fewer chars per token
            self.token_counter = partial(
                count_tokens_approximately, use_usage_metadata_scaling=True, **tuned
            )
            self.cutoff_counter = partial(
                count_tokens_approximately, use_usage_metadata_scaling=False, **tuned
            )
        else:
            self.token_counter = self.cutoff_counter = token_counter
        self.summary_prompt = summary_prompt
        self.trim_tokens_to_summarize = trim_tokens_to_summarize
        self.keep_history_on_failure = keep_history_on_failure
        if summarizer is not None:  # a model string or a langchain_core model: a chat model
            summarizer = (
                init_chat_model(summarizer)
                if isinstance(summarizer, str)
                else as_chat_model(summarizer)
            )
        self.summary_model: Any = summarizer if _is_chat_model(summarizer) else model
        """The chat model that writes summaries (``model`` unless ``summarizer`` is one)."""
        self.summarizer: Callable[[list[BaseMessage]], Any] | None = (
            None if summarizer is None or _is_chat_model(summarizer) else summarizer
        )
        """A function writing the summary from the messages (then no chat model is called)."""
        self.retry = RetryConfig(
            max_retries=2, retry_on=default_retry_on, on_failure="error", max_delay=10.0
        )
        uses_fraction = self.keep[0] == "fraction" or any(
            "fraction" in c for c in self.trigger_clauses
        )
        if uses_fraction and self.max_input_tokens() is None:
            raise ValueError(  # LangChain's words (a program may print them)
                "Model profile information is required to use fractional token limits, and is "
                "unavailable for the specified model. Please use absolute token counts instead, "
                'or pass `\n\nChatModel(..., profile={"max_input_tokens": ...})`.\n\n'
                "with a desired integer value of the model's maximum input tokens."
            )
        self.tools = []

    # -- when ----------------------------------------------------------------------------

    def max_input_tokens(self) -> int | None:
        """``model``'s context window from its profile (object or mapping), if known."""
        profile = getattr(self.model, "profile", None)
        if isinstance(profile, Mapping):
            limit = profile.get("max_input_tokens")
        else:
            limit = getattr(profile, "max_input_tokens", None)
        return limit if isinstance(limit, int) and not isinstance(limit, bool) else None

    def _tokens_of(self, value: float, kind: str) -> int | None:
        if kind != "fraction":
            return int(value)
        limit = self.max_input_tokens()
        return None if limit is None else max(1, int(limit * value))

    def _reported_reaches(self, messages: Sequence[BaseMessage], threshold: int) -> bool:
        last_ai = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        usage = getattr(last_ai, "usage_metadata", None) if last_ai is not None else None
        if not usage or (usage.get("total_tokens") or 0) < threshold:
            return False
        assert last_ai is not None
        provider = last_ai.response_metadata.get("model_provider")
        return bool(provider) and provider == _provider_of(self.model)

    def should_summarize(self, messages: Sequence[BaseMessage], tokens: int) -> bool:
        """Does some trigger clause hold for ``messages`` (``tokens`` counted)?"""
        for clause in self.trigger_clauses:
            if all(self._holds(kind, v, messages, tokens) for kind, v in clause.items()):
                return True
        return False

    def _holds(self, kind: str, value: float, messages: Sequence[BaseMessage], tokens: int) -> bool:
        if kind == "messages":
            return len(messages) >= value
        threshold = self._tokens_of(value, kind)
        if threshold is None:
            return False
        return tokens >= threshold or self._reported_reaches(messages, threshold)

    # -- where ---------------------------------------------------------------------------

    def _target_cutoff(self, messages: list[BaseMessage]) -> int:
        kind, value = self.keep
        if kind == "messages":
            return max(0, len(messages) - int(value))
        budget = self._tokens_of(value, kind)
        if budget is None:
            return max(0, len(messages) - DEFAULT_MESSAGES_TO_KEEP)
        return self._tail_start(messages, budget)

    def _tail_start(self, messages: list[BaseMessage], budget: int) -> int:
        """Start of the longest tail of ``messages`` within ``budget`` tokens (counted per
        message and summed, so long histories cost linear time)."""
        start, used = len(messages), 0
        while start > 0:
            used += self.cutoff_counter(messages[start - 1 : start])
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
        return messages[self._tail_start(messages, self.trim_tokens_to_summarize) :]

    # -- how -----------------------------------------------------------------------------

    def _summary_steps(self, old: list[BaseMessage]) -> Steps[str]:
        """Write the summary of ``old`` (raises when the summary cannot be written)."""
        if not old:
            return "No previous conversation history."
        trimmed = self._trimmed(old)
        if not trimmed:
            return "Previous conversation was too long to summarize."
        if self.summarizer is not None:
            outcome = yield Call(("summarizer", trimmed))
            assert outcome is not None
            if outcome.error is not None:
                raise outcome.error
            return _checked_summary(outcome.value)
        prompt = [HumanMessage(content=self.summary_prompt.format(messages=transcript(trimmed)))]
        reply = yield from retry_steps(
            self.retry,
            ("model", prompt),
            middleware=self.name,
            target={"model": model_name(self.summary_model)},
            on_exhausted=lambda exc, _n: exc,
        )
        return (reply.text if isinstance(reply, BaseMessage) else str(reply)).strip()

    def _steps(self, state: Any) -> Steps[dict[str, Any] | None]:
        messages: list[BaseMessage] = list(state.get("messages") or [])
        tokens = self.token_counter(messages)
        if not self.should_summarize(messages, tokens):
            return None
        cutoff = self.find_cutoff(messages)
        if cutoff <= 0:
            return None
        old, kept = messages[:cutoff], messages[cutoff:]
        try:
            summary = yield from self._summary_steps(old)
        except Exception as exc:
            yield Emit(
                MiddlewareAction,
                {
                    "middleware": self.name,
                    "action": "summarization_failed",
                    "detail": {
                        "error": ErrorInfo.from_exception(exc).model_dump(),
                        "model": model_name(self.summary_model),
                        "history_kept": True,
                    },
                },
            )
            if self.keep_history_on_failure:
                return None
            raise
        yield Emit(
            MiddlewareAction,
            {
                "middleware": self.name,
                "action": "summarized",
                "detail": {
                    "summarized": len(old),
                    "kept": len(kept),
                    "tokens_before": tokens,
                    "model": model_name(self.summary_model),
                    "summary": summary,
                },
            },
        )
        return {
            "messages": [
                RemoveMessage(id=REMOVE_ALL_MESSAGES),
                HumanMessage(
                    content=SUMMARY_PREFIX + summary,
                    additional_kwargs={"lc_source": "summarization"},
                ),
                *kept,
            ]
        }

    def _call_sync(self, request: tuple[str, list[BaseMessage]]) -> Any:
        kind, payload = request
        if kind == "model":
            model = self.summary_model
            return model.invoke(payload, **internal_call_config(model.invoke, "summarization"))
        fn = self.summarizer
        assert fn is not None
        if inspect.iscoroutinefunction(fn):
            raise TypeError(
                "Cannot call an async `summarizer` (a coroutine function synchronously); "
                "run the agent with ainvoke/astream or pass a sync function."
            )
        return fn(payload)

    async def _call_async(self, request: tuple[str, list[BaseMessage]]) -> Any:
        kind, payload = request
        if kind == "model":
            model = self.summary_model
            return await model.ainvoke(
                payload, **internal_call_config(model.ainvoke, "summarization")
            )
        fn = self.summarizer
        assert fn is not None
        if inspect.iscoroutinefunction(fn):
            return await fn(payload)
        return await asyncio.to_thread(fn, payload)

    def before_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return drive_sync(self._steps(state), self._call_sync)

    async def abefore_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return await drive_async(self._steps(state), self._call_async)
