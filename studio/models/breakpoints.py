"""The breakpoints panel's model: the debugger's breakpoint list, edited (plain Python, no Qt).

Breakpoints live in the run controller's ``Debugger`` (``hub.debugger``), so they survive runs
and restarts.  Every change publishes the hub's ``breakpoints`` topic; the Graph dock draws a red
dot on nodes with an enabled "before node" breakpoint, and F9 on a node toggles one for the graph
shown (the root graph, or the subgraph opened: an agent's ``tools`` node is not the ``tools``
node of the agents it calls).
``choices(kind)`` offers what the loaded graph has: nodes (those of its subgraphs as "research ›
tools": a breakpoint in that subgraph only), middleware, hooks, wrappers, tools.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.debug import Breakpoint, Debugger
from engine.graph.drawing import DrawableGraph
from studio.models.graph_levels import PATH_SEP, levels
from studio.models.hub import Hub

__all__ = ["KINDS", "NEEDS_TARGET", "BreakpointsModel", "KindInfo"]


@dataclass(frozen=True)
class KindInfo:
    kind: str
    label: str
    target_label: str | None
    """What the target field asks for (None: the kind has no target)."""


KINDS: tuple[KindInfo, ...] = (
    KindInfo("before_node", "Before node", "Node"),
    KindInfo("after_node", "After node", "Node"),
    KindInfo("hook", "Middleware hook", "Middleware"),
    KindInfo("wrapper", "Middleware wrapper", "Middleware"),
    KindInfo("tool", "Tool call", "Tool"),
    KindInfo("failure", "Any failure", None),
    KindInfo("interrupt", "Interrupt", None),
    KindInfo("loop", "Loop detected", None),
    KindInfo("state", "State condition", "Expression"),
)
NEEDS_TARGET = frozenset({"before_node", "after_node", "hook", "wrapper", "tool"})
HOOKS = ("before_agent", "before_model", "after_model", "after_agent")
WRAPPERS = ("wrap_model_call", "wrap_tool_call")


class BreakpointsModel:
    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    @property
    def debugger(self) -> Debugger:
        if self.hub.debugger is None:
            self.hub.debugger = Debugger()
        return self.hub.debugger

    def rows(self) -> list[Breakpoint]:
        return list(self.debugger.breakpoints)

    def _changed(self) -> None:
        self.hub.breakpoints_changed()

    # -- editing ---------------------------------------------------------------------------

    def add(self, kind: str, target: str | None = None, detail: str | None = None) -> Breakpoint:
        """Add a breakpoint; ``ValueError`` with a readable reason if it is incomplete."""
        target = (target or "").strip() or None
        detail = (detail or "").strip() or None
        if kind not in {k.kind for k in KINDS}:
            raise ValueError(f"Unknown breakpoint kind {kind!r}")
        if kind in NEEDS_TARGET and target is None:
            label = next(k.target_label for k in KINDS if k.kind == kind)
            raise ValueError(f"{label} is missing")
        dbg = self.debugger
        if kind == "state":
            if target is None:
                raise ValueError("Expression is missing (for example: len(messages) > 6)")
            try:
                bp = dbg.break_when(target)
            except SyntaxError as exc:
                raise ValueError(f"The expression is not valid Python: {exc.msg}") from None
        else:
            graph = None
            if target and PATH_SEP.strip() in target:  # "research › tools": inside research
                *path, target = [part.strip() for part in target.split(PATH_SEP.strip())]
                graph = tuple(path)
            bp = dbg.add(Breakpoint(kind, target, detail, graph=graph))  # type: ignore[arg-type]
        self._changed()
        return bp

    def remove(self, bp_id: int) -> None:
        self.debugger.remove(bp_id)
        self._changed()

    def clear(self) -> None:
        self.debugger.clear()
        self._changed()

    def set_enabled(self, bp_id: int, enabled: bool) -> None:
        for bp in self.debugger.breakpoints:
            if bp.id == bp_id and bp.enabled != enabled:
                bp.enabled = enabled
                self._changed()

    # -- "break on any failure / on interrupts" (the Debug menu's toggles) ----------------------

    def _plain(self, kind: str) -> list[Breakpoint]:
        return [
            b for b in self.debugger.breakpoints if b.kind == kind and not b.target and not b.detail
        ]

    def is_on(self, kind: str) -> bool:
        """Is there an enabled breakpoint of ``kind`` on anything ("any failure")?"""
        return any(b.enabled for b in self._plain(kind))

    def set_on(self, kind: str, enabled: bool) -> None:
        """Make "break on any ``kind``" set (once) or gone."""
        plain = self._plain(kind)
        if enabled:
            if any(b.enabled for b in plain):
                return
            if plain:
                plain[0].enabled = True
                self._changed()
            else:
                self.add(kind)
            return
        if not plain:
            return
        for b in plain:
            self.debugger.remove(b)
        self._changed()

    # -- node breakpoints (the Graph dock's red dots, F9) --------------------------------------

    def node_breakpoints(self, graph: tuple[str, ...] = ()) -> set[str]:
        """The nodes of the graph at ``graph`` (node names from the root graph down; ``()``:
        the root) with an enabled "before node" breakpoint: one set on that graph, or one set
        on a node name in any graph (from the Breakpoints panel or the API)."""
        return {
            bp.target
            for bp in self.debugger.breakpoints
            if bp.kind == "before_node"
            and bp.enabled
            and not bp.once
            and bp.target
            and (bp.graph is None or bp.graph == graph)
        }

    def set_node(self, node: str, enabled: bool, graph: tuple[str, ...] | None = None) -> None:
        """Make "break before ``node``" of the graph at ``graph`` (None: of a node of that
        name in any graph, as a task of an entrypoint, drawn nowhere, is) set or gone.  A
        breakpoint on ``node`` in any graph counts in each: unset, it is gone everywhere."""
        matching = [
            b
            for b in self.debugger.breakpoints
            if b.kind == "before_node"
            and b.target == node
            and (b.graph in (None, graph) or (graph is None and not enabled))
        ]
        if enabled:
            if any(b.enabled for b in matching):
                return
            if matching:
                matching[0].enabled = True
            else:
                self.debugger.break_before(node, graph=graph)
        else:
            if not matching:
                return
            for b in matching:
                self.debugger.remove(b)
        self._changed()

    def run_to(self, node: str, graph: tuple[str, ...] | None = None) -> Breakpoint:
        """A breakpoint before ``node`` (of the graph at ``graph``) that goes once it has
        stopped the run ("Run to here"); an earlier one still waiting is replaced."""
        for b in [b for b in self.debugger.breakpoints if b.once]:
            self.debugger.remove(b)
        bp = self.debugger.run_to(node, graph=graph)
        self._changed()
        return bp

    def toggle_node(self, node: str, graph: tuple[str, ...] | None = None) -> bool:
        enabled = node not in self.node_breakpoints(graph or ())
        self.set_node(node, enabled, graph)
        return enabled

    # -- what the graph offers ----------------------------------------------------------------

    def choices(self, kind: str) -> list[str]:
        """What ``kind`` may name in the loaded graph: its own nodes, middleware or tools
        first, then those of each subgraph as "research › tools" (a breakpoint in that graph
        only)."""
        out: list[str] = []
        for path, drawn in levels(self.hub):
            for name in _names(drawn, kind):
                shown = PATH_SEP.join((*path, name))
                if shown not in out:
                    out.append(shown)
        if kind in ("before_node", "after_node"):  # graphs no drawing shows, a run went through
            out += [n for n in self._run_nested() if n not in out]
        return out

    def _run_nested(self) -> list[str]:
        """The nodes of graphs the drawing cannot show that the runs shown went through: an
        agent a tool invokes (a supervisor's sub-agents, "tools › model"), a graph a node's
        function picks at run time."""
        return [PATH_SEP.join((*path, node)) for path, node in self.hub.nested_nodes]

    @staticmethod
    def detail_choices(kind: str) -> tuple[str, ...]:
        return HOOKS if kind == "hook" else WRAPPERS if kind == "wrapper" else ()


def _names(graph: DrawableGraph, kind: str) -> list[str]:
    """The nodes, middleware (of hooks, of wrappers) or tools of one drawn graph."""
    nodes = [n for n in graph.nodes.values() if n.kind not in ("start", "end")]
    if kind in ("before_node", "after_node"):
        return [n.id for n in nodes]
    names: list[str] = []
    for n in nodes:
        if kind == "hook":
            found = [n.metadata.get("middleware")]
        elif kind == "wrapper":
            found = list(n.metadata.get("wrappers") or ())
        elif kind == "tool":
            found = list(n.metadata.get("tools") or ())
        else:
            return []
        names += [name for name in found if isinstance(name, str) and name not in names]
    return names
