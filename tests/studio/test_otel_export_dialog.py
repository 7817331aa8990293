"""File > Export > OpenTelemetry…: the session to an OTLP/JSON file, to an OTLP/HTTP receiver,
and new runs streamed live; errors in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")

from tests.engine.otel.conftest import Receiver, receiver
from tests.studio.app_agents import click, run_until
from tests.studio.test_playground import _window

__all__ = ["receiver"]


def _dialog(qtbot: Any, qloop: Any, window: Any) -> Any:
    window.menus.export_otel_action.trigger()
    dialog = window.menus.otel_dialog
    qtbot.waitUntil(dialog.isVisible)
    return dialog


def test_export_the_session_to_an_otlp_json_file(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = _window(qtbot, qloop, tmp_path)
    dialog = _dialog(qtbot, qloop, window)
    assert dialog.to_file.isChecked() and dialog.file_edit.text().endswith(".otlp.json")
    target = tmp_path / "trace.json"
    dialog.file_edit.setText(str(target))
    click(qtbot, qloop, dialog.export_button)
    run_until(qloop, lambda: dialog.status.text().startswith(("Wrote", "Export failed")))
    assert dialog.status.text().startswith("Wrote ") and str(target) in dialog.status.text()
    body = json.loads(target.read_text(encoding="utf-8"))
    names = [
        s["name"] for rs in body["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]
    ]
    assert "chat scripted-coder" in names and "execute_tool create_file" in names
    assert any(n.startswith("invoke_agent") for n in names)


def test_export_to_an_endpoint_and_stream_new_runs(
    qtbot: Any, qloop: Any, tmp_path: Path, receiver: Receiver
) -> None:
    window = _window(qtbot, qloop, tmp_path)
    dialog = _dialog(qtbot, qloop, window)
    dialog.to_endpoint.setChecked(True)
    dialog.endpoint_edit.setText(receiver.url)
    dialog.live_box.setChecked(True)
    click(qtbot, qloop, dialog.export_button)
    run_until(
        qloop, lambda: dialog.status.text().startswith("Sent") or "failed" in dialog.status.text()
    )
    assert dialog.status.text().startswith("Sent ")
    assert "new runs stream to" in dialog.status.text()
    first = len(receiver.spans())
    runs = {s.trace_id for s in receiver.spans()}
    assert first > 0 and len(runs) == 1
    dialog.close()
    # a new run streams as it goes; closing the window sends what is left
    window.controller.restart()
    run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    window.close()
    assert len({s.trace_id for s in receiver.spans()}) == 2
    assert window.live_otel is None


def test_a_bad_endpoint_is_one_line(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = _window(qtbot, qloop, tmp_path)
    dialog = _dialog(qtbot, qloop, window)
    dialog.to_endpoint.setChecked(True)
    dialog.endpoint_edit.setText("ftp://nowhere")
    click(qtbot, qloop, dialog.export_button)
    run_until(
        qloop, lambda: dialog.export_button.isEnabled() and dialog.status.text() != "Exporting…"
    )
    text = dialog.status.text()
    assert "not an OTLP/HTTP endpoint" in text and "\n" not in text
    assert dialog.endpoint_edit.text() == "ftp://nowhere"
