"""``engine.usage``: every provider's way of reporting tokens, read into one shape."""

from __future__ import annotations

from engine.usage import TokenUsage, reported_model, usage_dict


def test_langchain_usage_metadata_is_kept_as_it_is() -> None:
    meta = {
        "input_tokens": 100,
        "output_tokens": 20,
        "total_tokens": 120,
        "input_token_details": {"cache_read": 60},
        "output_token_details": {"reasoning": 5},
    }
    assert usage_dict(meta) == meta
    assert TokenUsage.of(meta) == TokenUsage(100, 20, 60, 0, 5)


def test_openai_token_usage_in_response_metadata() -> None:
    found = usage_dict(
        None,
        {
            "model_name": "gpt-4o-2024-08-06",
            "token_usage": {
                "prompt_tokens": 50,
                "completion_tokens": 7,
                "prompt_tokens_details": {"cached_tokens": 32},
                "completion_tokens_details": {"reasoning_tokens": 2},
            },
        },
    )
    assert TokenUsage.of(found) == TokenUsage(50, 7, 32, 0, 2)


def test_anthropic_usage_counts_the_cached_parts_as_input() -> None:
    found = usage_dict(
        {},
        {
            "usage": {
                "input_tokens": 10,
                "output_tokens": 4,
                "cache_read_input_tokens": 200,
                "cache_creation_input_tokens": 30,
            }
        },
    )
    assert TokenUsage.of(found) == TokenUsage(240, 4, 200, 30, 0)


def test_google_usage_metadata_counts_thoughts_as_output() -> None:
    found = usage_dict(
        None,
        {
            "usage_metadata": {
                "prompt_token_count": 11,
                "candidates_token_count": 3,
                "thoughts_token_count": 6,
                "cached_content_token_count": 4,
            }
        },
    )
    assert TokenUsage.of(found) == TokenUsage(11, 9, 4, 0, 6)


def test_an_llm_output_is_the_last_resort_and_nothing_is_invented() -> None:
    assert usage_dict(None, {}, {"token_usage": {"prompt_tokens": 3, "completion_tokens": 1}}) == {
        "input_tokens": 3,
        "output_tokens": 1,
        "total_tokens": 4,
    }
    assert usage_dict(None, {"finish_reason": "stop"}, None) is None
    assert TokenUsage.of(None) is None
    assert TokenUsage.of({"input_tokens": "many"}) == TokenUsage()


def test_sums_and_the_model_the_provider_named() -> None:
    assert TokenUsage(1, 2, 0, 0, 0) + TokenUsage(3, 4, 1, 1, 1) == TokenUsage(4, 6, 1, 1, 1)
    assert reported_model({"model_name": "gpt-4o-mini-2024-07-18"}) == "gpt-4o-mini-2024-07-18"
    assert reported_model({"model": "claude-sonnet-4-5-20250929"}) == "claude-sonnet-4-5-20250929"
    assert reported_model({}) is None and reported_model(None) is None
