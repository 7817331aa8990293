"""``ValuesTransformer``: the run's state after each step (``run.values``) and its output."""

from __future__ import annotations

from typing import Any

from engine.graph.run_stream.channel import StreamChannel
from engine.graph.run_stream.protocol import ProtocolEvent, StreamTransformer

__all__ = ["ValuesTransformer"]


class ValuesTransformer(StreamTransformer):
    """``run.values``: each ``values`` snapshot of this scope's graph; ``latest`` the last
    (without the ``__interrupt__`` entry a run that stopped at an interrupt adds, which goes to
    ``interrupts``)."""

    required_stream_modes = ("values",)

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[Any] = StreamChannel()
        self.latest: Any = None
        self.interrupts: list[Any] = []

    def init(self) -> dict[str, Any]:
        return {"values": self._log}

    def process(self, event: ProtocolEvent) -> bool:
        if event["method"] == "values" and tuple(event["params"]["namespace"]) == self.scope:
            data = event["params"]["data"]
            self._log.push(data)
            if isinstance(data, dict) and "__interrupt__" in data:
                self.interrupts = list(data["__interrupt__"])
                data = {k: v for k, v in data.items() if k != "__interrupt__"}
            self.latest = data
        return True
