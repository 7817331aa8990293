"""A recorded session with retries, usage and tool calls, and an OTLP/HTTP receiver on loopback."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from engine.agents import create_agent
from engine.messages import AIMessage, HumanMessage
from engine.middleware.builtins import ModelRetryMiddleware
from engine.models import ScriptedChatModel
from engine.recording import SessionRecorder
from engine.tools import tool

USAGE = {"input_tokens": 31, "output_tokens": 7, "total_tokens": 38}


@tool
def lookup(city: str) -> str:
    """The weather in a city.

    Args:
        city: the city's name
    """
    return f"sunny in {city}"


def build_agent(checkpointer: Any = None) -> Any:
    model = ScriptedChatModel(
        [
            TimeoutError("model call timed out"),
            AIMessage(
                content="",
                tool_calls=[{"name": "lookup", "args": {"city": "Oslo"}, "id": "call_oslo"}],
                usage_metadata=USAGE,
                response_metadata={"finish_reason": "tool_calls"},
            ),
            AIMessage(content="It is sunny in Oslo.", usage_metadata=USAGE),
        ],
        name="gpt-4o-mini",
        temperature=0.2,
    )
    return create_agent(
        model,
        [lookup],
        system_prompt="You answer weather questions.",
        middleware=[ModelRetryMiddleware(max_retries=2, initial_delay=0.001, jitter=False)],
        checkpointer=checkpointer,
        name="weather",
    )


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    path = tmp_path / "weather.stepwise"
    recorder = SessionRecorder(path)
    graph = build_agent(recorder.checkpointer)
    recorder.attach(graph)
    asyncio.run(
        graph.ainvoke(
            {"messages": [HumanMessage(content="Weather in Oslo?")]},
            {"configurable": {"thread_id": "t1"}},
        )
    )
    recorder.close()
    return path


@dataclass
class Receiver:
    url: str
    requests: list[ExportTraceServiceRequest] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    got: threading.Event = field(default_factory=threading.Event)

    def spans(self) -> list[Any]:
        return [
            span
            for req in self.requests
            for rs in req.resource_spans
            for ss in rs.scope_spans
            for span in ss.spans
        ]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """An OTLP/HTTP (protobuf) collector on 127.0.0.1 that keeps what it is sent."""
    box: dict[str, Receiver] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            rec = box["r"]
            rec.requests.append(request)
            rec.headers.append({k.lower(): v for k, v in self.headers.items()})
            rec.paths.append(self.path)
            reply = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)
            rec.got.set()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    box["r"] = Receiver(f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield box["r"]
    finally:
        server.shutdown()
        server.server_close()
