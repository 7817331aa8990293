"""A checkpoint's values as highlighted JSON for the State dock's JSON tab.

Highlighting is the studio's shared one (``studio.look.highlight``: pygments, inline styles, one
style per theme).  A large state is cut at ``max_chars`` at a line break (putting megabytes
into a ``QTextBrowser`` would stall the UI), with a note saying how much was left out; "Copy"
always gives the whole value.
"""

from __future__ import annotations

import json
from typing import Any

from engine.serde import to_jsonable
from studio.look.highlight import highlight_json

__all__ = ["MAX_CHARS", "json_html", "json_text"]

MAX_CHARS = 200_000
HIGHLIGHTED = 60_000
"""Characters coloured by pygments; the rest of the shown text is plain (still readable)."""


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
    body = highlight_json(text, dark=theme == "dark", limit=HIGHLIGHTED)
    note = ""
    if omitted:
        note = (
            f'<p style="color:#9a6700">… {omitted:,} more characters not shown '
            f"(select a value and use Copy to get all of it)</p>"
        )
    return f'<pre style="font-family:{font}; font-size:12px; margin:0; padding:6px; white-space:pre-wrap">{body}</pre>{note}'
