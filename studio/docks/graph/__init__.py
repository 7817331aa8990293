"""The Graph dock: the compiled graph, the running node lit, badges, breakpoints."""

from studio.docks.graph.panel import GraphPanel

__all__ = ["GraphPanel"]
