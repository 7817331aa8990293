"""The credentials of the LangChain models an attached app uses, registered for scrubbing.

Our own models register what they are given (``engine.redaction``); a LangChain model in a
user's app is built by the app, so attach mode finds its credentials itself, the way it finds
everything else, without changing the app:

- ``register_live_models()`` (when a graph is attached): every LangChain language model alive;
- ``register_calling_model()`` (when a model call starts): the model making the call, found
  on the stack, for models the app builds later; and what the call's serialized form names
  (``register_serialized``: base URLs, headers, keys read from the environment).

Registered: secret fields (pydantic ``SecretStr`` and the model's ``lc_secrets``, also their
environment variables), fields named like a key, token, secret or password, every header
(``default_headers``, ``extra_headers``...), and the ``user:password`` of every URL, with its
base64 (a server that echoes a ``Basic`` header echoes that).
"""

from __future__ import annotations

import gc
import os
import re
import sys
import weakref
from collections.abc import Mapping
from itertools import compress
from typing import Any

from engine.redaction import register_headers, register_secret, register_url

__all__ = [
    "register_calling_model",
    "register_live_models",
    "register_model",
    "register_serialized",
]

_SECRET_NAME = re.compile(
    r"(?:^|_)(?:api_?key|key|token|access_token|secret|password|passwd|auth|authorization"
    r"|credentials?|signature)$",
    re.I,
)
_DEPTH = 3
_STACK_FRAMES = 40
_seen: dict[int, Any] = {}
"""id(model) -> a weak reference to it (models are pydantic objects: not hashable)."""
_kinds: dict[type, bool] = {}


def _model_base() -> type | None:
    try:
        from langchain_core.language_models import BaseLanguageModel
    except ImportError:  # pragma: no cover - attach mode needs langchain_core
        return None
    return BaseLanguageModel


def _is_model(obj: object) -> bool:
    return _is_model_class(type(obj))


def _is_model_class(cls: type) -> bool:
    known = _kinds.get(cls)
    if known is None:
        base = _model_base()
        known = _kinds[cls] = base is not None and issubclass(cls, base)
    return known


def _register_value(name: str, value: Any, *, secret: bool = False, depth: int = 0) -> None:
    reveal = getattr(value, "get_secret_value", None)
    if callable(reveal):
        revealed = reveal()
        if isinstance(revealed, str):
            register_secret(revealed)
            if "://" in revealed:
                register_url(revealed)
        return
    if isinstance(value, str):
        if secret or _SECRET_NAME.search(name):
            register_secret(value)
        if "://" in value:
            register_url(value)
        return
    if isinstance(value, Mapping) and depth < _DEPTH:
        if name.lower().endswith("headers"):
            register_headers({str(k): v for k, v in value.items()})
        for key, item in value.items():
            _register_value(str(key), item, depth=depth + 1)


def register_model(model: object) -> None:
    """Register every credential ``model`` (a LangChain language model) carries."""
    known = _seen.get(id(model))
    if known is not None and known() is model:
        return
    try:
        _seen[id(model)] = weakref.ref(model, lambda _ref, key=id(model): _seen.pop(key, None))
    except TypeError:  # not weak-referenceable: registered again next time
        pass
    try:
        named = dict(getattr(model, "lc_secrets", None) or {})
    except Exception:  # a property that fails: the fields below still count
        named = {}
    for field, value in list(getattr(model, "__dict__", {}).items()):
        _register_value(field, value, secret=field in named)
    for env in named.values():
        if isinstance(env, str):
            register_secret(os.environ.get(env))


def register_serialized(serialized: Mapping[str, Any] | None) -> None:
    """What a model call's serialized form names: keys read from the environment (secret
    references), base URLs and headers."""
    kwargs = (serialized or {}).get("kwargs")
    if isinstance(kwargs, Mapping):
        _register_serialized_value("", kwargs, 0)


def _register_serialized_value(name: str, value: Any, depth: int) -> None:
    if isinstance(value, Mapping):
        if value.get("type") == "secret" and isinstance(value.get("id"), list):
            for env in value["id"]:
                register_secret(os.environ.get(str(env)))
            return
        if depth >= _DEPTH:
            return
        if name.lower().endswith("headers"):
            register_headers({str(k): v for k, v in value.items()})
        for key, item in value.items():
            _register_serialized_value(str(key), item, depth + 1)
    elif isinstance(value, str):
        _register_value(name, value)


def register_calling_model(serialized: Mapping[str, Any] | None = None) -> None:
    """Called as a model call starts: register the model making it (the nearest ``self`` on the
    stack that is a LangChain model) and what ``serialized`` names."""
    register_serialized(serialized)
    frame = sys._getframe(1)
    for _ in range(_STACK_FRAMES):
        if frame is None:
            return
        candidate = frame.f_locals.get("self")
        if candidate is not None and _is_model(candidate):
            register_model(candidate)
            return
        frame = frame.f_back


def _model_classes() -> set[type]:
    """Every LangChain language model class defined so far (subclasses at any depth)."""
    base = _model_base()
    if base is None:
        return set()
    found: set[type] = set()
    todo = [base]
    while todo:
        cls = todo.pop()
        if cls not in found:
            found.add(cls)
            todo.extend(type.__subclasses__(cls))
    return found


def register_live_models() -> None:
    """Register the credentials of every LangChain language model alive in this process."""
    # a process holds hundreds of thousands of objects and a few models: the objects are
    # picked by their class at C speed (``map``, ``compress``: one pass over the heap, which
    # touching every object makes the cost), among the model classes defined so far (the
    # subclasses of LangChain's base, walked: a few hundred).  A class only registered with
    # the base as an ABC is not among them: such a model is registered as it is called, as a
    # model made after this scan is (``register_calling_model``)
    models = _model_classes()
    if models:
        objects = gc.get_objects()
        for obj in compress(objects, map(models.__contains__, map(type, objects))):
            register_model(obj)
