"""OpenTelemetry export of runs (the ``otel`` extra; never imported at start-up).

``session_spans(path)`` reads a recorded session's runs as ``SpanData`` (GenAI semantic
conventions, ``engine.otel.spans``); ``engine.otel.sdk`` sends them to an OTLP/HTTP endpoint or
writes OTLP/JSON; ``OtelStream`` exports a live run's spans as they close.
"""

from __future__ import annotations

from engine.otel.live import OtelStream
from engine.otel.spans import SpanBuilder, SpanData, spans_from_events

__all__ = ["OtelStream", "SpanBuilder", "SpanData", "session_spans", "spans_from_events"]


def session_spans(
    path: str, run_id: str | None = None, skipped: list[str] | None = None
) -> list[SpanData]:
    """Every span of the session's runs (or of ``run_id``), runs in recorded order."""
    from engine.recording import Session

    out: list[SpanData] = []
    with Session.open(path) as session:
        runs = [session.run(run_id)] if run_id else session.runs()
        for run in runs:
            out.extend(spans_from_events(session.iter_events(run.run_id, skipped=skipped)))
    return out
