"""Prices and usage sums (``studio.models.pricing`` / ``usage_ledger``): no Qt, real runs."""

from __future__ import annotations

from typing import Any

import pytest

from engine.events import EventBase
from engine.usage import TokenUsage
from studio.models.pricing import (
    Price,
    PriceTable,
    money_text,
    overrides_from,
    spend_text,
    spend_tooltip,
    tokens_text,
    totals_text,
)
from studio.models.usage_ledger import UsageLedger
from tests.studio import obs_agents


async def _events(agent: Any) -> list[EventBase]:
    seen: list[EventBase] = []
    with agent.subscribe(seen.append):
        await agent.ainvoke(obs_agents.first_input(), {"configurable": {"thread_id": "t"}})
    return seen


def test_the_builtin_list_has_common_models_and_says_when_it_was_taken() -> None:
    table = PriceTable.builtin()
    assert table.taken == "2026-11-25"
    for name in (
        "gpt-4o-mini",
        "gpt-4.1",
        "claude-sonnet-4-5",
        "gemini-2.5-flash",
        "mistral-large-latest",
    ):
        assert table.price(name) is not None, name
    # aliases and provider prefixes, never a near name
    assert table.price("gpt-4o-mini-2024-07-18") == table.price("gpt-4o-mini")
    assert table.price("openai:GPT-4o-mini") == table.price("gpt-4o-mini")
    assert table.price("models/gemini-2.5-flash") == table.price("gemini-2.5-flash")
    assert table.price("gpt-4o-mini-2099-01-01") is None
    assert table.price("llama3:8b") is None


def test_a_price_needs_every_kind_of_token_it_is_asked_for() -> None:
    p = Price(input=2.0, output=8.0, cached_input=0.5)
    assert p.cost(TokenUsage(1_000_000, 1_000_000, 500_000)) == (1.0 + 0.25 + 8.0, None)
    no_cache = Price(input=2.0, output=8.0)
    dollars, why = no_cache.cost(TokenUsage(100, 10, cached_input=50))
    assert dollars is None and "cached input" in str(why)
    dollars, why = Price(1.0, 1.0, max_input_tokens=1000).cost(TokenUsage(2000, 1))
    assert dollars is None and "priced only up to 1,000" in str(why)


async def test_a_run_is_priced_per_call_node_run_and_in_total() -> None:
    events = await _events(obs_agents.priced_agent(delay=0.0))
    ledger = UsageLedger()
    ledger.add_all(events)
    table = PriceTable.builtin()
    total = table.spend(ledger.total())
    # 412 + 518 input (384 of them cached), 38 + 22 output; the timed-out call used nothing
    assert total.tokens == TokenUsage(930, 60, 384)
    expected = ((930 - 384) * 0.15 + 384 * 0.075 + 60 * 0.6) / 1e6
    assert total.dollars == pytest.approx(expected)
    assert total.calls == 3 and total.failed == 1 and total.fully_known
    assert spend_text(total) == f"990 tok · {money_text(expected)}"
    model = table.spend(ledger.node("model"))
    assert model.dollars == pytest.approx(expected)
    assert ledger.node("tools") is None
    run_id = events[0].run_id
    assert table.spend(ledger.run(run_id)).dollars == pytest.approx(expected)
    # each call on its own row: its span holds its usage only
    responses = [e for e in events if e.kind == "model.response"]
    first_ok = table.spend(ledger.span(responses[1].span_id))
    assert first_ok.tokens == TokenUsage(412, 38) and first_ok.calls == 1
    failed = table.spend(ledger.span(responses[0].span_id))
    assert spend_text(failed) == "failed"


async def test_a_model_without_a_price_shows_tokens_and_an_unknown_cost() -> None:
    events = await _events(obs_agents.unpriced_agent())
    ledger = UsageLedger()
    ledger.add_all(events)
    spend = PriceTable.builtin().spend(ledger.total())
    assert spend_text(spend) == "990 tok · ?"
    assert "house-model-7b: no price" in spend_tooltip(spend, PriceTable.builtin())
    text, tip = totals_text(PriceTable.builtin(), ledger.run(events[0].run_id), ledger.total())
    assert text == "Run ? · Thread ?"
    assert "house-model-7b" in tip


def test_user_edits_override_add_and_remove_prices() -> None:
    builtin = PriceTable.builtin()
    table = builtin.with_overrides(
        {
            "house-model-7b": {"input": 0.1, "output": 0.2},
            "gpt-4o-mini": {"input": 1.0, "output": 2.0},
            "gpt-4o": None,
        }
    )
    assert table.price("house-model-7b") == Price(0.1, 0.2)
    assert table.price("gpt-4o-mini") == Price(1.0, 2.0)
    assert table.price("gpt-4o") is None and table.price("gpt-4o-2024-08-06") is None
    assert {n for n, _p, edited in table.rows() if edited} == {"house-model-7b", "gpt-4o-mini"}
    # what Settings keeps of an edited list: only what differs
    rows = [(n, p) for n, p, _e in builtin.rows() if n != "o1"]
    rows.append(("house-model-7b", Price(0.1, 0.2)))
    assert overrides_from(rows, builtin) == {
        "house-model-7b": {"input": 0.1, "output": 0.2},
        "o1": None,
    }


def test_texts() -> None:
    assert [tokens_text(n) for n in (950, 1234, 34_567, 1_234_567)] == [
        "950",
        "1.2k",
        "34k",
        "1.23M",
    ]
    assert [money_text(d) for d in (0, 0.0000846, 0.0034, 0.153, 12.4)] == [
        "$0",
        "$0.000085",
        "$0.0034",
        "$0.153",
        "$12.40",
    ]


def test_tooltips_with_agent_text_stay_plain() -> None:
    from studio.widgets.plain_tip import plain_tip

    tip = plain_tip("house <img src=x> model: no price\nline two")
    assert "<img" not in tip and "&lt;img src=x&gt;" in tip and "\nline two" in tip
    assert plain_tip("") == ""
