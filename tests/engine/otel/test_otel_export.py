"""OpenTelemetry export of a recorded session: OTLP/JSON file and OTLP/HTTP to a receiver."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from engine.messages import HumanMessage
from engine.recording import Session
from tests.engine.cli.test_cli import run_cli
from tests.engine.otel.conftest import USAGE, Receiver, build_agent


def _attrs(span: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in span.get("attributes", []):
        value = kv["value"]
        ((kind, v),) = value.items()
        if kind == "arrayValue":
            v = [next(iter(x.values())) for x in v.get("values", [])]
        elif kind == "intValue":
            v = int(v)
        out[kv["key"]] = v
    return out


def _export_json(session: Path, tmp_path: Path) -> list[dict[str, Any]]:
    target = tmp_path / "trace.json"
    code, out, err = run_cli("export", str(session), "--format", "otlp-json", "-o", str(target))
    assert (code, out, err) == (0, "", "")
    lines = target.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1  # one OTLP/JSON request body per line: the collector's file format
    body = json.loads(lines[0])
    return [s for rs in body["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]


def test_otlp_json_is_one_trace_per_run_with_a_well_formed_span_tree(
    recorded: Path, tmp_path: Path
) -> None:
    spans = _export_json(recorded, tmp_path)
    with Session.open(recorded) as session:
        run = session.runs()[0]
        opened = session.count(
            run.run_id,
            kinds=[
                "run.started",
                "superstep.started",
                "node.started",
                "hook.started",
                "wrapper.started",
                "attempt.started",
                "model.request",
                "tool.started",
            ],
        )
    assert len(spans) == opened  # every span the events opened, once
    assert len({s["traceId"] for s in spans}) == 1
    assert all(len(s["traceId"]) == 32 and len(s["spanId"]) == 16 for s in spans)  # hex ids
    by_id = {s["spanId"]: s for s in spans}
    roots = [s for s in spans if not s.get("parentSpanId")]
    assert [r["name"] for r in roots] == ["invoke_agent weather"]
    root_attrs = _attrs(roots[0])
    assert root_attrs["gen_ai.operation.name"] == "invoke_agent"
    assert root_attrs["gen_ai.agent.name"] == "weather"
    assert root_attrs["gen_ai.conversation.id"] == "t1"
    assert roots[0]["status"] == {"code": 1}  # OK: the run is done
    for s in spans:
        start, end = int(s["startTimeUnixNano"]), int(s["endTimeUnixNano"])
        assert start <= end
        parent = s.get("parentSpanId")
        if parent:
            p = by_id[parent]  # every parent is in the trace
            assert int(p["startTimeUnixNano"]) <= start and end <= int(p["endTimeUnixNano"])
    # run > superstep > node > wrapper > attempt > (wrapper) > model call
    chat = [s for s in spans if s["name"] == "chat gpt-4o-mini"]
    assert len(chat) == 3
    chain = []
    cur: dict[str, Any] | None = chat[-1]
    while cur is not None:
        chain.append(cur["name"].split(" ")[0])
        cur = by_id.get(cur.get("parentSpanId", ""))
    assert chain[-3:] == ["node", "superstep", "invoke_agent"]
    assert "attempt" in chain


def test_model_and_tool_spans_carry_the_genai_attributes(recorded: Path, tmp_path: Path) -> None:
    spans = _export_json(recorded, tmp_path)
    chat = sorted(
        (s for s in spans if s["name"].startswith("chat ")), key=lambda s: s["startTimeUnixNano"]
    )
    failed, first, last = (_attrs(s) for s in chat)
    assert chat[0]["kind"] == 3  # CLIENT
    assert chat[0]["status"]["code"] == 2 and "TimeoutError" in chat[0]["status"]["message"]
    assert failed["error.type"] == "TimeoutError"
    for a in (first, last):
        assert a["gen_ai.operation.name"] == "chat"
        assert a["gen_ai.provider.name"] == "openai"
        assert a["gen_ai.request.model"] == "gpt-4o-mini"
        assert a["gen_ai.usage.input_tokens"] == USAGE["input_tokens"]
        assert a["gen_ai.usage.output_tokens"] == USAGE["output_tokens"]
    assert first["gen_ai.response.finish_reasons"] == ["tool_calls"]
    assert json.loads(first["gen_ai.system_instructions"]) == [
        {"type": "text", "content": "You answer weather questions."}
    ]
    assert json.loads(first["gen_ai.input.messages"]) == [
        {"role": "user", "parts": [{"type": "text", "content": "Weather in Oslo?"}]}
    ]
    out = json.loads(first["gen_ai.output.messages"])
    assert out[0]["role"] == "assistant"
    assert out[0]["parts"] == [
        {"type": "tool_call", "id": "call_oslo", "name": "lookup", "arguments": {"city": "Oslo"}}
    ]
    assert [t["name"] for t in json.loads(first["gen_ai.tool.definitions"])] == ["lookup"]
    assert json.loads(last["gen_ai.output.messages"])[0]["parts"] == [
        {"type": "text", "content": "It is sunny in Oslo."}
    ]
    (tool_span,) = [s for s in spans if s["name"] == "execute_tool lookup"]
    t = _attrs(tool_span)
    assert t["gen_ai.operation.name"] == "execute_tool"
    assert t["gen_ai.tool.name"] == "lookup"
    assert t["gen_ai.tool.call.id"] == "call_oslo"
    assert json.loads(t["gen_ai.tool.call.arguments"]) == {"city": "Oslo"}
    assert "sunny in Oslo" in t["gen_ai.tool.call.result"]
    # the retried attempt is visible: the first attempt failed and said it would retry
    attempts = [_attrs(s) for s in spans if s["name"].startswith("attempt ")]
    assert any(a.get("stepwise.will_retry") is True for a in attempts)
    # point events sit on their span: the routes of the model node
    nodes = [s for s in spans if s["name"] == "node model"]
    assert any(e["name"] == "route" for n in nodes for e in n.get("events", []))


def test_times_follow_the_recorded_events(recorded: Path, tmp_path: Path) -> None:
    spans = _export_json(recorded, tmp_path)
    with Session.open(recorded) as session:
        run = session.runs()[0]
        started = next(iter(session.iter_events(run.run_id, kinds=["run.started"])))
        tools = list(session.iter_events(run.run_id, kinds=["tool.started", "tool.finished"]))
    root = next(s for s in spans if not s.get("parentSpanId"))
    assert int(root["startTimeUnixNano"]) == int(started.ts * 1e9)
    (tool_span,) = [s for s in spans if s["name"] == "execute_tool lookup"]
    took = int(tool_span["endTimeUnixNano"]) - int(tool_span["startTimeUnixNano"])
    assert took == tools[1].mono_ns - tools[0].mono_ns


def test_export_to_an_otlp_http_receiver(
    recorded: Path, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=sekrit-123")
    code, out, err = run_cli(
        "export", str(recorded), "--format", "otlp", "--endpoint", receiver.url
    )
    assert (code, err) == (0, "")
    assert receiver.paths == ["/v1/traces"]
    assert receiver.headers[0]["x-api-key"] == "sekrit-123"
    assert receiver.headers[0]["content-type"] == "application/x-protobuf"
    assert "sekrit" not in out
    spans = receiver.spans()
    assert out.strip() == f"sent {len(spans)} span(s) to {receiver.url}/v1/traces"
    names = {s.name for s in spans}
    assert {"invoke_agent weather", "chat gpt-4o-mini", "execute_tool lookup"} <= names
    by_id = {s.span_id: s for s in spans}
    for s in spans:
        assert len(s.trace_id) == 16 and len(s.span_id) == 8
        if s.parent_span_id:
            assert s.parent_span_id in by_id
    chat = next(s for s in spans if s.name == "chat gpt-4o-mini" and s.status.code != 2)
    attrs = {kv.key: kv.value for kv in chat.attributes}
    assert attrs["gen_ai.request.model"].string_value == "gpt-4o-mini"
    assert attrs["gen_ai.usage.input_tokens"].int_value == USAGE["input_tokens"]
    resource = {
        kv.key: kv.value.string_value
        for kv in receiver.requests[0].resource_spans[0].resource.attributes
    }
    assert resource["service.name"] == "stepwise"


def test_export_errors_are_one_line(recorded: Path, tmp_path: Path) -> None:
    code, _, err = run_cli("export", str(recorded), "--format", "otlp")
    assert code == 2 and err.count("\n") == 1 and "--endpoint" in err
    code, _, err = run_cli(
        "export", str(recorded), "--format", "otlp", "--endpoint", "ftp://nowhere"
    )
    assert code == 2 and err.count("\n") == 1 and "not an OTLP/HTTP endpoint" in err
    code, _, err = run_cli(
        "export", str(recorded), "--format", "jsonl", "--endpoint", "http://127.0.0.1:1"
    )
    assert code == 2 and "--endpoint is for --format otlp" in err


def test_a_live_run_streams_its_spans_as_they_close(receiver: Receiver) -> None:
    from engine.otel import OtelStream

    graph = build_agent()
    stream = OtelStream(receiver.url, schedule_delay_ms=50)
    sub = graph.subscribe(stream.on_event)
    asyncio.run(
        graph.ainvoke(
            {"messages": [HumanMessage(content="Weather in Oslo?")]},
            {"configurable": {"thread_id": "live"}},
        )
    )
    sub.close()
    stream.close()
    spans = receiver.spans()
    assert stream.errors == 0 and stream.sent == len(spans)
    names = [s.name for s in spans]
    assert names.count("chat gpt-4o-mini") == 3 and "invoke_agent weather" in names
    assert not any(
        kv.key == "stepwise.unfinished" for s in spans for kv in s.attributes
    )  # the run ended: nothing was left open
