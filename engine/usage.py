"""Token usage of one model call, as the model reported it, in one shape.

Models report usage in three places: LangChain's ``usage_metadata`` (``input_tokens``,
``output_tokens``, ``input_token_details.cache_read`` / ``cache_creation``,
``output_token_details.reasoning``), a provider's own ``response_metadata`` (OpenAI and
Mistral ``token_usage`` with ``prompt_tokens`` / ``completion_tokens``; Anthropic ``usage`` with
``cache_read_input_tokens`` / ``cache_creation_input_tokens``; Google ``usage_metadata`` with
``prompt_token_count`` / ``candidates_token_count``) and, for completion-style LLMs, an
``LLMResult.llm_output["token_usage"]``.  ``usage_dict`` turns whichever is there into the
``usage_metadata`` form every event carries; ``TokenUsage`` is that form as numbers, summable.

Conventions (LangChain's): ``input`` counts every prompt token, the cached ones included
(``cached_input`` read from a cache, ``cache_write`` written to one, are parts of it);
``output`` counts every generated token, reasoning included.  Nothing is estimated: a call
whose model reported nothing has no usage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["TokenUsage", "reported_model", "usage_dict"]


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Token counts of one call, or summed over many."""

    input: int = 0
    output: int = 0
    cached_input: int = 0
    """Part of ``input`` read from the provider's prompt cache."""
    cache_write: int = 0
    """Part of ``input`` written to the provider's prompt cache (Anthropic bills it apart)."""
    reasoning: int = 0
    """Part of ``output`` spent reasoning."""

    @property
    def total(self) -> int:
        return self.input + self.output

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            self.input + other.input,
            self.output + other.output,
            self.cached_input + other.cached_input,
            self.cache_write + other.cache_write,
            self.reasoning + other.reasoning,
        )

    def __bool__(self) -> bool:
        return bool(self.input or self.output)

    @classmethod
    def of(cls, usage: Mapping[str, Any] | None) -> TokenUsage | None:
        """From a ``usage_metadata``-shaped mapping (an event's ``usage``); None when empty."""
        if not usage:
            return None
        found = usage_dict(usage)
        if found is None:
            return None
        inp = found.get("input_token_details") or {}
        out = found.get("output_token_details") or {}
        return cls(
            _int(found.get("input_tokens")),
            _int(found.get("output_tokens")),
            _int(inp.get("cache_read")),
            _int(inp.get("cache_creation")),
            _int(out.get("reasoning")),
        )

    def to_dict(self) -> dict[str, Any]:
        """The ``usage_metadata`` form."""
        out: dict[str, Any] = {
            "input_tokens": self.input,
            "output_tokens": self.output,
            "total_tokens": self.total,
        }
        details = {
            k: v
            for k, v in (("cache_read", self.cached_input), ("cache_creation", self.cache_write))
            if v
        }
        if details:
            out["input_token_details"] = details
        if self.reasoning:
            out["output_token_details"] = {"reasoning": self.reasoning}
        return out


def usage_dict(
    usage_metadata: Any = None, response_metadata: Any = None, llm_output: Any = None
) -> dict[str, Any] | None:
    """The call's usage in ``usage_metadata`` form, from the first of the three that has it."""
    for source in (usage_metadata, response_metadata, llm_output):
        found = _read(source) if isinstance(source, Mapping) else None
        if found is not None:
            return found.to_dict()
    return None


def reported_model(response_metadata: Any) -> str | None:
    """The model name the provider says answered (``gpt-4o-2024-08-06``), if it says."""
    if not isinstance(response_metadata, Mapping):
        return None
    for key in ("model_name", "model", "model_id"):
        value = response_metadata.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _read(data: Mapping[str, Any]) -> TokenUsage | None:
    if "input_tokens" in data or "output_tokens" in data:
        if "cache_read_input_tokens" in data or "cache_creation_input_tokens" in data:
            return _anthropic(data)
        inp = data.get("input_token_details") or {}
        out = data.get("output_token_details") or {}
        return TokenUsage(
            _int(data.get("input_tokens")),
            _int(data.get("output_tokens")),
            _int(inp.get("cache_read")) if isinstance(inp, Mapping) else 0,
            _int(inp.get("cache_creation")) if isinstance(inp, Mapping) else 0,
            _int(out.get("reasoning")) if isinstance(out, Mapping) else 0,
        )
    if "prompt_tokens" in data or "completion_tokens" in data:  # OpenAI, Mistral, Groq...
        inp = data.get("prompt_tokens_details") or {}
        out = data.get("completion_tokens_details") or {}
        return TokenUsage(
            _int(data.get("prompt_tokens")),
            _int(data.get("completion_tokens")),
            _int(inp.get("cached_tokens")) if isinstance(inp, Mapping) else 0,
            0,
            _int(out.get("reasoning_tokens")) if isinstance(out, Mapping) else 0,
        )
    if "prompt_token_count" in data or "candidates_token_count" in data:  # Google
        thoughts = _int(data.get("thoughts_token_count"))
        return TokenUsage(
            _int(data.get("prompt_token_count")),
            _int(data.get("candidates_token_count")) + thoughts,
            _int(data.get("cached_content_token_count")),
            0,
            thoughts,
        )
    for nested in ("token_usage", "usage", "usage_metadata"):
        inner = data.get(nested)
        if isinstance(inner, Mapping):
            found = _read(inner)
            if found is not None:
                return found
    return None


def _anthropic(data: Mapping[str, Any]) -> TokenUsage:
    """Anthropic's own ``usage``: ``input_tokens`` excludes the cached parts."""
    read = _int(data.get("cache_read_input_tokens"))
    write = _int(data.get("cache_creation_input_tokens"))
    return TokenUsage(
        _int(data.get("input_tokens")) + read + write, _int(data.get("output_tokens")), read, write
    )


def _int(value: object) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(0, value)
    if isinstance(value, float):
        return max(0, int(value))
    return 0
