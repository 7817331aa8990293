"""Interop with the libraries our users' code already uses (optional extras).

``engine.interop.langchain`` adapts langchain_core chat models, tools and messages; it needs
``pip install 'stepwise[langchain]'`` and is imported only when such an object shows up, never
at start-up.  ``is_langchain`` tells, without importing anything, whether an object comes from
langchain_core (or a provider package built on it: langchain_openai, langchain_anthropic...).

    from engine.interop import to_langchain
    lc_messages = to_langchain(state["messages"])      # langchain_core messages out
"""

from __future__ import annotations

from typing import Any

from engine.core.foreign import family_of, is_foreign_message

__all__ = ["from_langchain", "is_langchain", "is_langchain_message", "to_langchain"]


def is_langchain(obj: Any) -> bool:
    """True for an instance of a class defined in a ``langchain*`` package (checked by module
    name along its MRO: nothing is imported)."""
    return family_of(obj) == "langchain"


def is_langchain_message(obj: Any) -> bool:
    return is_langchain(obj) and is_foreign_message(obj)


def to_langchain(value: Any) -> Any:
    """Our message (or a list of them) as langchain_core messages (needs langchain-core)."""
    from engine.interop.langchain import to_langchain as convert

    return convert(value)


def from_langchain(value: Any) -> Any:
    """A langchain_core message (or a list) as ours."""
    from engine.interop.langchain_messages import message_from_langchain

    if isinstance(value, list | tuple):
        return [message_from_langchain(v) for v in value]
    return message_from_langchain(value)
