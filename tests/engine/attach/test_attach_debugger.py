"""The debugger on an attached (real LangGraph) agent: breakpoints on tools and failures,
stepping into model/tool calls, and Stop."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")
from langchain.agents import create_agent as lc_create_agent
from langchain.agents.middleware import ModelRetryMiddleware
from langchain_core.messages import AIMessage

from engine.attach import attach
from engine.debug import Debugger
from engine.errors import RunStopped
from tests.engine.attach.test_attach_langgraph import FirstCallFails, collect, weather


def flaky_agent() -> Any:
    model = FirstCallFails(
        messages=iter(
            [
                AIMessage(
                    "", tool_calls=[{"name": "weather", "args": {"city": "Rome"}, "id": "c"}]
                ),
                AIMessage("done"),
            ]
        )
    )
    retry = ModelRetryMiddleware(max_retries=1, initial_delay=0)
    return attach(lc_create_agent(model, tools=[weather], middleware=[retry]))


def run_with(dbg: Debugger, answer: Any) -> tuple[list[tuple[str, str | None]], Any]:
    seen: list[tuple[str, str | None]] = []

    def on_pause(d: Debugger) -> None:
        assert d.current_event is not None
        seen.append((d.current_event.kind, d.pause_reason))
        answer(d, len(seen))

    dbg.on_pause.append(on_pause)
    events = collect(flaky_agent(), {"messages": [("user", "weather?")]}, {}, debugger=dbg)
    return seen, events[-1].__dict__["status"]


def test_breakpoints_on_a_tool_and_on_failures() -> None:
    dbg = Debugger()
    dbg.break_on_tool("weather")
    dbg.break_on_failure()
    seen, status = run_with(dbg, lambda d, n: d.continue_())
    assert seen == [("model.response", "breakpoint"), ("tool.started", "breakpoint")]
    assert status == "done"


def test_stepping_into_the_calls_of_a_node() -> None:
    dbg = Debugger()
    dbg.break_before("tools")

    def answer(d: Debugger, n: int) -> None:
        if n < 3:
            d.step_into()
        else:
            d.continue_()

    seen, status = run_with(dbg, answer)
    assert [k for k, _ in seen] == ["node.started", "tool.started", "tool.finished"]
    assert status == "done"


def test_stepping_into_the_retry_middleware_of_the_model_node() -> None:
    dbg = Debugger()
    dbg.break_before("model")

    def answer(d: Debugger, n: int) -> None:
        if n < 7:
            d.step_into()
        else:
            d.continue_()

    seen, status = run_with(dbg, answer)
    assert [k for k, _ in seen] == [
        "node.started",
        "wrapper.started",  # ModelRetryMiddleware's layer
        "attempt.started",  # its first attempt
        "model.request",
        "model.response",  # the timeout
        "attempt.finished",  # closed once the second attempt starts: will_retry
        "attempt.started",
        "node.started",  # continue: the breakpoint again, the model's second turn
    ]
    assert status == "done"


def test_stop_ends_the_run_at_a_pause() -> None:
    dbg = Debugger()
    dbg.break_before("tools")
    with pytest.raises(RunStopped):
        run_with(dbg, lambda d, n: d.stop())


@pytest.mark.parametrize("sync", [False, True], ids=["astream", "stream"])
def test_stop_before_the_tools_node_runs_no_tool_and_logs_nothing(
    sync: bool, caplog: pytest.LogCaptureFixture
) -> None:
    from langchain.agents.middleware import wrap_tool_call

    calls: list[str] = []

    @wrap_tool_call
    def noted(request: Any, handler: Any) -> Any:
        calls.append(request.tool_call["name"])
        return handler(request)

    model = FirstCallFails(
        messages=iter(
            [AIMessage("", tool_calls=[{"name": "weather", "args": {"city": "Oslo"}, "id": "c"}])]
        )
    )
    model.calls = 1  # no failure: straight to the tool call
    g = attach(lc_create_agent(model, tools=[weather], middleware=[noted]), sync=sync)
    assert g.sync is sync
    dbg = Debugger()
    dbg.break_before("tools")
    dbg.on_pause.append(lambda d: d.stop())
    with pytest.raises(RunStopped):
        collect(g, {"messages": [("user", "weather?")]}, {}, debugger=dbg)
    assert calls == []  # stopped at the pause, before the node's body
    assert not [r for r in caplog.records if "callback" in r.getMessage()]
