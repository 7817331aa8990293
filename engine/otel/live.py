"""``OtelStream``: a live run's spans to an OTLP/HTTP endpoint as they close.

    stream = OtelStream("http://localhost:4318")
    sub = graph.subscribe(stream.on_event)      # every run of this graph, live
    ...
    sub.close(); stream.close()                 # sends what is still queued

Building a span is cheap and happens on the run's loop thread; sending is the SDK's
``BatchSpanProcessor`` on its own thread, so a slow or unreachable collector never slows the
run (spans it cannot send are dropped by the SDK, and ``errors`` counts the failed batches).
"""

from __future__ import annotations

import threading
from typing import Any

from engine.events import EventBase
from engine.otel.spans import SpanBuilder, SpanData

__all__ = ["OtelStream"]


class OtelStream:
    def __init__(
        self,
        endpoint: str,
        *,
        service: str = "stepwise",
        exporter: Any = None,
        schedule_delay_ms: int = 500,
    ) -> None:
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExportResult

        from engine.otel import sdk

        self.url = sdk.traces_url(endpoint)
        self.service = service
        self.sent = 0
        self.errors = 0
        self._lock = threading.Lock()
        self._builder = SpanBuilder()
        self._sdk = sdk
        if exporter is None:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            sdk._register_header_secrets()
            exporter = OTLPSpanExporter(endpoint=self.url, timeout=10)
        inner = exporter
        stream = self

        class _Counting:
            """Counts what the wrapped exporter sent and failed to send."""

            def export(self, spans: Any) -> Any:
                result = inner.export(spans)
                with stream._lock:
                    if result is SpanExportResult.SUCCESS:
                        stream.sent += len(spans)
                    else:
                        stream.errors += 1
                return result

            def shutdown(self) -> None:
                inner.shutdown()

            def force_flush(self, timeout_millis: int = 30000) -> bool:
                return True

        self._processor = BatchSpanProcessor(
            _Counting(),  # type: ignore[arg-type]
            schedule_delay_millis=schedule_delay_ms,
        )

    def on_event(self, event: EventBase) -> None:
        """A bus callback: queue the spans ``event`` closes."""
        closed = self._builder.add(event)
        if closed:
            self._queue(closed)

    def _queue(self, spans: list[SpanData]) -> None:
        for span in self._sdk.readable_spans(spans, self.service):
            self._processor.on_end(span)

    def flush(self, timeout_ms: int = 10_000) -> bool:
        return self._processor.force_flush(timeout_ms)

    def close(self) -> None:
        """Send the spans still open (marked unfinished) and everything queued, then stop."""
        rest = self._builder.finish()
        if rest:
            self._queue(rest)
        self._processor.shutdown()
