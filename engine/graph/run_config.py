"""How a compiled graph's own config meets a run's: merged for a call, put under a calling
task's when the graph runs as a node, and the interrupt lists a call names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["interrupt_list", "merge_config", "under_caller"]


def interrupt_list(given: Sequence[str] | str | None, compiled: list[str]) -> list[str]:
    if given is None:
        return compiled
    return [given] if isinstance(given, str) else list(given)


def under_caller(own: dict[str, Any], caller: dict[str, Any]) -> dict[str, Any]:
    """A graph's own config (``with_config``, ``create_agent``'s metadata) as it runs as a
    node of another graph: under the calling task's config, whose keys win (its recursion
    limit too), metadata and ``configurable`` merged key by key, as LangGraph merges them."""
    out = {
        k: v
        for k, v in own.items()
        if k not in caller and k not in ("recursion_limit", "metadata", "configurable")
    }
    for key in ("metadata", "configurable"):
        if own.get(key):
            out[key] = {**own[key], **caller.get(key, {})}
    return out


def merge_config(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = {**base, **extra}
    if "configurable" in base or "configurable" in extra:
        out["configurable"] = {**base.get("configurable", {}), **extra.get("configurable", {})}
    if "metadata" in base or "metadata" in extra:
        out["metadata"] = {**base.get("metadata", {}), **extra.get("metadata", {})}
    return out
