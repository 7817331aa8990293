"""The LangGraph run options an attached graph's ``invoke`` / ``stream`` take, put where
LangGraph and the translation read them."""

from __future__ import annotations

import warnings
from typing import Any

__all__ = ["options_taken", "real_stream_options", "with_context", "with_durability"]


def options_taken(options: dict[str, Any]) -> dict[str, Any]:
    """The LangGraph run options of an attached run, handed to the app's graph's stream as
    LangGraph's ``invoke`` / ``stream`` take them: ``durability``, ``interrupt_before`` /
    ``_after`` (read by the translation too), ``debug``, ``print_mode`` and ``control``; an
    option LangGraph does not know it ignores, as it ignores it.  ``checkpoint_during``, which
    LangGraph deprecates for ``durability``, is read as LangGraph reads it (``output_keys`` is
    taken before: ``engine.attach.output_keys``)."""
    opts = {k: v for k, v in options.items() if v is not None}
    during = opts.pop("checkpoint_during", None)
    if during is not None:
        if "durability" in opts:
            raise ValueError("give durability alone: checkpoint_during is its deprecated form")
        from langgraph.warnings import LangGraphDeprecatedSinceV10

        warnings.warn(
            "checkpoint_during is deprecated: durability='async' is checkpoint_during=True, "
            "durability='exit' is checkpoint_during=False",
            LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        opts["durability"] = "async" if during else "exit"
    return opts


def with_durability(config: dict[str, Any] | None, durability: str | None) -> dict[str, Any] | None:
    """``config`` with LangGraph's durability mode in it (where LangGraph and the translation
    both read it)."""
    if durability is None:
        return config
    if durability not in ("sync", "async", "exit"):
        raise ValueError(f"durability must be 'sync', 'async' or 'exit', got {durability!r}")
    conf = {**((config or {}).get("configurable") or {}), "__pregel_durability": durability}
    return {**(config or {}), "configurable": conf}


def with_context(options: dict[str, Any], context: Any) -> dict[str, Any]:
    return options if context is None else {**options, "context": context}


def real_stream_options(
    options: dict[str, Any],
    stream_mode: Any,
    subgraphs: bool,
    context: Any,
    version: str | None = None,
) -> dict[str, Any]:
    """The app's graph's own ``stream`` options (a call made inside another graph's node)."""
    kw = {**options, "stream_mode": stream_mode, "subgraphs": subgraphs}
    if version is not None:
        kw["version"] = version
    return with_context(kw, context)
