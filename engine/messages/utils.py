"""LangChain's message utilities (``langchain_core.messages.utils``): the names ``engine.messages`` offers."""

from __future__ import annotations

from engine.messages import (
    convert_to_messages,
    convert_to_openai_messages,
    count_tokens_approximately,
    filter_messages,
    get_buffer_string,
    merge_message_runs,
    message_chunk_to_message,
    messages_from_dict,
    messages_to_dict,
    trim_messages,
)

__all__ = [
    "convert_to_messages",
    "convert_to_openai_messages",
    "count_tokens_approximately",
    "filter_messages",
    "get_buffer_string",
    "merge_message_runs",
    "message_chunk_to_message",
    "messages_from_dict",
    "messages_to_dict",
    "trim_messages",
]
