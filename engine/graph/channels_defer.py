"""``LastValueAfterFinish``: the trigger of a deferred node (``add_node(..., defer=True)``).

A write is kept (steps that do not write it leave it alone) but the channel shows nothing
until the run has nothing else to do: then the loop calls ``finish()``, the node becomes due
and runs once, which consumes the value.  That is how a deferred node waits for every branch
of a fan-out of uneven length, as LangGraph's deferred nodes do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.errors import EmptyChannelError
from engine.graph.channels import MISSING, BaseChannel

__all__ = ["LastValueAfterFinish"]


class LastValueAfterFinish(BaseChannel):
    """The last value written, available only after ``finish()``; consumed by its reader."""

    def __init__(self, typ: Any = Any) -> None:
        super().__init__(typ)
        self.finished = False

    def new(self) -> BaseChannel:
        c = super().new()
        assert isinstance(c, LastValueAfterFinish)
        c.finished = False
        return c

    def from_checkpoint(self, value: Any) -> BaseChannel:
        c = self.new()
        assert isinstance(c, LastValueAfterFinish)
        if isinstance(value, dict) and "finished" in value:
            c.value = value.get("value")
            c.finished = bool(value["finished"])
        return c

    def copy(self) -> BaseChannel:
        return self.from_checkpoint(self.checkpoint())

    def checkpoint(self) -> Any:
        if self.value is MISSING:
            return MISSING
        return {"value": self.value, "finished": self.finished}

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        self.value = values[-1]
        self.finished = False
        return True

    def is_available(self) -> bool:
        return self.value is not MISSING and self.finished

    def holds_state(self) -> bool:
        return self.value is not MISSING  # kept before the run finishes, to show then

    def get(self) -> Any:
        if not self.is_available():
            raise EmptyChannelError(self.key)
        return self.value

    def consume(self) -> bool:
        if self.finished:
            self.value = MISSING
            self.finished = False
            return True
        return False

    def finish(self) -> bool:
        """The run has nothing else to do: show the value (True if that changed anything)."""
        if self.value is not MISSING and not self.finished:
            self.finished = True
            return True
        return False
