"""A run's ``output_keys`` (LangGraph's ``invoke`` / ``stream`` option) applied to the root
graph's ``values`` and ``updates`` an attached run hands its caller.

The run itself never passes ``output_keys`` to LangGraph: the translation into events reads
which channels each node wrote from the ``updates`` stream, which the option would cut down.
So LangGraph streams with the graph's own output channels, and what the caller asked for is
made from that here, as LangGraph makes it:

- an ``updates`` part keeps, per node, what each of its tasks wrote to the asked channels
  (one key: the value itself; no write to them: ``None``);
- a ``values`` part is handed over only when something the superstep (or the input) wrote is
  one of the asked channels, and it holds those channels only (one key: its value alone).

Which channels a superstep wrote is read from its ``updates`` parts, which LangGraph streams
before that superstep's ``values``.  Only the root graph's parts change: a nested graph
streams its own output channels, as on LangGraph.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["SKIP", "OutputKeys"]

SKIP: Any = object()
"""``OutputKeys.part``'s answer for a part the caller's stream does not get."""

_INTERRUPT = "__interrupt__"


def _input_writes(input: Any) -> set[str] | None:
    """The channels a run's input writes (``None``: all of them count, as when resuming)."""
    if input is None:
        return None
    if isinstance(input, Mapping):
        return {str(k) for k in input}
    if type(input).__name__ == "Command":
        if getattr(input, "resume", None) is not None:
            return None
        update = getattr(input, "update", None)
        if isinstance(update, Mapping):
            return {str(k) for k in update}
        if isinstance(update, list | tuple):
            return {str(pair[0]) for pair in update if isinstance(pair, tuple | list) and pair}
        return set()
    return None  # a state object: its fields are the input's writes


class OutputKeys:
    """The caller's ``output_keys`` over the root graph's stream of one run (see the module
    docstring); ``part`` is given every root part, asked for by the caller or not."""

    def __init__(self, keys: str | Sequence[str], input: Any) -> None:
        self.keys: str | list[str] = keys if isinstance(keys, str) else [str(k) for k in keys]
        self._asked = {self.keys} if isinstance(self.keys, str) else set(self.keys)
        self._written: set[str] | None = None
        """Channels the updates since the last ``values`` part wrote (None: no update yet)."""
        self._input = _input_writes(input)
        self._first = True

    def part(self, mode: str, data: Any) -> Any:
        if mode == "updates":
            return self._updates(data)
        if mode == "values":
            return self._values(data)
        return data

    def _updates(self, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        written = self._written if self._written is not None else set()
        out: dict[str, Any] = {}
        for node, update in data.items():
            if node == _INTERRUPT:
                out[node] = update
                continue
            writes = [] if update is None else [update] if isinstance(update, dict) else update
            if not isinstance(writes, list) or not all(isinstance(w, dict) for w in writes):
                out[node] = update  # not a state's channels (a graph of one channel)
                continue
            for w in writes:
                written.update(w)
            kept = [self._kept(w) for w in writes if self._asked.intersection(w)]
            out[node] = None if not kept else kept[0] if len(kept) == 1 else kept
        self._written = written
        return out

    def _kept(self, write: dict[str, Any]) -> Any:
        if isinstance(self.keys, str):
            return write[self.keys]
        return {k: write[k] for k in self.keys if k in write}

    def _values(self, data: Any) -> Any:
        written, self._written = self._written, None
        first, self._first = self._first, False
        if written is None and first:
            written = self._input
        if written is not None and not self._asked.intersection(written):
            return SKIP
        if not isinstance(data, dict):
            return data
        if isinstance(self.keys, str):
            return data.get(self.keys)
        return {k: data[k] for k in self.keys if k in data}
