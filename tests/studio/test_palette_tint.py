"""Tints are worked out once per colour: delegates ask for the same few for every row painted."""

from __future__ import annotations

from studio.look.palette import colors, mix


def test_a_tint_is_remembered_and_stays_what_it_was() -> None:
    c = colors("light")
    panel = [int(c.panel[i : i + 2], 16) for i in (1, 3, 5)]
    expected = "#" + "".join(
        f"{round(x * 0.16 + y * 0.84):02x}" for x, y in zip((0x33, 0x66, 0xCC), panel, strict=True)
    )
    first = c.tint("#3366cc", 0.16)
    assert first == expected
    hits = mix.cache_info().hits
    assert c.tint("#3366cc", 0.16) == first
    assert mix.cache_info().hits == hits + 1
