"""``SubagentTransformer``: nested agent runs as handles (``run.subagents``).

A nested run is an agent when its tasks carry an ``lc_agent_name`` (``create_agent(name=...)``
puts it in every task's metadata; an unnamed agent invoked from a tool inherits its caller's).
Its handle tells the agent's ``name``, the tool call that started it (``cause``) and its
``status``; iterate it for its events, or read its projections by name.
"""

from __future__ import annotations

from typing import Any

from engine.graph.run_stream import StreamChannel, SubgraphRunStream
from engine.graph.run_stream.nested import NestedRunTracker

__all__ = ["SubagentTransformer"]


class SubagentTransformer(NestedRunTracker):
    """``run.subagents``: a handle per nested run (one level down) that carries an agent name."""

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[SubgraphRunStream] = StreamChannel()

    def init(self) -> dict[str, Any]:
        return {"subagents": self._log}

    def _track(self, ns: tuple[str, ...], metadata: dict[str, Any]) -> bool:
        return metadata.get("lc_agent_name") is not None

    def _graph_name(self, ns: tuple[str, ...], metadata: dict[str, Any]) -> str | None:
        name = metadata.get("lc_agent_name")
        return str(name) if name is not None else None

    def _started(self, handle: SubgraphRunStream) -> None:
        self._log.push(handle)
