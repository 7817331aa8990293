"""Text from an agent, a model, a tool or a session file is shown as plain text, never as rich
text.

Qt guesses the format of a label's or a tooltip's text (``Qt.AutoText``): a string that starts
like HTML is rendered as HTML, so a todo whose text is ``<img src='/dev/zero'>`` makes the label
read ``/dev/zero`` as an image until memory runs out, and ``<a href=...>`` or ``<b>`` show fake
links and styled text.  So in the studio:

- every label is made with ``plain_label`` (``Qt.PlainText``), or with ``rich_label`` when its
  HTML is built by the studio itself, every piece of data in it passed through ``escape``;
- every tooltip that carries data (``setToolTip``, a model's ``ToolTipRole``) goes through
  ``plain_tip``: tooltips have no format setting, so text Qt would take for HTML is escaped.
"""

from __future__ import annotations

from html import escape as _escape

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as QtGuiNamespace
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel, QWidget

__all__ = ["escape", "plain_label", "plain_tip", "rich_label", "shows_literally"]


def escape(text: object) -> str:
    """``text`` made safe to put inside studio-built HTML."""
    return _escape(str(text), quote=True)


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """A label that shows ``text`` (and whatever is set later) exactly as written."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


def rich_label(html: str = "", parent: QWidget | None = None) -> QLabel:
    """A label rendering studio-built HTML: every piece of data in it must be ``escape``d."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setText(html)
    return label


def plain_tip(text: str) -> str:
    """A tooltip that shows ``text`` literally: unchanged when Qt would show it as plain text,
    else escaped HTML keeping its line breaks."""
    if not text or not QtGuiNamespace.mightBeRichText(text):
        return text
    return f"<p style='white-space:pre-wrap; margin:0'>{_escape(text, quote=False)}</p>"


def shows_literally(shown: str, text: str) -> bool:
    """Would Qt display ``shown`` (a tooltip or an auto-format label's text) as ``text``?
    (Parses it as HTML without laying it out, so no image is ever loaded.)"""
    if not QtGuiNamespace.mightBeRichText(shown):
        return shown == text
    doc = QTextDocument()
    doc.setHtml(shown)
    return doc.toPlainText() == text
