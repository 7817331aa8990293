"""The loop and state spec of an entrypoint graph: the state is one value, not a dict."""

from __future__ import annotations

from typing import Any

from engine.func.constants import PREVIOUS
from engine.graph.loop import PregelLoop
from engine.graph.state import OmitFromOutput, StateSpec
from engine.message_log import plain
from engine.types import END

__all__ = ["EntrySpec", "EntrypointLoop"]


class EntrySpec(StateSpec):
    """The entrypoint's "state": its return value and what it saved (not a schema)."""

    def __init__(self) -> None:
        from engine.graph.channels import LastValue

        self.schema = None
        self.is_root = False
        self.managed = {}
        self.fields = {END: Any, PREVIOUS: Any}
        self.channels = {END: LastValue(Any), PREVIOUS: LastValue(Any)}
        for k, ch in self.channels.items():
            ch.key = k
        self.markers = {END: set(), PREVIOUS: {OmitFromOutput}}
        self.is_pydantic = False
        self.is_dataclass = False

    @property
    def result_key(self) -> str | None:
        return END  # a finished entrypoint task's result is what the function returned

    def to_state(self, values: dict[str, Any]) -> Any:
        return values

    def validate_input(self, value: Any) -> dict[str, Any]:
        return {END: value}


class EntrypointLoop(PregelLoop):
    """A ``PregelLoop`` whose output is the entrypoint's return value."""

    def _values(self) -> Any:
        ch = self.channels.get(END)
        return ch.get() if ch is not None and ch.is_available() else None

    def output(self) -> Any:
        value = plain(self._values())
        if self.interrupts and not self.nested:
            # as LangGraph's invoke: the last value (a dict one, from an earlier run on the
            # thread) with the interrupts
            kept = value if isinstance(value, dict) else {}
            return {**kept, "__interrupt__": list(self.interrupts)}
        return value
