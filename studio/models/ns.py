"""Checkpoint namespaces as the studio shows them (plain Python): the graph an event happened in
is the engine's ``graph_path``, as breakpoints read it."""

from __future__ import annotations

from engine.debug.breakpoints import graph_path as ns_path

__all__ = ["ns_path"]
