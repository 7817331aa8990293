"""PIIMiddleware and its detectors/strategies: what is found, how it is rewritten, the events."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from engine.agents import create_agent
from engine.events import EventBase
from engine.graph.runtime import Runtime
from engine.messages import AIMessage, HumanMessage, ToolMessage
from engine.middleware import (
    PIIDetectionError,
    PIIMatch,
    PIIMiddleware,
    detect_credit_card,
    detect_email,
    detect_ip,
    detect_mac_address,
    detect_url,
)
from engine.middleware.redaction import apply_strategy, luhn_valid, mask_value
from engine.models import ScriptedChatModel
from tests.engine.middleware.helpers import actions, captured_events

VISA = "4111 1111 1111 1111"  # a standard Luhn-valid test number


def values(found: list[PIIMatch]) -> list[str]:
    return [m["value"] for m in found]


# --- detectors ----------------------------------------------------------------------------


def test_email_detector_finds_addresses_with_spans() -> None:
    text = "write to ops.team+alerts@mail.example.org or bob@x.io"
    found = detect_email(text)
    assert values(found) == ["ops.team+alerts@mail.example.org", "bob@x.io"]
    assert all(text[m["start"] : m["end"]] == m["value"] for m in found)
    assert detect_email("no at-sign here, nor user@localhost") == []


def test_credit_card_detector_requires_luhn() -> None:
    assert values(detect_credit_card(f"card {VISA} ok")) == [VISA]
    assert values(detect_credit_card("4111-1111-1111-1111")) == ["4111-1111-1111-1111"]
    assert detect_credit_card("4111 1111 1111 1112") == []  # checksum off by one
    assert luhn_valid("79927398713") is False  # valid checksum but too short for a card


def test_ip_detector_validates_octets() -> None:
    assert values(detect_ip("hosts 10.0.0.7 and 172.16.254.1")) == ["10.0.0.7", "172.16.254.1"]
    assert detect_ip("not an address: 300.1.1.1") == []


def test_mac_and_url_detectors() -> None:
    assert values(detect_mac_address("nic AA:bb:CC:00:11:22 up")) == ["AA:bb:CC:00:11:22"]
    assert detect_mac_address("AA:BB:CC:00:11") == []
    text = "see https://docs.example.com/a?b=1, www.example.org and example.net/path; example.com"
    assert values(detect_url(text)) == [
        "https://docs.example.com/a?b=1,",
        "www.example.org",
        "example.net/path;",
    ]


# --- strategies ---------------------------------------------------------------------------


def test_strategies_rewrite_every_match() -> None:
    text = "a@b.com then c@d.org"
    found = detect_email(text)
    assert apply_strategy(text, found, "redact") == "[REDACTED_EMAIL] then [REDACTED_EMAIL]"
    assert apply_strategy(text, found, "mask") == "a@****.com then c@****.org"
    hashed = apply_strategy(text, found, "hash")
    assert hashed.startswith("<email_hash:") and "a@b.com" not in hashed
    assert hashed == apply_strategy(text, found, "hash")  # deterministic
    with pytest.raises(PIIDetectionError) as err:
        apply_strategy(text, found, "block")
    assert err.value.pii_type == "email" and len(err.value.matches) == 2


def test_mask_shapes() -> None:
    assert mask_value("credit_card", VISA) == "**** **** **** 1111"
    assert mask_value("credit_card", "4111111111111111") == "************1111"
    assert mask_value("ip", "192.168.0.42") == "*.*.*.42"
    assert mask_value("mac_address", "00-1A-2B-3C-4D-5E") == "**-**-**-**-**-5E"
    assert mask_value("url", "https://x.io") == "[MASKED_URL]"
    assert mask_value("employee_id", "EMP-778812") == "****8812"
    assert mask_value("employee_id", "E12") == "****"


def test_unknown_type_needs_a_detector() -> None:
    with pytest.raises(ValueError, match="Unknown PII type: passport"):
        PIIMiddleware("passport")
    mw = PIIMiddleware("passport", detector=r"\bP\d{7}\b", strategy="redact")
    out = mw.before_model({"messages": [HumanMessage(content="id P1234567")]}, Runtime())
    assert out is not None and out["messages"][0].content == "id [REDACTED_PASSPORT]"


def test_callable_detector_may_use_text_key() -> None:
    def tickets(text: str) -> list[Any]:
        i = text.find("TICKET-")
        return [] if i < 0 else [{"text": text[i : i + 11], "start": i, "end": i + 11}]

    mw = PIIMiddleware("ticket", detector=tickets, strategy="mask")
    out = mw.before_model({"messages": [HumanMessage(content="see TICKET-4242 now")]}, Runtime())
    assert out is not None and out["messages"][0].content == "see ****4242 now"


# --- the middleware -----------------------------------------------------------------------


def test_input_redaction_keeps_message_identity_and_reports_spans() -> None:
    msg = HumanMessage(content="mail me: zoe@corp.example", id="h1", name="zoe")
    mw = PIIMiddleware("email")
    with captured_events() as events:
        out = mw.before_model({"messages": [msg]}, Runtime())
    assert out is not None
    new = out["messages"][0]
    assert (new.id, new.name, new.content) == ("h1", "zoe", "mail me: [REDACTED_EMAIL]")
    (ev,) = actions(events, "pii_redacted")
    assert ev.middleware == "PIIMiddleware[email]"
    assert ev.detail["where"] == "input" and ev.detail["spans"] == [[9, 25]]
    assert "zoe@corp.example" not in json.dumps(ev.model_dump(mode="json"))


def test_only_latest_user_message_and_recent_tool_results_are_scanned() -> None:
    state = {
        "messages": [
            HumanMessage(content="old: a@a.io", id="h0"),
            AIMessage(content="", tool_calls=[{"name": "t", "args": {}, "id": "c0"}], id="a0"),
            ToolMessage(content="old tool b@b.io", tool_call_id="c0", id="t0"),
            HumanMessage(content="new: c@c.io", id="h1"),
            AIMessage(content="", tool_calls=[{"name": "t", "args": {}, "id": "c1"}], id="a1"),
            ToolMessage(
                content=[{"type": "text", "text": "found d@d.io"}, {"type": "image"}],
                tool_call_id="c1",
                id="t1",
            ),
        ]
    }
    mw = PIIMiddleware("email", apply_to_tool_results=True)
    out = mw.before_model(state, Runtime())
    assert out is not None
    texts = [m.content for m in out["messages"]]
    assert texts[0] == "old: a@a.io" and texts[2] == "old tool b@b.io"
    assert texts[3] == "new: [REDACTED_EMAIL]"
    assert texts[5] == [{"type": "text", "text": "found [REDACTED_EMAIL]"}, {"type": "image"}]


def test_output_block_emits_event_then_raises() -> None:
    mw = PIIMiddleware("ip", strategy="block", apply_to_input=False, apply_to_output=True)
    state = {"messages": [HumanMessage(content="hi"), AIMessage(content="at 10.1.2.3")]}
    with captured_events() as events, pytest.raises(PIIDetectionError):
        mw.after_model(state, Runtime())
    (ev,) = actions(events, "pii_blocked")
    assert ev.detail["where"] == "output" and ev.detail["count"] == 1
    assert mw.before_model(state, Runtime()) is None  # input scanning is off


def test_async_hooks_match_sync() -> None:
    mw = PIIMiddleware("url", strategy="mask", apply_to_output=True)
    state = {"messages": [HumanMessage(content="see https://a.example/x"), AIMessage(content="ok")]}
    out = asyncio.run(mw.abefore_model(state, Runtime()))
    assert out is not None and out["messages"][0].content == "see [MASKED_URL]"
    assert asyncio.run(mw.aafter_model(state, Runtime())) is None


def test_in_an_agent_stacked_instances_each_act() -> None:
    model = ScriptedChatModel(["reply to 8.8.8.8 sent"], name="m")
    agent = create_agent(
        model,
        middleware=[
            PIIMiddleware("email"),
            PIIMiddleware("ip", strategy="hash", apply_to_input=False, apply_to_output=True),
        ],
    )
    events: list[EventBase] = []
    with agent.subscribe(events.append):
        result = agent.invoke({"messages": [HumanMessage(content="I am kim@home.example")]})
    human, ai = result["messages"]
    assert human.content == "I am [REDACTED_EMAIL]"
    assert ai.content.startswith("reply to <ip_hash:") and "8.8.8.8" not in ai.content
    assert [e.middleware for e in actions(events, "pii_redacted")] == [
        "PIIMiddleware[email]",
        "PIIMiddleware[ip]",
    ]


def test_unknown_strategy_fails_when_used() -> None:
    mw = PIIMiddleware("email", strategy="shred")  # type: ignore[arg-type]
    assert mw.before_model({"messages": [HumanMessage(content="clean")]}, Runtime()) is None
    with pytest.raises(ValueError, match="Unknown redaction strategy: shred"):
        mw.before_model({"messages": [HumanMessage(content="x@y.io")]}, Runtime())
