"""``SpanData`` through the OpenTelemetry SDK: to an OTLP endpoint (http/protobuf) or to an
OTLP/JSON file.  Needs the ``otel`` extra (``pip install 'stepwise[otel]'``); imported only
when something is exported.

- ``send_otlp(spans, endpoint)`` exports with the SDK's ``OTLPSpanExporter``.  Headers come
  from the environment only (``OTEL_EXPORTER_OTLP_HEADERS`` / ``..._TRACES_HEADERS``, read by
  the exporter itself); they are never printed.  A base URL (``http://host:4318``) gets the
  traces path ``/v1/traces``.
- ``otlp_json(spans)`` is the OTLP/JSON request body (``{"resourceSpans": [...]}``): the SDK's
  protobuf encoding in protobuf's JSON mapping, with trace and span ids as hex, as OTLP/JSON
  requires.  ``write_otlp_json`` writes it as one line (the collector's file format).
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from engine.otel.spans import SpanData

try:
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import Event, ReadableSpan
    from opentelemetry.sdk.trace.export import SpanExportResult
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope
    from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "OpenTelemetry export needs the otel extra: pip install 'stepwise[otel]' "
        f"({exc.name} is missing)"
    ) from exc

__all__ = [
    "OtelExportError",
    "otlp_json",
    "readable_spans",
    "send_otlp",
    "traces_url",
    "write_otlp_json",
]

_SCOPE = "stepwise"
_KINDS = {"internal": SpanKind.INTERNAL, "client": SpanKind.CLIENT}
_STATUS = {"unset": StatusCode.UNSET, "ok": StatusCode.OK, "error": StatusCode.ERROR}


class OtelExportError(RuntimeError):
    """An export that did not reach its destination (the message is one line)."""


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("stepwise")
    except Exception:
        return "0"


def readable_spans(spans: Sequence[SpanData], service: str = "stepwise") -> list[ReadableSpan]:
    """The SDK's spans for ``spans`` (ids, parents, times, attributes, events, status)."""
    resource = Resource.create({"service.name": service, "telemetry.sdk.name": "opentelemetry"})
    scope = InstrumentationScope(_SCOPE, _version())
    flags = TraceFlags(TraceFlags.SAMPLED)
    out: list[ReadableSpan] = []
    for s in spans:
        context = SpanContext(s.trace_id, s.span_id, is_remote=False, trace_flags=flags)
        parent = (
            None
            if s.parent_id is None
            else SpanContext(s.trace_id, s.parent_id, is_remote=False, trace_flags=flags)
        )
        out.append(
            ReadableSpan(
                name=s.name,
                context=context,
                parent=parent,
                resource=resource,
                attributes=dict(s.attributes),
                events=[Event(e.name, dict(e.attributes), e.time_ns) for e in s.events],
                kind=_KINDS[s.kind],
                instrumentation_scope=scope,
                status=Status(_STATUS[s.status], s.status_message),
                start_time=s.start_ns,
                end_time=s.end_ns,
            )
        )
    return out


def _hex_ids(node: Any) -> Any:
    """Protobuf's JSON mapping writes bytes as base64; OTLP/JSON wants trace and span ids as
    hex (``traceId``, ``spanId``, ``parentSpanId`` in spans, events' links)."""
    if isinstance(node, dict):
        for key, value in list(node.items()):
            if key in ("traceId", "spanId", "parentSpanId") and isinstance(value, str):
                node[key] = base64.b64decode(value).hex()
            else:
                _hex_ids(value)
    elif isinstance(node, list):
        for item in node:
            _hex_ids(item)
    return node


def otlp_json(spans: Sequence[SpanData], service: str = "stepwise") -> dict[str, Any]:
    """The OTLP/JSON body of an export request carrying ``spans``."""
    message = encode_spans(readable_spans(spans, service))
    data = MessageToDict(message, use_integers_for_enums=True)
    return _hex_ids(data)


def write_otlp_json(spans: Sequence[SpanData], out: Any, service: str = "stepwise") -> None:
    """Write the OTLP/JSON request body to the text stream ``out`` as one line."""
    out.write(json.dumps(otlp_json(spans, service), ensure_ascii=False, separators=(",", ":")))
    out.write("\n")


def traces_url(endpoint: str) -> str:
    """``http://host:4318`` -> ``http://host:4318/v1/traces``; a URL with a path is kept."""
    parts = urlsplit(endpoint.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise OtelExportError(
            f"not an OTLP/HTTP endpoint: {endpoint!r} (expected http://host:4318 or https://...)"
        )
    if parts.path in ("", "/"):
        parts = parts._replace(path="/v1/traces")
    return urlunsplit(parts)


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):
            self.messages.append(record.getMessage())


@contextlib.contextmanager
def _captured_exporter_logs() -> Iterator[_Capture]:
    """The exporter reports failures only in its log: keep them for our one-line error (and
    off stderr)."""
    logger = logging.getLogger("opentelemetry.exporter")
    handler = _Capture()
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def _reason(messages: list[str]) -> str:
    """One short line out of the exporter's log: the socket error when there is one (the
    urllib3 message around it is three lines of noise), else its first message."""
    import re

    from engine.redaction import scrub

    if not messages:
        return "the endpoint did not accept the spans"
    for text in messages:
        found = re.search(r"\[Errno -?\d+\][^\"')]*", text)
        if found:
            return scrub(f"cannot connect ({found.group(0).strip()})")
    first = messages[0].splitlines()[0] if messages[0] else "unknown error"
    return scrub(first)[:300]


def _register_header_secrets() -> None:
    """The header values the exporter will send (from the environment) are secrets: any
    message that quotes one is scrubbed."""
    import os
    from urllib.parse import unquote

    from engine.redaction import register_secret

    for name in ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"):
        for pair in os.environ.get(name, "").split(","):
            _key, sep, value = pair.partition("=")
            if sep and value.strip():
                register_secret(unquote(value.strip()))


def send_otlp(
    spans: Sequence[SpanData],
    endpoint: str,
    *,
    service: str = "stepwise",
    timeout_s: float = 10.0,
) -> int:
    """Export ``spans`` to an OTLP/HTTP (protobuf) endpoint; returns how many were sent."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    from engine.redaction import strip_url_credentials

    url = traces_url(endpoint)
    _register_header_secrets()
    exporter = OTLPSpanExporter(endpoint=url, timeout=timeout_s)
    try:
        with _captured_exporter_logs() as logs:
            result = exporter.export(readable_spans(spans, service))
    finally:
        exporter.shutdown()
    if result is not SpanExportResult.SUCCESS:
        reason = _reason(logs.messages)
        raise OtelExportError(f"export to {strip_url_credentials(url)} failed: {reason}")
    return len(spans)
