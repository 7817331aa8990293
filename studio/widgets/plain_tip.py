"""Tooltips that are always plain text.

Qt shows a tooltip as rich text when it *looks* like HTML, so a tool error or a model name
holding ``<img src=...>`` would be rendered.  ``plain_tip(text)`` escapes the text and keeps its
line breaks, so it reads exactly as written.
"""

from __future__ import annotations

import html

__all__ = ["plain_tip"]


def plain_tip(text: str) -> str:
    if not text:
        return ""
    return f"<p style='white-space:pre-wrap; margin:0'>{html.escape(text, quote=False)}</p>"
