"""Finding the graphs a node function calls (``PregelNode.subgraphs``).

A node may hold a compiled graph directly (``add_node("inner", inner.compile())``) or call
one from its code (``sub.invoke(state)``).  The second kind is found by looking at what the
function can reach from outside its own scope: the values captured in its closure, the module
globals its code names, and the values along attribute paths (``holder.payload.graph``) its
bytecode loads from those.  The search over-approximates (every captured value counts, even
one only used in dead code) because a missed subgraph loses its state in ``get_state``.
"""

from __future__ import annotations

import dis
from collections.abc import Iterator
from types import CodeType, FunctionType
from typing import Any

__all__ = ["find_subgraph", "reachable_values"]

_NAME_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_DEREF", "LOAD_NAME"})
_ATTR_LOADS = frozenset({"LOAD_ATTR", "LOAD_METHOD"})


def _unwrap(fn: Any) -> FunctionType | None:
    fn = getattr(fn, "__func__", fn)
    inner = getattr(fn, "__wrapped__", None)
    if callable(inner):
        fn = getattr(inner, "__func__", inner)
    return fn if isinstance(fn, FunctionType) else None


def _code_objects(code: CodeType) -> Iterator[CodeType]:
    """``code`` and every code object nested in it (inner defs, lambdas, comprehensions)."""
    stack = [code]
    while stack:
        c = stack.pop()
        yield c
        stack.extend(k for k in c.co_consts if isinstance(k, CodeType))


def reachable_values(fn: Any) -> list[Any]:
    """What ``fn`` can reach from outside its scope: captured values, then each global or
    captured name its code loads followed along the attribute loads that come right after."""
    func = _unwrap(fn)
    if func is None:
        return []
    code = func.__code__
    captured: dict[str, Any] = {}
    for name, cell in zip(code.co_freevars, func.__closure__ or (), strict=False):
        try:
            captured[name] = cell.cell_contents
        except ValueError:  # a cell that was never filled
            continue
    codes = list(_code_objects(code))
    names = {n for c in codes for n in c.co_names}  # comprehensions name globals too
    named_globals = {n: func.__globals__[n] for n in names if n in func.__globals__}
    found: list[Any] = list(captured.values())
    for c in codes:
        current: Any = None
        for ins in dis.get_instructions(c):
            if ins.opname in _NAME_LOADS:
                name = ins.argval
                current = captured.get(name) if ins.opname == "LOAD_DEREF" else None
                if current is None and ins.opname != "LOAD_DEREF":
                    current = named_globals.get(name)
            elif ins.opname in _ATTR_LOADS and current is not None:
                current = getattr(current, ins.argval, None)
            else:
                current = None
                continue
            if current is not None:
                found.append(current)
    return found


def _is_graph(value: Any) -> bool:
    return hasattr(value, "_arun_as_subgraph") and not isinstance(value, type)


def find_subgraph(fn: Any) -> Any:
    """The graph a node runs: ``fn`` itself, or the first graph its code reaches (None if none).

    Graphs compiled with ``checkpointer=False`` keep no state, so they do not count.
    """
    for value in [fn, *reachable_values(fn)]:
        if _is_graph(value) and getattr(value, "checkpointer", None) is not False:
            return value
    return None
