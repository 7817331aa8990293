"""The foreign-object registry: objects of the libraries users bring (langchain_core's messages,
tools and chat models) reach their adapters without the layers below importing them.

Messages, tools and models ask ``adapt(kind, obj)``; the registry names each adapter as a
``"module:function"`` string, imported the first time an object of that family shows up (never
at start-up), so ``engine.interop`` stays above the layers that use it.  An adapter package may
``register`` more.  Families are told by the defining module of a class along the object's MRO:
nothing is imported to tell.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Literal

__all__ = ["Kind", "adapt", "family_of", "is_foreign_message", "register"]

Kind = Literal["message", "tool", "chat_model", "to_family"]

_FAMILIES = ("langchain",)
"""Module prefixes of the libraries whose objects have adapters."""

_ADAPTERS: dict[tuple[str, Kind], str] = {
    ("langchain", "message"): "engine.interop.langchain_messages:message_from_langchain",
    ("langchain", "tool"): "engine.interop.langchain:LangChainTool",
    ("langchain", "chat_model"): "engine.interop.langchain:LangChainChatModel",
}
_LOADED: dict[tuple[str, Kind], Callable[[Any], Any]] = {}


def register(family: str, kind: Kind, adapter: str) -> None:
    """Adapt ``family``'s objects of ``kind`` with ``adapter`` (``"module:function"``)."""
    _ADAPTERS[(family, kind)] = adapter
    _LOADED.pop((family, kind), None)


def family_of(obj: Any) -> str | None:
    """The library ``obj`` comes from (``"langchain"`` for langchain_core and the provider
    packages built on it), None for anything else."""
    for cls in type(obj).__mro__:
        module = getattr(cls, "__module__", "") or ""
        for family in _FAMILIES:
            if module.startswith(family):
                return family
    return None


def is_foreign_message(obj: Any) -> bool:
    """Is ``obj`` a message of a library we adapt (a langchain_core ``BaseMessage``)?"""
    return family_of(obj) is not None and any(
        cls.__name__ == "BaseMessage" for cls in type(obj).__mro__
    )


def _adapter(family: str, kind: Kind) -> Callable[[Any], Any] | None:
    key = (family, kind)
    fn = _LOADED.get(key)
    if fn is None:
        where = _ADAPTERS.get(key)
        if where is None:
            return None
        module, _, name = where.partition(":")
        fn = _LOADED[key] = getattr(importlib.import_module(module), name)
    return fn


def adapt(kind: Kind, obj: Any) -> Any | None:
    """``obj`` adapted as one of ours (a message, a tool, a chat model), or None when it is not
    a foreign object of ``kind`` (then the caller goes on with its own rules)."""
    family = family_of(obj)
    if family is None:
        return None
    if kind == "message" and not is_foreign_message(obj):
        return None
    if kind == "chat_model" and not hasattr(obj, "bind_tools"):
        return None
    fn = _adapter(family, kind)
    return None if fn is None else fn(obj)
