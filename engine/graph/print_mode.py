"""What a run prints when asked (LangGraph's ``print_mode`` and ``debug``): the modes, and
each part as LangGraph prints it."""

from __future__ import annotations

from typing import Any

__all__ = ["print_part", "printed_modes", "printer"]


def printed_modes(graph: Any, print_mode: Any, debug: bool | None) -> list[str]:
    """The stream modes a run prints: LangGraph's ``print_mode``, or updates and values when
    the run or the compiled graph asks for ``debug``."""
    if debug or (debug is None and getattr(graph, "debug", False)):
        return ["updates", "values"]
    if isinstance(print_mode, str):
        return [print_mode]
    return list(print_mode or ())


def print_part(mode: str, ns: tuple[str, ...], chunk: Any) -> None:
    """One printed part, as LangGraph prints it: the mode in bold, a nested graph's
    namespace in yellow, the chunk's repr."""
    parts = [f"\033[1m[{mode}]\033[0m"]
    if ns:
        parts.append(f"\033[1;30;33m[graph={ns}]\033[0m")
    parts.append(repr(chunk))
    print(" ".join(parts))


def printer(mode: str, chunk: Any, ns: str) -> None:
    """The sink of an ``invoke`` that only prints (``print_mode`` / ``debug``): the root
    graph's parts, as LangGraph's ``invoke`` prints them."""
    if not ns:
        print_part(mode, (), chunk)
