"""The LangGraph run options an attached graph's ``invoke`` / ``stream`` take, checked and put
where LangGraph and the translation read them."""

from __future__ import annotations

from typing import Any

__all__ = ["options_taken", "real_stream_options", "with_context", "with_durability"]

_RUN_OPTIONS = (
    "durability",
    "interrupt_before",
    "interrupt_after",
    "debug",
    "print_mode",
    "control",
)
"""``debug`` and ``print_mode`` go to the app's graph, which prints what they ask for;
``control`` (a ``RunControl``) too, which drains the run when asked.  ``output_keys`` is
taken before these (``engine.attach.output_keys``)."""


def options_taken(options: dict[str, Any]) -> dict[str, Any]:
    """The LangGraph run options an attached run takes; a clear error for any other."""
    unknown = sorted(set(options) - set(_RUN_OPTIONS))
    if unknown:
        raise TypeError(
            f"an attached graph's run does not take {', '.join(unknown)} (it takes "
            f"{', '.join(_RUN_OPTIONS)})"
        )
    return {k: v for k, v in options.items() if v is not None}


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
