"""The State dock's JSON tab: highlighted, and cut (with a note) when the state is huge."""

from __future__ import annotations

from engine.message_log import MessageList
from engine.messages import HumanMessage
from studio.docks.state.json_html import json_html, json_text


def test_small_values_are_highlighted_whole() -> None:
    html = json_html({"todos": [{"content": "login", "status": "pending"}]})
    assert "<pre" in html and "login" in html and "pending" in html
    assert "<span" in html  # pygments coloured it
    assert "not shown" not in html


def test_huge_values_are_cut_at_a_line_with_a_note() -> None:
    msgs = MessageList([HumanMessage("x" * 200, id=f"m{i}") for i in range(5_000)])
    full, _ = json_text({"messages": msgs}, max_chars=10**9)
    text, omitted = json_text({"messages": msgs}, max_chars=50_000)
    assert (
        len(text) <= 50_000 and full.startswith(text) and full[len(text)] == "\n"
    )  # cut at a line
    assert omitted == len(full) - len(text) > 900_000
    html = json_html({"messages": msgs}, max_chars=50_000)
    assert f"… {omitted:,} more characters not shown" in html
