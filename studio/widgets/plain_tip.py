"""Tooltips that are always plain text: ``plain_tip`` (defined with the rest of the studio's
plain-text rules in ``studio.widgets.plain_text``).

Qt shows a tooltip as rich text when it *looks* like HTML, so a tool error or a model name
holding ``<img src=...>`` would be rendered.  ``plain_tip(text)`` escapes such text and keeps
its line breaks, so it reads exactly as written.
"""

from __future__ import annotations

from studio.widgets.plain_text import plain_tip

__all__ = ["plain_tip"]
