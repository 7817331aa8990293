"""``DeltaChannel``: a reducer channel whose reducer folds a whole batch of writes at once.

``reducer(state, [write1, write2, ...]) -> new_state``.  The reducer must be deterministic and
batching-invariant: ``reducer(reducer(s, xs), ys) == reducer(s, xs + ys)``.

Upstream LangGraph stores only the writes of such a channel and rebuilds its value by
replaying them; our checkpoints store the value itself (reads see the same state, and no saver
needs a write-history query).  ``snapshot_frequency`` is accepted and validated for
compatibility.
"""

from __future__ import annotations

import collections.abc
import copy
from collections.abc import Callable, Sequence
from typing import Any, get_origin

from engine.errors import ErrorCode, InvalidUpdateError, create_error_message
from engine.graph.channels import MISSING, BaseChannel

__all__ = ["DeltaChannel"]

_ABSTRACT = {
    collections.abc.Sequence: list,
    collections.abc.MutableSequence: list,
    collections.abc.Set: set,
    collections.abc.MutableSet: set,
    collections.abc.Mapping: dict,
    collections.abc.MutableMapping: dict,
}


def _concrete(typ: Any) -> Any:
    origin = get_origin(typ) or typ
    return _ABSTRACT.get(origin, origin)


def _overwrite_value(value: Any) -> tuple[bool, Any]:
    """``Overwrite(v)`` (by duck type: a ``value`` attribute on a class named Overwrite)."""
    if type(value).__name__ == "Overwrite" and hasattr(value, "value"):
        return True, value.value
    return False, None


class DeltaChannel(BaseChannel):
    """Folds each step's writes into the value with one ``reducer(value, writes)`` call."""

    def __init__(
        self,
        reducer: Callable[[Any, Sequence[Any]], Any],
        typ: Any = None,
        *,
        snapshot_frequency: int = 100,
    ) -> None:
        if snapshot_frequency <= 0:
            raise ValueError(f"snapshot_frequency must be a positive int, got {snapshot_frequency}")
        super().__init__(_concrete(typ) if typ is not None else list)
        self.reducer = reducer
        self.snapshot_frequency = snapshot_frequency
        self.typed = typ is not None

    def for_annotation(self, base: Any) -> DeltaChannel:
        """This channel typed by the annotation it sits on (``Annotated[list, DeltaChannel(f)]``)."""
        if self.typed:
            return self
        return DeltaChannel(self.reducer, base, snapshot_frequency=self.snapshot_frequency)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, DeltaChannel)
            and self.reducer == other.reducer
            and self.snapshot_frequency == other.snapshot_frequency
        )

    __hash__ = BaseChannel.__hash__

    def _empty(self) -> Any:
        try:
            return self.typ()
        except Exception:
            return MISSING

    def copy(self) -> BaseChannel:
        c = self.new()
        c.value = self.value if self.value is MISSING else copy.copy(self.value)
        return c

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        overwrites = [i for i, v in enumerate(values) if _overwrite_value(v)[0]]
        if len(overwrites) > 1:
            raise InvalidUpdateError(
                create_error_message(
                    message="Can receive only one Overwrite value per super-step.",
                    error_code=ErrorCode.INVALID_CONCURRENT_GRAPH_UPDATE,
                )
            )
        if overwrites:
            _, new = _overwrite_value(values[overwrites[0]])
            self.value = copy.copy(new) if new is not None else self._empty()
            return True
        base = self._empty() if self.value is MISSING else self.value
        self.value = self.reducer(base, list(values))
        return True
