"""``trim_messages``: LangChain's message trimming, for programs that import it from
``langchain.messages`` and run on the engine's messages.

It is langchain_core's own function (its strategies, token counters and options are many and
exact), given the messages as langchain_core's and answering with ours; the engine does not
need langchain_core otherwise, so a program calling it without langchain_core installed gets
an ``ImportError`` saying so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.core import foreign

__all__ = ["trim_messages"]


def trim_messages(messages: Sequence[Any] | None = None, **kwargs: Any) -> Any:
    """The messages trimmed as LangChain's ``trim_messages(messages, **kwargs)`` trims them
    (``max_tokens``, ``token_counter``, ``strategy``, ``include_system``, ``start_on``...)."""
    try:
        from langchain_core.messages import trim_messages as theirs
    except ImportError as exc:  # pragma: no cover - the langchain extra is not installed
        raise ImportError(
            "trim_messages needs langchain_core (pip install langchain-core)"
        ) from exc
    if messages is None:
        return theirs(**kwargs)
    given = [foreign.to_family("langchain", m) for m in messages]
    return [foreign.adapt("message", m) or m for m in theirs(given, **kwargs)]
