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
    from engine.attach import is_langgraph

    if is_langgraph(graph):  # a real LangGraph subgraph of an attached app, drilled into
        from engine.attach.drawing import draw_real

        return draw_real(graph, str(getattr(graph, "name", None) or "graph"))
    drawable: DrawableGraph = graph.get_graph()
    func = getattr(graph, "func", None)
    if func is None:
        return drawable
    from engine.func.task import TaskFunction
    from engine.graph.subgraph_detect import reachable_values

    for value in reachable_values(func):
        if isinstance(value, TaskFunction) and value.name not in drawable.nodes:
            drawable.add_node(value.name, "node", functional="task")
            drawable.add_edge(graph.name, value.name, conditional=True, data="calls")
    return drawable
