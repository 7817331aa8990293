"""How one message of the transcript looks: an HTML card painted by ``MessageDelegate``.

A card has a header (role, tool name, status, "streaming…") and a body: the text, the tool
calls with their arguments as highlighted JSON, tool results (JSON highlighted, errors red).
Each role has its accent colour (a bar on the left): user blue, assistant violet, tool green
(red when the tool failed), system grey.  Documents are cached per entry version, width and
theme, so scrolling a long conversation lays nothing out twice.
"""

from __future__ import annotations

import html
import json
import weakref
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontDatabase, QPainter, QPainterPath, QPen, QTextDocument
from PySide6.QtWidgets import QAbstractItemView, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from engine.stop_reason import stop_note
from studio.look.highlight import json_html
from studio.look.tones import Tones, tones_for
from studio.models.transcript import Entry
from studio.qtmodels.transcript import TranscriptModel

__all__ = ["MessageDelegate", "card_html", "role_color"]

Index = QModelIndex | QPersistentModelIndex
MARGIN_X, MARGIN_Y, PAD, BAR = 8, 4, 10, 3
TEXT_LIMIT = 20_000


def role_color(entry: Entry, t: Tones) -> QColor:
    if entry.failed:
        return t.failed
    if entry.streaming:
        return t.running
    return {
        "human": t.running,
        "ai": t.families["hook"],
        "tool": t.ok,
        "system": t.muted,
    }.get(entry.role, t.muted)


def _fill(entry: Entry, t: Tones) -> QColor:
    if entry.failed:
        return t.failed_fill
    base = QColor(t.panel)
    tint = role_color(entry, t)
    amount = 0.10 if t.dark else 0.06
    if entry.role == "ai" and not entry.streaming:
        amount = 0.0
    return QColor.fromRgbF(
        base.redF() * (1 - amount) + tint.redF() * amount,
        base.greenF() * (1 - amount) + tint.greenF() * amount,
        base.blueF() * (1 - amount) + tint.blueF() * amount,
    )


def _json_or_none(text: str) -> Any:
    s = text.strip()
    if not s or s[0] not in "[{":
        return None
    try:
        return json.loads(s)
    except ValueError:
        return None


