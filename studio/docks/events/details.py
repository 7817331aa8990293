"""The event log's details pane: the selected row's events as highlighted JSON.

A span row shows its opening and closing events (``#12 attempt.started``, ``#15
attempt.finished``); a model call that streamed shows the streamed text and its token count
instead of thousands of token events.  Rendering is pygments HTML in a QTextBrowser, capped by
``studio.look.highlight`` so a huge payload stays cheap.
"""

from __future__ import annotations

import html

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QTextBrowser, QWidget

from engine.events import EventBase
from studio.look.highlight import json_html
from studio.look.tones import tones_for
from studio.models.event_row import Row
from studio.models.event_summary import duration_text

__all__ = ["EventDetails", "event_payload"]


_ENVELOPE = tuple(EventBase.model_fields)


def event_payload(ev: EventBase) -> dict[str, object]:
    """The event as JSON data: ``kind``, then its own fields, then the envelope
    (``run_id``, ``seq``, span ids...).  Events built with ``model_construct`` may hold plain
    dicts where models are declared; they dump all the same."""
    data = ev.model_dump(mode="json", warnings=False)
    own = {k: data[k] for k in type(ev).model_fields if k not in _ENVELOPE and k in data}
    envelope = {k: data[k] for k in _ENVELOPE if k in data and k != "kind"}
    return {"kind": data.get("kind"), **own, **envelope}


class EventDetails(QTextBrowser):
    PLACEHOLDER = "Select an event to see its payload."

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setReadOnly(True)
        self.setPlaceholderText(self.PLACEHOLDER)
        self.row: Row | None = None
        self._offset = 0.0

    def show_row(self, row: Row | None, offset_s: float = 0.0) -> None:
        self.row = row
        self._offset = offset_s
        self.refresh()

    def show_note(self, text: str) -> None:
        """Plain text in place of a payload (a row that is not an event)."""
        self.row = None
        self.setPlainText(text)

    def refresh(self) -> None:
        row = self.row
        if row is None:
            self.clear()
            return
        self.setHtml(self.render_html(row, self._offset))

    def render_html(self, row: Row, offset_s: float = 0.0) -> str:
        tones = tones_for(self.palette())
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
        muted = tones.muted.name()
        title_color = tones.failed.name() if row.failed else tones.text.name()
        parts = [
            f'<p style="margin: 0 0 6px 0; font-weight: 600; color: {title_color};">'
            f"{html.escape(row.summary())}</p>"
        ]
        bits = [f"node {row.node}" if row.node else "", row.middleware or ""]
        bits.append(f"at +{offset_s:.3f} s into the run")
        took = duration_text(row.duration_ms()) if row.is_span and not row.is_open else ""
        if took:
            paused = f" (+{duration_text(row.paused_ms)} paused)" if row.paused_ms >= 1.0 else ""
            bits.append(f"took {took}{paused}")
        parts.append(
            f'<p style="margin: 0 0 6px 0; color: {muted};">'
            f"{html.escape(' · '.join(b for b in bits if b))}</p>"
        )
        for ev in row.events:
            parts.append(
                f'<p style="margin: 8px 0 2px 0; color: {muted};">'
                f"<b>#{ev.seq}</b> {html.escape(ev.kind)}</p>"
            )
            parts.append(json_html(event_payload(ev), dark=tones.dark, font=mono))
        if row.tokens:
            parts.append(
                f'<p style="margin: 8px 0 2px 0; color: {muted};">'
                f"<b>{row.tokens}</b> model.token events, streamed text:</p>"
            )
            parts.append(
                f'<pre style="margin: 0; font-family: {mono}; white-space: pre-wrap;">'
                f"{html.escape(row.streamed_text[:20000])}</pre>"
            )
        return "".join(parts)
