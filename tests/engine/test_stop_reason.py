"""``stop_note``: a reply the model did not finish (its token limit, the provider's filter),
under the names each provider gives the reason; none for a reply that ended as meant."""

from __future__ import annotations

import pytest

from engine.messages import AIMessage
from engine.stop_reason import stop_note, stop_reason


@pytest.mark.parametrize(
    ("meta", "note"),
    [
        ({"finish_reason": "length"}, "cut off at its token limit (finish_reason: length)"),
        ({"stop_reason": "max_tokens"}, "cut off at its token limit (stop_reason: max_tokens)"),
        ({"finish_reason": "MAX_TOKENS"}, "cut off at its token limit (finish_reason: MAX_TOKENS)"),
        ({"done_reason": "length"}, "cut off at its token limit (done_reason: length)"),
        (
            {"finish_reason": "content_filter"},
            "stopped by the provider's filter (finish_reason: content_filter)",
        ),
        ({"stop_reason": "refusal"}, "stopped by the provider's filter (stop_reason: refusal)"),
        ({"finish_reason": "SAFETY"}, "stopped by the provider's filter (finish_reason: SAFETY)"),
        ({"finish_reason": "stop"}, None),
        ({"finish_reason": "tool_calls"}, None),
        ({"stop_reason": "end_turn"}, None),
        ({"model_name": "gpt-4o"}, None),
        ({}, None),
    ],
)
def test_the_reason_a_reply_ended_early_under_each_providers_name(
    meta: dict[str, str], note: str | None
) -> None:
    assert stop_note({"type": "ai", "content": "x", "response_metadata": meta}) == note
    assert stop_note(AIMessage("x", response_metadata=meta)) == note  # the message itself


def test_a_reply_without_metadata_has_no_reason() -> None:
    assert stop_reason({"type": "ai", "content": "x"}) is None
    assert stop_reason(None) is None and stop_note("text") is None
    assert stop_reason({"response_metadata": {"finish_reason": 3}}) is None
    assert stop_reason({"response_metadata": {"finish_reason": "length"}}) == (
        "finish_reason",
        "length",
    )