def _compact(value: Any, width: int = 72) -> Any:
    """Short JSON on one line (as text), anything longer pretty-printed by ``json_html``."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= width and "\\n" not in text else value


def _para(text: str, color: str | None = None) -> str:
    style = "margin: 0; white-space: pre-wrap;" + (f" color: {color};" if color else "")
    body = html.escape(text[:TEXT_LIMIT]) + ("…" if len(text) > TEXT_LIMIT else "")
    return f'<p style="{style}">{body}</p>'


def card_html(entry: Entry, t: Tones, mono: str) -> str:
    """The card's HTML (header and body) for Qt's rich text."""
    accent = role_color(entry, t).name()
    muted = t.muted.name()
    names = {"human": "User", "ai": "Assistant", "tool": "Tool", "system": "System"}
    title = html.escape(names.get(entry.role, str(entry.role).capitalize()))
    head = [f'<span style="color: {accent}; font-weight: 600;">{title}</span>']
    if entry.role == "tool":
        if entry.tool_name:
            head.append(
                f'<span style="font-family: {mono};"> {html.escape(entry.tool_name)}</span>'
            )
        ok = not entry.failed
        mark = "✓ success" if ok else "✗ error"
        head.append(f' <span style="color: {(t.ok if ok else t.failed).name()};">{mark}</span>')
    elif entry.role == "ai" and entry.message.get("name"):
        head.append(
            f' <span style="color: {muted};">{html.escape(str(entry.message["name"]))}</span>'
        )
    if entry.streaming:
        head.append(f' <span style="color: {t.running.name()};">● streaming…</span>')
    elif entry.pending:
        head.append(f' <span style="color: {muted};">(not in the state yet)</span>')
    parts = [f'<p style="margin: 0 0 4px 0;">{"".join(head)}</p>']

    text = entry.text
    if entry.role == "tool":
        data = _json_or_none(text)
        if data is not None:
            parts.append(json_html(data, dark=t.dark, font=mono))
        elif text:
            parts.append(_para(text, t.failed.name() if entry.failed else None))
    elif text:
        parts.append(_para(text))
    for call in entry.tool_calls:
        parts.append(_call_html(str(call.get("name")), call.get("id"), muted, mono))
        parts.append(json_html(_compact(call.get("args") or {}), dark=t.dark, font=mono))
    for call in entry.invalid_tool_calls:
        parts.append(_call_html(str(call.get("name")), call.get("id"), muted, mono))
        parts.append(_para(f"invalid arguments: {call.get('error')}", t.failed.name()))
        parts.append(_para(str(call.get("args") or "")))
    for chunk in entry.chunks.values():
        parts.append(_call_html(chunk.get("name") or "…", None, muted, mono))
        parts.append(
            f'<pre style="margin: 0; font-family: {mono}; white-space: pre-wrap;">'
            f"{html.escape(chunk.get('args') or '')}</pre>"
        )
    if not text and not entry.tool_calls and not entry.chunks and not entry.invalid_tool_calls:
        parts.append(_para("(empty)", muted))
    note = stop_note(entry.message) if entry.role == "ai" else None
    if note:  # the reply is not what the model meant to say whole
        parts.append(_para(f"⚠ {note}", t.failed.name()))
    return "".join(parts)


def _call_html(name: str, call_id: Any, muted: str, mono: str) -> str:
    ident = f' <span style="color: {muted};">{html.escape(str(call_id))}</span>' if call_id else ""
    return (
        f'<p style="margin: 6px 0 2px 0;">→ <span style="font-family: {mono}; font-weight: 600;">'
        f"{html.escape(name)}</span>{ident}</p>"
    )


class MessageDelegate(QStyledItemDelegate):
    """Paints entries as cards; sizes follow the view's width.

    A card's document and height are cached per entry (keyed weakly) and rebuilt only when the
    entry's ``version``, the width or the theme changes: a list view asks every row's size on
    each relayout, so ``sizeHint`` must be a lookup.
    """

    def __init__(self, view: QAbstractItemView) -> None:
        super().__init__(view)
        self.view = view
        self._docs: weakref.WeakKeyDictionary[Entry, tuple[int, float, QTextDocument, int]] = (
            weakref.WeakKeyDictionary()
        )
        self._mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
        self.tones = tones_for(view.palette())

    def clear_cache(self) -> None:
        """Forget every rendering (after a theme or font change)."""
        self.tones = tones_for(self.view.palette())
        self._docs.clear()

    def _entry(self, index: Index) -> Entry | None:
        model = index.model()
        if isinstance(model, TranscriptModel) and 0 <= index.row() < model.rowCount():
            return model.entry(index.row())
        return None

    def _text_width(self) -> float:
        return max(120.0, self.view.viewport().width() - 2 * MARGIN_X - 2 * PAD - BAR)

    def _cached(self, entry: Entry) -> tuple[int, float, QTextDocument, int]:
        width = self._text_width()
        cached = self._docs.get(entry)
        if cached is not None and cached[0] == entry.version:
            if cached[1] == width:
                return cached
            doc = cached[2]
        else:
            doc = QTextDocument()
            doc.setDocumentMargin(0)
            doc.setDefaultFont(self.view.font())
            doc.setHtml(card_html(entry, self.tones, self._mono))
        doc.setTextWidth(width)
        cached = (entry.version, width, doc, int(doc.size().height()) + 2 * (PAD + MARGIN_Y))
        self._docs[entry] = cached
        return cached

    def document(self, entry: Entry) -> QTextDocument:
        return self._cached(entry)[2]

    def height(self, entry: Entry) -> int:
        """The row height of ``entry``'s card at the current width."""
        return self._cached(entry)[3]

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        entry = self._entry(index)
        if entry is None:
            return super().sizeHint(option, index)
        return QSize(self.view.viewport().width(), self._cached(entry)[3])

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        entry = self._entry(index)
        if entry is None:
            return
        tones = self.tones
        rect = QRectF(option.rect).adjusted(MARGIN_X, MARGIN_Y, -MARGIN_X, -MARGIN_Y)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        path = QPainterPath()
        path.addRoundedRect(rect, 6, 6)
        painter.fillPath(path, _fill(entry, tones))
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        border = self.view.palette().highlight().color() if selected else tones.border
        pen = QPen(border, 1.4 if selected else 1.0)
        if entry.streaming:
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.drawPath(path)
        painter.setClipPath(path)
        painter.fillRect(
            QRectF(rect.left(), rect.top(), BAR, rect.height()), role_color(entry, tones)
        )
        painter.setClipping(False)
        doc = self.document(entry)
        painter.translate(rect.left() + BAR + PAD, rect.top() + PAD)
        doc.drawContents(painter)
        painter.restore()
