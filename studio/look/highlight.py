"""JSON highlighted by pygments, as HTML for Qt rich text (QTextBrowser, QTextDocument).

Inline styles only (``noclasses``) and no background, so the text sits on the widget's own
palette; ``dark`` picks a style readable on dark panels.  Big payloads stay cheap: only the
first ``limit`` characters are highlighted, the rest is escaped plain text.

    html = json_html({"tool": "create_file", "args": {"path": "login.tsx"}}, dark=False)
"""

from __future__ import annotations

import html
import json
from functools import cache
from typing import Any

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import JsonLexer

__all__ = ["DARK_STYLE", "LIGHT_STYLE", "dumps", "highlight_json", "json_html"]

LIGHT_STYLE = "xcode"
DARK_STYLE = "one-dark"
DEFAULT_LIMIT = 40_000
"""Characters highlighted; a longer text's tail is shown unhighlighted."""


def dumps(value: Any, indent: int | None = 2) -> str:
    """Pretty JSON (non-ASCII kept, anything unknown rendered with ``str``)."""
    return json.dumps(value, indent=indent, ensure_ascii=False, default=str)


@cache
def _formatter(dark: bool) -> HtmlFormatter:
    return HtmlFormatter(style=DARK_STYLE if dark else LIGHT_STYLE, noclasses=True, nowrap=True)


@cache
def _lexer() -> JsonLexer:
    return JsonLexer()


def highlight_json(text: str, *, dark: bool = False, limit: int = DEFAULT_LIMIT) -> str:
    """``text`` (JSON) as HTML spans, without a wrapping element."""
    head, tail = text[:limit], text[limit:]
    out = highlight(head, _lexer(), _formatter(dark))
    if out.endswith("\n") and not head.endswith("\n"):
        out = out[:-1]
    if tail:
        out += html.escape(tail)
    return out


def json_html(
    value: Any,
    *,
    dark: bool = False,
    limit: int = DEFAULT_LIMIT,
    font: str = "monospace",
    size_pt: float | None = None,
) -> str:
    """A ``<pre>`` block of ``value`` as highlighted JSON (``value`` may already be JSON text)."""
    text = value if isinstance(value, str) else dumps(value)
    size = f" font-size: {size_pt}pt;" if size_pt else ""
    note = ""
    if len(text) > limit:
        note = (
            f'<p style="margin: 4px 0 0 0; color: gray;">{len(text):,} characters; '
            f"the first {limit:,} are highlighted.</p>"
        )
    return (
        f'<pre style="margin: 0; font-family: {font};{size} white-space: pre-wrap;">'
        f"{highlight_json(text, dark=dark, limit=limit)}</pre>{note}"
    )
