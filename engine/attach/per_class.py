"""What a check says of a value's class, worked out once per class: the attach hot paths ask
it of every message and every model call, and the answer depends on the class alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["per_class"]

T = TypeVar("T")

LIMIT = 1000
"""Classes kept per cache; past it the cache starts again (classes made on the fly)."""


def per_class(cache: dict[type, T], value: Any, compute: Callable[[Any], T]) -> T:
    """``compute(value)``, remembered in ``cache`` under ``type(value)``."""
    cls = type(value)
    try:
        return cache[cls]
    except KeyError:
        if len(cache) > LIMIT:
            cache.clear()
        found = cache[cls] = compute(value)
        return found
