"""Crossing reduction for a proper layered graph: barycenter sweeps plus adjacent swaps."""

from __future__ import annotations

__all__ = ["count_crossings", "order_layers"]

Segment = tuple[str, str, int]
"""(item in layer L, item in layer L+1, edge index)."""


def count_crossings(levels: list[list[str]], segments: list[Segment]) -> int:
    pos = {k: i for lv in levels for i, k in enumerate(lv)}
    layer_of = {k: li for li, lv in enumerate(levels) for k in lv}
    by_layer: dict[int, list[tuple[int, int]]] = {}
    for a, b, _ in segments:
        by_layer.setdefault(layer_of[a], []).append((pos[a], pos[b]))
    total = 0
    for pairs in by_layer.values():
        for i, (a1, b1) in enumerate(pairs):
            for a2, b2 in pairs[i + 1 :]:
                if (a1 - a2) * (b1 - b2) < 0:
                    total += 1
    return total


def order_layers(
    starts: list[list[list[str]]], segments: list[Segment], sweeps: int = 8
) -> list[list[str]]:
    """Reduce crossings from each initial ordering in ``starts``; the best wins (first on ties)."""
    results = [_reduce(levels, segments, sweeps) for levels in starts]
    return min(results, key=lambda r: r[1])[0]


def _reduce(
    levels: list[list[str]], segments: list[Segment], sweeps: int
) -> tuple[list[list[str]], int]:
    up: dict[str, list[str]] = {k: [] for lv in levels for k in lv}
    down: dict[str, list[str]] = {k: [] for lv in levels for k in lv}
    for a, b, _ in segments:
        down[a].append(b)
        up[b].append(a)
    current = [list(lv) for lv in levels]
    best = [list(lv) for lv in current]
    best_count = count_crossings(best, segments)
    for sweep in range(sweeps):
        going_down = sweep % 2 == 0
        indices = range(1, len(current)) if going_down else range(len(current) - 2, -1, -1)
        for li in indices:
            ref = current[li - 1] if going_down else current[li + 1]
            nbrs = up if going_down else down
            current[li] = _by_barycenter(current[li], ref, nbrs)
        _transpose(current, up, down)
        count = count_crossings(current, segments)
        if count < best_count:
            best, best_count = [list(lv) for lv in current], count
        if best_count == 0:
            break
    return best, best_count


def _by_barycenter(layer: list[str], ref: list[str], nbrs: dict[str, list[str]]) -> list[str]:
    pos = {k: i for i, k in enumerate(ref)}
    keyed = []
    for i, k in enumerate(layer):
        ps = [pos[n] for n in nbrs[k] if n in pos]
        keyed.append((sum(ps) / len(ps) if ps else float(i), i, k))
    keyed.sort()
    return [k for _, _, k in keyed]


def _transpose(
    levels: list[list[str]], up: dict[str, list[str]], down: dict[str, list[str]]
) -> None:
    """Swap neighbours in a layer while that removes crossings (bounded passes)."""
    for _ in range(4):
        improved = False
        for li, layer in enumerate(levels):
            above = {k: i for i, k in enumerate(levels[li - 1])} if li else {}
            below = {k: i for i, k in enumerate(levels[li + 1])} if li + 1 < len(levels) else {}
            for j in range(len(layer) - 1):
                u, v = layer[j], layer[j + 1]
                keep = _pair(u, v, up, above) + _pair(u, v, down, below)
                swap = _pair(v, u, up, above) + _pair(v, u, down, below)
                if swap < keep:
                    layer[j], layer[j + 1] = v, u
                    improved = True
        if not improved:
            return


def _pair(left: str, right: str, nbrs: dict[str, list[str]], pos: dict[str, int]) -> int:
    """Crossings between the edges of ``left`` and ``right`` when ``left`` is placed first."""
    return sum(
        1 for a in nbrs[left] for b in nbrs[right] if a in pos and b in pos and pos[a] > pos[b]
    )
