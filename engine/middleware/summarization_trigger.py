"""When ``SummarizationMiddleware`` summarizes: context sizes and trigger clauses.

A context size is ``("messages", n)``, ``("tokens", n)`` or ``("fraction", f)`` (of the
model's ``max_input_tokens``). A trigger is a size, a ``TriggerClause`` dict such as
``{"tokens": 4000, "messages": 10}`` (every threshold must be reached: AND), or a list of
either (any item suffices: OR). Everything is normalised to a list of clauses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

from typing_extensions import TypedDict

__all__ = [
    "ContextSize",
    "TriggerClause",
    "TriggerSpec",
    "copy_trigger",
    "normalise_trigger",
    "validate_size",
]

ContextSize: TypeAlias = tuple[Literal["messages", "tokens", "fraction"], int | float]

METRICS = ("tokens", "messages", "fraction")


class TriggerClause(TypedDict, total=False):
    """Thresholds that must all be reached for the clause to hold."""

    tokens: int
    messages: int
    fraction: float


TriggerSpec: TypeAlias = ContextSize | TriggerClause | list[ContextSize | TriggerClause] | None


def validate_size(size: Any, label: str) -> ContextSize:
    """``size`` checked as a ``("messages" | "tokens" | "fraction", value)`` tuple."""
    if not isinstance(size, tuple) or len(size) != 2:
        raise ValueError(f"{label} must be a tuple like ('messages', 20), got {size!r}")
    kind, value = size
    if kind == "fraction":
        if not 0 < value <= 1:
            raise ValueError(f"Fractional {label} values must be between 0 and 1, got {value}.")
    elif kind in ("messages", "tokens"):
        if value <= 0:
            raise ValueError(f"{label} thresholds must be greater than 0, got {value}.")
    else:
        raise ValueError(f"Unsupported context size type {kind} for {label}.")
    return (kind, value)


def copy_trigger(trigger: Any) -> Any:
    """A copy the caller cannot change afterwards (dicts and lists are copied)."""
    if isinstance(trigger, Mapping):
        return dict(trigger)
    if isinstance(trigger, list):
        return [dict(t) if isinstance(t, Mapping) else t for t in trigger]
    return trigger


def _clause(spec: Mapping[str, Any]) -> dict[str, int | float]:
    if not spec:
        raise ValueError(
            "trigger clause must specify at least one of 'tokens', 'messages', 'fraction'"
        )
    out: dict[str, int | float] = {}
    for metric, value in spec.items():
        if metric not in METRICS:
            raise ValueError(f"Unsupported trigger metric: {metric!r}")
        if isinstance(value, bool):
            raise ValueError(f"{metric} trigger value must be numeric, got {value!r}")
        if metric == "fraction":
            if not isinstance(value, int | float):
                raise ValueError(f"Fraction trigger values must be numeric, got {value!r}")
        elif not isinstance(value, int):
            raise ValueError(f"{metric} trigger values must be integers, got {value!r}")
        validate_size((metric, value), "trigger")
        out[metric] = value
    return out


def _item(item: Any) -> dict[str, int | float]:
    if isinstance(item, Mapping):
        return _clause(item)
    if isinstance(item, tuple):
        kind, value = validate_size(item, "trigger")
        return {kind: value}
    raise TypeError(f"Unsupported trigger item type: {type(item)}")


def normalise_trigger(trigger: Any) -> list[dict[str, int | float]]:
    """The trigger as OR-ed clauses of AND-ed thresholds (``[]``: never summarize)."""
    if trigger is None:
        return []
    if isinstance(trigger, Mapping | tuple):
        return [_item(trigger)]
    if isinstance(trigger, list):
        return [_item(t) for t in trigger]
    raise TypeError(f"Unsupported trigger type: {type(trigger)}")
