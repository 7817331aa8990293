"""The graph shape the Graph dock draws: ``graph.get_graph()``, plus what a run will show.

An ``@entrypoint`` is one node to LangGraph (and to ``get_graph()``, as upstream draws it); its
``@task``s are where the work happens.  For the dock, the tasks its function reaches are added
as nodes hanging off the entrypoint (dashed, "calls"), so they light up and count their runs
like any node.
"""

from __future__ import annotations

from typing import Any

from engine.graph.drawing import DrawableGraph

__all__ = ["drawable_for"]


def drawable_for(graph: Any) -> DrawableGraph:
    drawable: DrawableGraph = graph.get_graph()
    func = getattr(graph, "func", None)
    if func is None:
        return drawable
    from engine.func.task import TaskFunction

    for value in _reached(func):
        if isinstance(value, TaskFunction) and value.name not in drawable.nodes:
            drawable.add_node(value.name, "node", functional="task")
            drawable.add_edge(graph.name, value.name, conditional=True, data="calls")
    return drawable


def _reached(func: Any) -> list[Any]:
    """The global and captured values ``func``'s code names, comprehensions and inner
    functions included (their code objects are constants of the outer one)."""
    func = getattr(func, "__wrapped__", func)
    code = getattr(func, "__code__", None)
    if code is None:
        return []
    names: list[str] = []
    stack = [code]
    while stack:
        current = stack.pop()
        names.extend(current.co_names)
        names.extend(current.co_freevars)
        stack.extend(c for c in current.co_consts if hasattr(c, "co_names"))
    scope = dict(getattr(func, "__globals__", {}))
    for name, cell in zip(code.co_freevars, getattr(func, "__closure__", None) or (), strict=False):
        try:
            scope[name] = cell.cell_contents
        except ValueError:  # an empty cell
            continue
    return [scope[n] for n in dict.fromkeys(names) if n in scope]
