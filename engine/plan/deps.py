"""The dependency structure of a plan: dependants, downstream chains and cycles.

Steps are addressed by their 0-based index; ``step.depends_on`` lists the indices a step
needs.  Edges are read in *flow* direction (``a -> b``: b depends on a), the way a plan is
drawn.  Everything here is O(steps + edges).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

__all__ = ["HasDependsOn", "build_dependency_chain", "dependants", "find_cycle"]


class HasDependsOn(Protocol):
    """Anything with ``depends_on`` indices (a ``PlanStep``, or a lighter stand-in)."""

    @property
    def depends_on(self) -> Sequence[int]: ...


def dependants(steps: Sequence[HasDependsOn]) -> list[list[int]]:
    """Reverse adjacency: ``out[i]`` lists the steps that depend on step ``i``, ascending.

    Raises ``ValueError`` for a dependency index outside the plan.
    """
    n = len(steps)
    out: list[list[int]] = [[] for _ in range(n)]
    for i, step in enumerate(steps):
        for d in step.depends_on:
            if not 0 <= d < n:
                raise ValueError(f"step {i} depends on step {d}, which does not exist ({n} steps)")
            if not out[d] or out[d][-1] != i:  # a repeated dependency is one edge
                out[d].append(i)
    return out


def build_dependency_chain(
    steps: Sequence[HasDependsOn], source_indices: Iterable[int]
) -> set[int]:
    """The sources plus every step that depends on one of them, directly or transitively.

    ``build_dependency_chain(steps, [1])`` for ``0 -> 1 -> 2 -> 3`` is ``{1, 2, 3}``: what
    must run again when step 1 is retried.  A breadth-first walk over the reverse adjacency,
    so each step and edge is visited once.
    """
    n = len(steps)
    sources = list(source_indices)
    bad = [s for s in sources if not 0 <= s < n]
    if bad:
        raise ValueError(f"source step(s) {bad} do not exist (the plan has {n} steps)")
    rev = dependants(steps)
    seen = bytearray(n)
    queue: list[int] = []
    for s in sources:
        if not seen[s]:
            seen[s] = 1
            queue.append(s)
    head = 0
    while head < len(queue):
        i = queue[head]
        head += 1
        for j in rev[i]:
            if not seen[j]:
                seen[j] = 1
                queue.append(j)
    return set(queue)


def find_cycle(steps: Sequence[HasDependsOn]) -> list[int] | None:
    """A dependency cycle in flow order, closed (``[2, 3, 2]``), or None for a DAG.

    The cycle starts at its smallest index, so the answer does not depend on where the
    search began.  Iterative depth-first search (deep plans do not hit the recursion limit).
    """
    rev = dependants(steps)
    n = len(steps)
    state = bytearray(n)  # 0 = unseen, 1 = on the current path, 2 = done
    for root in range(n):
        if state[root]:
            continue
        path: list[int] = [root]
        cursors: list[int] = [0]
        state[root] = 1
        while path:
            node = path[-1]
            nexts = rev[node]
            k = cursors[-1]
            if k == len(nexts):
                state[node] = 2
                path.pop()
                cursors.pop()
                continue
            cursors[-1] = k + 1
            child = nexts[k]
            if state[child] == 1:
                loop = path[path.index(child) :]
                start = loop.index(min(loop))
                loop = loop[start:] + loop[:start]
                return [*loop, loop[0]]
            if state[child] == 0:
                state[child] = 1
                path.append(child)
                cursors.append(0)
    return None
