"""File > Export > OpenTelemetry…: the session's runs as OpenTelemetry traces (GenAI
conventions, ``engine.otel``), to an OTLP/JSON file or an OTLP/HTTP endpoint; optionally every
new run streamed live to that endpoint.

Exporting reads the session file and sends on a worker thread (the window never waits); the
result or the reason it failed is one line under the buttons.  Headers for the endpoint come
from the environment only (``OTEL_EXPORTER_OTLP_HEADERS``) and are never shown.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from studio.dialogs.dialog_kit import dialog_style
from studio.look.palette import colors
from studio.models.hub import Hub
from studio.widgets.plain_text import plain_label

if TYPE_CHECKING:
    from studio.run.controller import RunController

__all__ = ["LiveOtel", "OtelExportDialog", "OtelHost", "export_session"]


def export_session(session: str, *, file: str | None = None, endpoint: str | None = None) -> str:
    """Export every run of ``session``; returns what was done, in one line (blocking: call it
    on a worker thread).  Raises ``RuntimeError`` with one line when it cannot."""
    try:
        from engine.otel import sdk
    except ImportError as exc:
        raise RuntimeError(str(exc).splitlines()[0]) from None
    from engine.otel import session_spans

    skipped: list[str] = []
    spans = session_spans(session, skipped=skipped)
    note = f" ({len(skipped)} unreadable event(s) skipped)" if skipped else ""
    if file:
        from engine.cli.output import output_file

        try:
            with output_file(Path(file)) as out:
                sdk.write_otlp_json(spans, out)
        except Exception as exc:
            raise RuntimeError(str(exc).splitlines()[0]) from None
        return f"Wrote {len(spans)} span(s) to {file}{note}"
    if not endpoint:
        raise RuntimeError("Give a file or an endpoint")
    try:
        sent = sdk.send_otlp(spans, endpoint)
    except sdk.OtelExportError as exc:
        raise RuntimeError(str(exc)) from None
    return f"Sent {sent} span(s) to {sdk.traces_url(endpoint)}{note}"


class LiveOtel:
    """Every event the studio receives, as spans streamed to an endpoint (``OtelStream``)."""

    def __init__(self, hub: Hub, endpoint: str) -> None:
        from engine.otel import OtelStream

        self.stream = OtelStream(endpoint)
        self.endpoint = self.stream.url
        self._unsubscribe = hub.subscribe("events", self._on_events)

    def _on_events(self, batch: list[Any]) -> None:
        for ev in batch:
            self.stream.on_event(ev)

    def close(self) -> None:
        self._unsubscribe()
        self.stream.close()


class OtelHost(Protocol):
    """What the dialog needs of the main window: the hub, the controller (its recorder), and
    the live export it keeps (``None``: none)."""

    live_otel: LiveOtel | None

    @property
    def hub(self) -> Hub: ...
    @property
    def controller(self) -> RunController: ...


class OtelExportDialog(QDialog):
    def __init__(self, window: OtelHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.w = window
        self.setWindowTitle("Export to OpenTelemetry")
        self.setObjectName("OtelExportDialog")
        c = colors(window.hub.theme)
        self.c = c
        self.setStyleSheet(dialog_style(c))
        self.task: asyncio.Future[str] | None = None

        intro = plain_label(
            "The session's runs as OpenTelemetry traces (GenAI semantic conventions), for "
            "Jaeger, Phoenix, Langfuse or any OTLP collector."
        )
        intro.setWordWrap(True)
        self.to_file = QRadioButton("OTLP/JSON file")
        self.to_endpoint = QRadioButton("OTLP/HTTP endpoint")
        group = QButtonGroup(self)
        group.addButton(self.to_file)
        group.addButton(self.to_endpoint)
        self.to_file.setChecked(True)
        self.file_edit = QLineEdit()
        self.file_edit.setPlaceholderText("trace.json")
        session = window.hub.session_path
        if session:
            self.file_edit.setText(str(Path(session).with_suffix(".otlp.json")))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        self.endpoint_edit = QLineEdit()
        self.endpoint_edit.setPlaceholderText("http://localhost:4318")
        headers = plain_label("Headers (an API key…) are read from OTEL_EXPORTER_OTLP_HEADERS.")
        headers.setStyleSheet(f"color: {c.muted};")
        self.live_box = QCheckBox("Also stream new runs live to this endpoint")
        live = getattr(window, "live_otel", None)
        self.live_box.setChecked(live is not None)
        if live is not None:
            self.endpoint_edit.setText(live.endpoint)
        grid = QGridLayout()
        grid.addWidget(self.to_file, 0, 0)
        grid.addWidget(self.file_edit, 0, 1)
        grid.addWidget(browse, 0, 2)
        grid.addWidget(self.to_endpoint, 1, 0)
        grid.addWidget(self.endpoint_edit, 1, 1, 1, 2)
        grid.addWidget(headers, 2, 1, 1, 2)
        grid.addWidget(self.live_box, 3, 1, 1, 2)
        grid.setColumnStretch(1, 1)

        self.status = plain_label()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.export_button = QPushButton("Export")
        self.export_button.setObjectName("exportButton")
        self.export_button.setDefault(True)
        self.export_button.clicked.connect(self.export)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.export_button)
        buttons.addWidget(close)
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addLayout(grid)
        lay.addWidget(self.status)
        lay.addLayout(buttons)
        self.resize(620, 260)
        self.to_file.toggled.connect(lambda _on: self._sync())
        self._sync()

    def _sync(self) -> None:
        file = self.to_file.isChecked()
        self.file_edit.setEnabled(file)
        self.endpoint_edit.setEnabled(not file)
        self.live_box.setEnabled(not file)

    def _browse(self) -> None:
        dialog = QFileDialog(self, "Export traces as")
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter("OTLP/JSON (*.json)")
        dialog.setDefaultSuffix("json")
        dialog.fileSelected.connect(self.file_edit.setText)
        self._file_dialog = dialog
        dialog.open()

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet(f"color: {self.c.danger};" if error else "")
        self.status.setText(text)

    def export(self) -> asyncio.Future[str] | None:
        """Export on a worker thread; the result (or why not) lands in the status line."""
        if self.task is not None and not self.task.done():
            return None
        session = self.w.hub.session_path
        file = self.file_edit.text().strip() if self.to_file.isChecked() else None
        endpoint = self.endpoint_edit.text().strip() if not file else None
        if self.to_file.isChecked() and not file:
            self._say("Name the file to write", error=True)
            return None
        if not file and not endpoint:
            self._say("Give the collector's URL, e.g. http://localhost:4318", error=True)
            return None
        if not self._set_live(endpoint if self.live_box.isChecked() else None):
            return None
        if not session:
            self._say("Nothing is recorded yet: run the agent or open a session", error=True)
            return None
        recorder = self.w.controller.recorder
        if recorder is not None:
            recorder.flush()  # the runs so far, on disk
        self._say("Exporting…")
        self.export_button.setEnabled(False)
        self.task = asyncio.ensure_future(
            asyncio.to_thread(export_session, str(session), file=file, endpoint=endpoint)
        )
        self.task.add_done_callback(self._done)
        return self.task

    def _set_live(self, endpoint: str | None) -> bool:
        old = self.w.live_otel
        if old is not None and (endpoint is None or old.endpoint != endpoint):
            old.close()
            self.w.live_otel = None
        if endpoint and self.w.live_otel is None:
            try:
                self.w.live_otel = LiveOtel(self.w.hub, endpoint)
            except ImportError as exc:
                self._say(str(exc).splitlines()[0], error=True)
                return False
            except Exception as exc:
                self._say(str(exc).splitlines()[0], error=True)
                return False
        return True

    def _done(self, task: asyncio.Future[str]) -> None:
        self.export_button.setEnabled(True)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            self._say(str(error).splitlines()[0] if str(error) else type(error).__name__, True)
            return
        text = task.result()
        live = self.w.live_otel
        if live is not None:
            text += f"; new runs stream to {live.endpoint}"
        self._say(text)
