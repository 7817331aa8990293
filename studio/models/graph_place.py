"""Horizontal coordinates for an ordered layered graph.

Each layer is solved exactly for "be as close as possible to where your neighbours are, keep
your order, keep the minimum spacing" (weighted isotonic regression, pool adjacent violators);
layers are revisited in alternating down/up sweeps, then with both neighbour layers at once.
Edges between dummies weigh most, so long edges run straight.
"""

from __future__ import annotations

import itertools

__all__ = ["assign_x", "place_layer"]

Segment = tuple[str, str, int]
_WEIGHT = {
    ("node", "node"): 50.0,
    ("dummy", "dummy"): 8.0,
    ("label", "dummy"): 8.0,
    ("dummy", "label"): 8.0,
}


def place_layer(desired: list[float], weights: list[float], seps: list[float]) -> list[float]:
    """Positions minimising sum w*(x-d)^2 subject to x[i+1] - x[i] >= seps[i]."""
    offsets = [0.0]
    for s in seps:
        offsets.append(offsets[-1] + s)
    blocks: list[list[float]] = []  # [sum_w, sum_wt, count]
    for d, w, o in zip(desired, weights, offsets, strict=True):
        blocks.append([w, w * (d - o), 1])
        while len(blocks) > 1 and blocks[-2][1] / blocks[-2][0] > blocks[-1][1] / blocks[-1][0]:
            w2, t2, c2 = blocks.pop()
            blocks[-1][0] += w2
            blocks[-1][1] += t2
            blocks[-1][2] += c2
    out: list[float] = []
    for sw, st, count in blocks:
        out += [st / sw] * int(count)
    return [y + o for y, o in zip(out, offsets, strict=True)]


def assign_x(
    levels: list[list[str]],
    segments: list[Segment],
    widths: dict[str, float],
    gaps: dict[str, float],
    kinds: dict[str, str],
    sweeps: int = 10,
) -> dict[str, float]:
    """Centre x of every item; ``gaps`` is each item's half of the space to its neighbours."""
    up: dict[str, list[tuple[str, float]]] = {k: [] for lv in levels for k in lv}
    down: dict[str, list[tuple[str, float]]] = {k: [] for lv in levels for k in lv}
    for a, b, _ in segments:
        w = _WEIGHT.get((kinds[a], kinds[b]), 1.0)
        down[a].append((b, w))
        up[b].append((a, w))
    seps = [
        [widths[a] / 2 + gaps[a] + gaps[b] + widths[b] / 2 for a, b in itertools.pairwise(lv)]
        for lv in levels
    ]
    x: dict[str, float] = {}
    for li, lv in enumerate(levels):
        total = sum(seps[li])
        pos = -total / 2
        for j, k in enumerate(lv):
            x[k] = pos
            if j < len(seps[li]):
                pos += seps[li][j]

    def relax(li: int, sources: list[dict[str, list[tuple[str, float]]]]) -> None:
        desired, weights = [], []
        for k in levels[li]:
            nb = [(x[n], w) for src in sources for n, w in src[k]]
            tw = sum(w for _, w in nb)
            if tw:
                desired.append(sum(v * w for v, w in nb) / tw)
                weights.append(tw)
            else:
                desired.append(x[k])
                weights.append(0.05)
        for k, v in zip(levels[li], place_layer(desired, weights, seps[li]), strict=True):
            x[k] = v

    n = len(levels)
    for sweep in range(sweeps):
        if sweep % 2 == 0:
            for li in range(1, n):
                relax(li, [up])
        else:
            for li in range(n - 2, -1, -1):
                relax(li, [down])
    for _ in range(4):
        for li in range(n):
            relax(li, [up, down])
    return x
