"""Subgraphs in the state API: ``get_subgraphs``, nested ``StateSnapshot``s in
``get_state(subgraphs=True)``, and state methods addressed to a subgraph's namespace."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from engine.graph.subgraph import NS_SEP, stable_ns, strip_task_ids, task_ns
from engine.types import PregelTask, StateSnapshot

if TYPE_CHECKING:
    from engine.checkpoint.base import BaseCheckpointSaver
    from engine.graph.algo import PregelNode

__all__ = ["SAVER_KEY", "SubgraphStateAPI", "with_checkpoint_map"]

SAVER_KEY = "__pregel_checkpointer"
"""``configurable`` key through which a parent lends its saver to a subgraph's state methods."""


def with_checkpoint_map(config: dict[str, Any] | None, metadata: Any) -> dict[str, Any] | None:
    """A subgraph checkpoint's config also names the checkpoint of each enclosing graph
    (``checkpoint_map``: namespace -> checkpoint id), so it can address the whole stack."""
    parents = (metadata or {}).get("parents") if config is not None else None
    if not parents or config is None:
        return config
    conf = config.get("configurable", {})
    cmap = {**parents, conf.get("checkpoint_ns", ""): conf.get("checkpoint_id")}
    return {**config, "configurable": {**conf, "checkpoint_map": cmap}}


class SubgraphStateAPI:
    """Mixin of ``CompiledStateGraph`` (through ``StateAPI``)."""

    nodes: dict[str, PregelNode]
    checkpointer: Any

    def get_subgraphs(
        self, *, namespace: str | None = None, recurse: bool = False
    ) -> Iterator[tuple[str, Any]]:
        """``(namespace, graph)`` for each node that runs or calls a graph.

        ``namespace`` (node names joined by ``|``, no task ids) picks one subgraph; a nested
        one needs ``recurse=True``.
        """
        for name, node in self.nodes.items():
            if (
                namespace is not None
                and namespace != name
                and not namespace.startswith(name + NS_SEP)
            ):
                continue
            graph = node.subgraphs[0] if node.subgraphs else None
            if graph is None:
                continue
            if namespace == name:
                yield name, graph
                return
            if namespace is None:
                yield name, graph
            if recurse and hasattr(graph, "get_subgraphs"):
                rest = None if namespace is None else namespace[len(name) + 1 :]
                for sub_name, sub in graph.get_subgraphs(namespace=rest, recurse=True):
                    yield f"{name}{NS_SEP}{sub_name}", sub

    async def aget_subgraphs(
        self, *, namespace: str | None = None, recurse: bool = False
    ) -> AsyncIterator[tuple[str, Any]]:
        for item in self.get_subgraphs(namespace=namespace, recurse=recurse):
            yield item

    # -- addressing ----------------------------------------------------------------------

    def _lent_saver(self, config: dict[str, Any] | None) -> BaseCheckpointSaver | None:
        conf = (config or {}).get("configurable", {})
        return conf.get(SAVER_KEY)

    def _subgraph_for(
        self, config: dict[str, Any], saver: BaseCheckpointSaver, *, for_update: bool = False
    ) -> tuple[Any, dict[str, Any]] | None:
        """The subgraph a namespaced config addresses and the config to call it with (None
        when the config is for this graph or names no subgraph it knows)."""
        conf = config.get("configurable", {})
        ns = conf.get("checkpoint_ns", "")
        if not ns or SAVER_KEY in conf:
            return None
        path = strip_task_ids(ns)
        for _name, graph in self.get_subgraphs(namespace=path, recurse=True):
            return graph, {**config, "configurable": {**conf, SAVER_KEY: saver}}
        if for_update:
            raise ValueError(f"Subgraph {path} not found")
        return None

    def _own_config(self, config: dict[str, Any]) -> dict[str, Any]:
        """A ``checkpointer=True`` subgraph keeps its history under its stable namespace."""
        if self.checkpointer is not True:
            return config
        conf = config.get("configurable", {})
        return {
            **config,
            "configurable": {**conf, "checkpoint_ns": stable_ns(conf.get("checkpoint_ns", ""))},
        }

    # -- nested snapshots ----------------------------------------------------------------

    async def _with_task_states(
        self, snap: StateSnapshot, saver: BaseCheckpointSaver, recurse: bool
    ) -> StateSnapshot:
        """Fill ``tasks[i].state`` for tasks that run a subgraph: the subgraph's config, or
        with ``recurse`` its whole (nested) ``StateSnapshot``."""
        conf = snap.config.get("configurable", {}) if snap.config else {}
        if not snap.tasks or "thread_id" not in conf:
            return snap
        parent_ns = conf.get("checkpoint_ns", "")
        tasks: list[PregelTask] = []
        changed = False
        for t in snap.tasks:
            node = self.nodes.get(t.name)
            if node is None or not node.subgraphs:
                tasks.append(t)
                continue
            ns = task_ns(parent_ns, t.name, t.id)
            sub_conf: dict[str, Any] = {"thread_id": conf["thread_id"], "checkpoint_ns": ns}
            state: Any
            if recurse:
                graph = node.subgraphs[0]
                state = await graph.aget_state(
                    {"configurable": {**sub_conf, SAVER_KEY: saver}}, subgraphs=True
                )
            else:
                state = {"configurable": sub_conf}
            tasks.append(t._replace(state=state))
            changed = True
        return snap._replace(tasks=tuple(tasks)) if changed else snap
