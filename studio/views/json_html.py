"""JSON text highlighted with pygments, as HTML for a ``QTextBrowser``.

Inline styles (``noclasses``) so the HTML needs no stylesheet.  Large documents are cut at
``max_chars`` (highlighting megabytes would stall the UI) with a note saying how much is left
out; the full value is always available through "Copy".
"""

from __future__ import annotations

import html
import json
from typing import Any

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import JsonLexer

from engine.serde import to_jsonable

__all__ = ["MAX_CHARS", "json_html", "json_text"]

MAX_CHARS = 200_000
_STYLES = {"light": "xcode", "dark": "github-dark"}
_LEXER = JsonLexer()


def json_text(value: Any, max_chars: int = MAX_CHARS) -> tuple[str, int]:
    """Pretty JSON of ``value`` and how many characters were left out (0 if none)."""
    text = json.dumps(to_jsonable(value), indent=2, ensure_ascii=False)
    if len(text) <= max_chars:
        return text, 0
    cut = text.rfind("\n", 0, max_chars)
    cut = cut if cut > 0 else max_chars
    return text[:cut], len(text) - cut


def json_html(
    value: Any, theme: str = "light", *, max_chars: int = MAX_CHARS, font: str = "monospace"
) -> str:
    """``value`` as highlighted, pretty-printed JSON in a ``<pre>`` block."""
    text, omitted = json_text(value, max_chars)
    style = _STYLES.get(theme, "xcode")
    formatter = HtmlFormatter(style=style, noclasses=True, nowrap=True)
    body = highlight(text, _LEXER, formatter)
    bg = formatter.style.background_color or "#ffffff"
    note = ""
    if omitted:
        note = (
            f'<p style="color:#9a6700">… {omitted:,} more characters not shown '
            f"(use Copy to get the whole value)</p>"
        )
    return (
        f'<pre style="font-family:{html.escape(font)}; font-size:12px; background:{bg}; '
        f'margin:0; padding:6px; white-space:pre-wrap">{body}</pre>{note}'
    )
