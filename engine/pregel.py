"""``langgraph.pregel``'s names, where a ported program imports them: the low-level graph
``Pregel`` and the ``NodeBuilder`` its nodes are made with (``engine.graph.pregel_api``)."""

from engine.graph.pregel_api import NodeBuilder, Pregel

__all__ = ["NodeBuilder", "Pregel"]
