"""What a checkpoint's metadata takes from the run's config, as LangGraph's savers store it:
the config's ``metadata`` entries, then its ``configurable`` ones, that are strings, numbers or
booleans, not already in the metadata and not the checkpoint's own address or LangGraph's
(or the engine's) internals.  ``get_state`` and the history show them (``user_id``, say)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["with_config_metadata"]

_NOT_METADATA = frozenset(
    {
        "thread_id",
        "checkpoint_id",
        "checkpoint_ns",
        "checkpoint_map",
        "langgraph_step",
        "langgraph_node",
        "langgraph_triggers",
        "langgraph_path",
        "langgraph_checkpoint_ns",
        # the engine's own, in its task configs: not the app's
        "ls_integration",
        "model_override",
    }
)


def with_config_metadata(metadata: Mapping[str, Any], config: Mapping[str, Any] | None) -> Any:
    """``metadata`` (a new dict) with what the saver takes from ``config``."""
    out = dict(metadata)
    if not config:
        return out
    for source in (config.get("metadata"), config.get("configurable")):
        if not isinstance(source, Mapping):
            continue
        for key, value in source.items():
            if not isinstance(key, str) or key in out or key in _NOT_METADATA:
                continue
            if key.startswith("__"):
                continue
            if isinstance(value, str):
                out[key] = value.replace("\u0000", "")
            elif isinstance(value, int | float | bool):
                out[key] = value
    return out
