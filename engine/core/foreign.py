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
import sys
from collections.abc import Callable
from typing import Any, Literal

__all__ = [
    "Kind",
    "adapt",
    "enroll",
    "face_attribute",
    "family_of",
    "input_family",
    "is_foreign_message",
    "meet_loaded_libraries",
    "node_scope",
    "register",
    "to_family",
]

Kind = Literal["message", "tool", "chat_model", "to_family"]

_FAMILIES = ("langchain",)
"""Module prefixes of the libraries whose objects have adapters."""

_ADAPTERS: dict[tuple[str, Kind], str] = {
    ("langchain", "message"): "engine.interop.langchain_messages:message_from_langchain",
    ("langchain", "tool"): "engine.interop.langchain:LangChainTool",
    ("langchain", "chat_model"): "engine.interop.langchain:LangChainChatModel",
    ("langchain", "to_family"): "engine.interop.langchain:to_langchain",
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


def input_family(value: Any) -> str | None:
    """The library of what a model was given: a foreign prompt value, message, or a list
    starting with a foreign message (None for ours, strings and dicts)."""
    if isinstance(value, list | tuple) and value:
        value = value[0]
    return family_of(value)


def to_family(family: str, obj: Any) -> Any:
    """Our ``obj`` (a message) as ``family``'s own (unchanged when it has no adapter)."""
    fn = _adapter(family, "to_family")
    return obj if fn is None else fn(obj)


# -- our objects seen by a foreign library --------------------------------------------------

_FACES: dict[str, str] = {"langchain_core": "engine.interop.langchain_face"}
"""A library (by the module that tells it is loaded) -> the module that shows our models to
it: ``enroll(cls)`` makes ``cls`` count as one of its types, ``face_attribute(obj, name)``
answers an attribute of its API that ours lack (None when ``name`` is not one)."""


def _faces() -> list[Any]:
    return [importlib.import_module(m) for lib, m in _FACES.items() if lib in sys.modules]


def enroll(cls: type) -> None:
    """Let every loaded foreign library see instances of ``cls`` as its own (idempotent)."""
    for face in _faces():
        face.enroll(cls)


def face_attribute(obj: Any, name: str) -> Any | None:
    """``name`` of a loaded library's API, answered for our ``obj``; None if no library has it."""
    for face in _faces():
        found = face.face_attribute(obj, name)
        if found is not None:
            return found
    return None


_MET: set[str] = set()
_UNTAUGHT: set[str] = set()


def meet_loaded_libraries() -> None:
    """Let each loaded foreign library take our objects where it takes its own (once per
    library; a run calls this as it starts): langchain_core's chat models, called by a user's
    node with the engine's messages from the graph's state, convert them as their own."""
    for lib, module in _FACES.items():
        if lib in _MET or lib in _UNTAUGHT or lib not in sys.modules:
            continue
        _MET.add(lib)
        try:
            importlib.import_module(module).accept_ours()
        except Exception:  # a version we cannot teach: runs go on as they would without
            _MET.discard(lib)
            _UNTAUGHT.add(lib)


def node_scope() -> Callable[[], None] | None:
    """Called as a node of a run that streams ``messages`` starts: each library met so far
    reports what the node's own calls of it stream (a langchain model's tokens) to that run.
    Returns what to call when the node ends (None when no library is met)."""
    undos = [importlib.import_module(_FACES[lib]).enter_node() for lib in _MET]
    if not undos:
        return None

    def leave() -> None:
        for undo in reversed(undos):
            undo()

    return leave
