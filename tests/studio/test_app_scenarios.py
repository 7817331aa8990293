"""The shell's built-in scenarios run offline to the end, each showing what it is for."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.events import EventBase
from engine.loader import load_target
from engine.messages import HumanMessage
from studio.app.scenarios import find_scenario


def _module(name: str) -> Any:
    scenario = find_scenario(name)
    assert scenario is not None, f"resources/scenarios/{name}.py is missing"
    return load_target(scenario.spec).module


def _run(graph: Any, text: str) -> tuple[list[EventBase], Any]:
    async def go() -> list[EventBase]:
        return [
            ev
            async for ev in graph.astream_events(
                {"messages": [HumanMessage(content=text)]},
                {"configurable": {"thread_id": "t"}},
                version="stepwise",
            )
        ]

    events = asyncio.run(go())
    return events, graph.get_state({"configurable": {"thread_id": "t"}}).values


@pytest.mark.parametrize("name", ["parallel_tools", "structured_output", "fallback_context"])
def test_the_module_agent_loads_and_has_a_default_input(name: str) -> None:
    module = _module(name)
    assert isinstance(module.INPUT, str) and module.agent.get_graph().nodes


def test_parallel_tools_run_at_once_with_injected_state_and_store() -> None:
    module = _module("parallel_tools")
    graph = module.build_agent(delay=0.01)
    events, values = _run(graph, module.INPUT)
    in_flight, peak = 0, 0
    for ev in events:
        if ev.kind == "tool.started":
            in_flight += 1
            peak = max(peak, in_flight)
        elif ev.kind == "tool.finished":
            in_flight -= 1
            assert ev.status == "success", ev  # type: ignore[attr-defined]
    assert peak == 3
    started = [ev for ev in events if ev.kind == "tool.started"]
    assert all("store" not in (ev.args or {}) and "state" not in (ev.args or {}) for ev in started)  # type: ignore[attr-defined]
    assert (
        "64 °F" in values["messages"][-1].text
    )  # the profile (from the store) asked for Fahrenheit
    notes = graph.store.search(("notes", module.USER))
    assert [n.value["text"] for n in notes] == ["asked for the weather in Paris and Tokyo"]
    counted = next(m for m in values["messages"] if getattr(m, "name", None) == "count_messages")
    assert counted.text == "6 messages so far"


def test_structured_output_is_retried_after_a_validation_error() -> None:
    module = _module("structured_output")
    events, values = _run(module.build_agent(), module.INPUT)
    card = values["structured_response"]
    assert isinstance(card, module.ContactCard) and card.email == "bill.lumbergh@initech.example"
    assert card.industry == "software"
    errors = [
        m.text for m in values["messages"] if m.type == "tool" and "validation error" in m.text
    ]
    assert len(errors) == 1 and "is not an email address" in errors[0]
    assert events[-1].kind == "run.finished" and events[-1].status == "done"  # type: ignore[attr-defined]


def test_fallback_context_editing_and_tool_selection() -> None:
    module = _module("fallback_context")
    events, values = _run(module.build_agent(delay=0.0), module.INPUT)
    actions = [(ev.middleware, ev.action) for ev in events if ev.kind == "middleware.action"]  # type: ignore[attr-defined]
    assert ("ModelFallbackMiddleware", "fallback_switch") in actions
    assert ("ContextEditingMiddleware", "context_edit") in actions
    assert ("LLMToolSelectorMiddleware", "tools_selected") in actions
    requests = [ev for ev in events if ev.kind == "model.request"]
    assert {tuple(ev.tools) for ev in requests} == {("search_docs", "read_page")}  # type: ignore[attr-defined]
    attempts = [(ev.attempt, ev.outcome) for ev in events if ev.kind == "attempt.finished"]  # type: ignore[attr-defined]
    assert attempts.count((1, "error")) == 4 and attempts.count((2, "ok")) == 4
    pages = [m for m in values["messages"] if getattr(m, "name", None) == "read_page"]
    assert all(m.text != "[cleared]" for m in pages), "the state keeps the full tool results"
    assert "ToolRetryMiddleware" in values["messages"][-1].text
