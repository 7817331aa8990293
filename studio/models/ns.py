"""Checkpoint namespaces as the studio shows them (plain Python)."""

from __future__ import annotations

__all__ = ["ns_path"]


def ns_path(ns: str | None) -> tuple[str, ...]:
    """``"outer:task1|inner:task2"`` -> ``("outer", "inner")`` (task ids dropped)."""
    if not ns:
        return ()
    return tuple(part.split(":", 1)[0] for part in ns.split("|") if part and not part.isdigit())
