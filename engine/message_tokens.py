"""``count_tokens_approximately``: LangChain's estimate of a conversation's tokens, no
tokenizer needed (what token triggers of the summarization and context-editing middleware
count, and what a program imports from ``langchain_core.messages.utils``)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

from engine.message_classes import AIMessage, BaseMessage, ToolMessage
from engine.message_json import coerce_message

__all__ = ["count_tokens_approximately", "openai_role"]


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
    for m in map(coerce_message, list(messages)):
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
