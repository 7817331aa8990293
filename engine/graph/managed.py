"""Managed values: state keys the runtime fills in for each task instead of storing them.

``remaining_steps: RemainingSteps`` is how many supersteps the run may still take before the
recursion limit; ``is_last_step: IsLastStep`` is True on the last one.  They are read, never
written or saved, as in LangGraph (``langgraph.managed``); agents use them to answer instead
of calling tools when the limit is near.
"""

from __future__ import annotations

from typing import Annotated, Any, get_args, get_origin

__all__ = ["IsLastStep", "ManagedValue", "RemainingSteps", "managed_of"]


class ManagedValue:
    """A value the runtime computes for a task from its step and the run's step limit."""

    @staticmethod
    def value(step: int, stop: int) -> Any:
        raise NotImplementedError


class RemainingStepsManager(ManagedValue):
    @staticmethod
    def value(step: int, stop: int) -> int:
        return stop - step


class IsLastStepManager(ManagedValue):
    @staticmethod
    def value(step: int, stop: int) -> bool:
        return step == stop - 1


RemainingSteps = Annotated[int, RemainingStepsManager]
IsLastStep = Annotated[bool, IsLastStepManager]


def managed_of(annotation: Any) -> type[ManagedValue] | None:
    """The manager an annotation names (``Annotated[..., <ManagedValue subclass>]``), if any."""
    if get_origin(annotation) is not Annotated:
        return None
    for meta in get_args(annotation)[1:]:
        if isinstance(meta, type) and issubclass(meta, ManagedValue):
            return meta
    return None
