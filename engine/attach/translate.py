"""Turn LangGraph's own stream parts (``updates``, ``checkpoints``, ``custom``) into our events,
and our inputs (messages, ``Command``) into LangGraph's."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from engine.attach.callbacks import AttachCallbacks
from engine.attach.mirror import CheckpointMirror
from engine.events import (
    CheckpointSaved,
    CustomEvent,
    InterruptRaised,
    Route,
    StateUpdated,
)
from engine.graph.drawing import DrawableGraph, NodeKind
from engine.serde import to_jsonable

__all__ = ["StreamTranslator", "draw_real", "to_real_input"]

_log = logging.getLogger("stepwise.attach")


def to_real_input(value: Any) -> Any:
    """Our messages and ``Command`` as LangGraph expects them (anything else unchanged)."""
    from engine.interop import to_langchain

    if type(value).__name__ == "Command" and type(value).__module__.startswith("engine"):
        from langgraph.types import Command

        fields = {
            k: getattr(value, k)
            for k in ("resume", "update", "goto", "graph")
            if getattr(value, k, None) is not None
        }
        return Command(**{k: to_real_input(v) for k, v in fields.items()})
    if isinstance(value, dict):
        return {k: to_real_input(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_real_input(v) for v in value]
    if type(value).__module__.startswith("engine.messages"):
        return to_langchain(value)
    return value


def draw_real(graph: Any, name: str, wrappers: dict[str, list[str]] | None = None) -> DrawableGraph:
    """Our ``DrawableGraph`` of a real compiled graph's ``get_graph()`` (``wrappers``: each
    node's middleware layers, outermost first, shown on the agent's model and tool nodes)."""
    real = graph.get_graph()
    out = DrawableGraph(name=name)
    for nid, node in real.nodes.items():
        kind: NodeKind = "node"
        if nid == "__start__":
            kind = "start"
        elif nid == "__end__":
            kind = "end"
        elif nid == "tools":
            kind = "tools"
        elif nid == "model":
            kind = "model"
        elif "." in nid:
            kind = "hook"
        meta: dict[str, Any] = {}
        if kind in ("model", "tools"):
            meta["wrappers"] = list((wrappers or {}).get(nid, ()))
            tools = getattr(getattr(node, "data", None), "tools_by_name", None)
            if kind == "tools" and isinstance(tools, dict):
                meta["tools"] = list(tools)
        out.add_node(nid, kind, getattr(node, "name", nid) or nid, **meta)
    for e in real.edges:
        out.add_edge(
            e.source, e.target, conditional=bool(e.conditional),
            data=None if e.data is None else str(e.data),
        )  # fmt: skip
    return out


def _ns(parts: tuple[str, ...]) -> str:
    return "|".join(parts)


class StreamTranslator:
    """Emits our events for the parts LangGraph streams (``subgraphs=True``, several modes)."""

    def __init__(
        self,
        cb: AttachCallbacks,
        mirrors: Sequence[CheckpointMirror] = (),
        announced: set[tuple[str | None, str, str]] | None = None,
    ) -> None:
        self.cb = cb
        self.mirrors = list(mirrors)
        """Session files that keep a copy of each checkpoint (see ``mirror``)."""
        self.announced = announced if announced is not None else set()
        """(thread, ns, checkpoint id) already announced: a resumed run streams the checkpoint
        it resumes from again, which is not a new checkpoint."""
        self.writers: dict[str, list[str]] = {}
        self.interrupts: list[Any] = []
        self.values: Any = None
        """The root graph's latest values (the run's output)."""

    async def part(self, ns_parts: tuple[str, ...], mode: str, data: Any) -> None:
        ns = _ns(ns_parts)
        if mode == "values":
            if not ns:
                self.values = data
        elif mode == "updates" and isinstance(data, dict):
            await self._updates(ns, data)
        elif mode == "checkpoints" and isinstance(data, dict):
            await self._checkpoint(ns, data)
        elif mode == "custom":
            await self.cb._emit(
                CustomEvent, ns, parent_span_id=self.cb.root_span, data=to_jsonable(data)
            )

    async def _updates(self, ns: str, data: dict[str, Any]) -> None:
        for node, update in data.items():
            if node == "__interrupt__":
                if not update:  # interrupt_before / interrupt_after: a pause with no value
                    self.interrupts.append(None)
                    await self.cb._emit(
                        InterruptRaised, ns, parent_span_id=self.cb.root_span, static="before"
                    )
                nodes = self.cb.interrupted.pop(ns, [])
                for i, intr in enumerate(update or ()):
                    self.interrupts.append(intr)
                    await self.cb._emit(
                        InterruptRaised,
                        ns,
                        parent_span_id=self.cb.root_span,
                        interrupt_id=str(getattr(intr, "id", "") or "") or None,
                        value=to_jsonable(getattr(intr, "value", intr), max_str=4000),
                        node=nodes[min(i, len(nodes) - 1)] if nodes else "",
                    )
                continue
            self.writers.setdefault(ns, []).append(str(node))
            changes = []
            if isinstance(update, dict):
                changes = [
                    {"channel": str(k), "op": "set", "value": to_jsonable(v, max_str=2000)}
                    for k, v in update.items()
                ]
            if changes:
                await self.cb._emit(
                    StateUpdated, ns, parent_span_id=self.cb.root_span, changes=changes
                )

    async def _checkpoint(self, ns: str, data: dict[str, Any]) -> None:
        conf = (data.get("config") or {}).get("configurable", {})
        parent_conf = (data.get("parent_config") or {}) or {}
        meta = data.get("metadata") or {}
        step = meta.get("step")
        step = int(step) if isinstance(step, int) else None
        nxt = [str(n) for n in data.get("next") or ()]
        writers = self.writers.pop(ns, [])
        cid = conf.get("checkpoint_id")
        key = (self.cb.em.thread_id, ns, str(cid))
        if cid and key in self.announced:
            return
        self.announced.add(key)
        await self.cb.finish_step(ns, -1 if step is None else step)
        for w in dict.fromkeys(writers):
            await self.cb._emit(
                Route,
                ns,
                parent_span_id=self.cb.root_span,
                step=step,
                from_node=w,
                to=nxt,
                reason="end" if not nxt else "conditional" if len(nxt) > 1 else "static",
            )
        source = meta.get("source")
        await self.cb._emit(
            CheckpointSaved,
            ns,
            parent_span_id=self.cb.root_span,
            step=step,
            checkpoint_id=cid,
            parent_id=(parent_conf.get("configurable") or {}).get("checkpoint_id"),
            source=source if source in ("input", "loop", "update", "fork") else "loop",
            next=nxt,
            writer_nodes=list(dict.fromkeys(writers)),
        )
        if not ns and cid:
            self.cb.em.checkpoint_id = str(cid)
        thread = self.cb.em.thread_id
        if cid and thread is not None:
            for mirror in self.mirrors:
                try:
                    await mirror.put(
                        thread_id=thread,
                        ns=str(conf.get("checkpoint_ns") or ns),
                        checkpoint_id=str(cid),
                        parent_id=(parent_conf.get("configurable") or {}).get("checkpoint_id"),
                        values=data.get("values"),
                        metadata={**meta, "run_id": self.cb.root_span},
                    )
                except Exception as exc:  # the copy is for replay: never fail the app's run
                    _log.warning("could not copy checkpoint %s into the session: %s", cid, exc)

    async def close_open_steps(self) -> None:
        for ns, step in list(self.cb.steps):
            await self.cb.finish_step(ns, step, "interrupted" if self.interrupts else "ok")
