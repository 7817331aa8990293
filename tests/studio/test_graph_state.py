"""GraphStateModel fed with engine events: visits, routes, failures, interrupts, badges, tools."""

from __future__ import annotations

from itertools import count
from typing import Any

import pytest

from engine.events import (
    AttemptFinished,
    AttemptStarted,
    ErrorInfo,
    EventBase,
    InterruptRaised,
    InterruptResumed,
    NodeFinished,
    NodeStarted,
    Route,
    RunFinished,
    ToolFinished,
    ToolStarted,
)
from studio.models.graph_state import Badge, GraphChange, GraphStateModel, Moment
from tests.studio.graph_samples import demo_graph, twelve_middleware_graph

_seq = count(1)


def ev(cls: type[EventBase], **fields: Any) -> EventBase:
    return cls(run_id="r1", seq=next(_seq), **fields)


def started(node: str, task: str | None = None, attempt: int = 1) -> EventBase:
    return ev(NodeStarted, node=node, task_id=task or f"t-{node}", attempt=attempt)


def finished(node: str, task: str | None = None, **fields: Any) -> EventBase:
    return ev(NodeFinished, node=node, task_id=task or f"t-{node}", **fields)


def badge(model: GraphStateModel, node: str) -> Badge:
    found = model.node(node).badge
    assert found is not None, f"no badge on {node}"
    return found


def timeout(msg: str = "model timed out") -> ErrorInfo:
    return ErrorInfo(type="TimeoutError", message=msg)


@pytest.fixture
def model() -> GraphStateModel:
    return GraphStateModel(demo_graph())


@pytest.fixture
def changes(model: GraphStateModel) -> list[GraphChange]:
    seen: list[GraphChange] = []
    model.add_listener(seen.append)
    return seen


def test_visit_counts_and_running_nodes(model: GraphStateModel, changes: list[GraphChange]) -> None:
    model.apply(started("model", "t1"))
    assert model.running_nodes == ["model"] and model.status("model") == "running"
    assert changes[-1] == GraphChange(frozenset({"model"}))
    model.apply_all([finished("model", "t1"), started("tools", "t2"), finished("tools", "t2")])
    model.apply_all([started("model", "t3"), finished("model", "t3")])
    assert (
        model.visits("model") == 2 and model.visits("tools") == 1 and model.visits("__end__") == 0
    )
    assert model.running_nodes == [] and model.status("model") == "visited"
    assert model.status("__end__") == "idle"
    # a node-level retry (attempt 2 of the same task) is not a new visit
    model.apply_all([started("tools", "t4"), started("tools", "t4", attempt=2)])
    assert model.visits("tools") == 2


def test_parallel_tasks_of_one_node(model: GraphStateModel) -> None:
    model.apply_all([started("tools", "a"), started("tools", "b"), finished("tools", "a")])
    assert model.status("tools") == "running"
    model.apply(finished("tools", "b"))
    assert model.status("tools") == "visited" and model.visits("tools") == 2


def test_route_just_taken(model: GraphStateModel, changes: list[GraphChange]) -> None:
    model.apply(ev(Route, from_node="model", to=["tools"], reason="tool_calls"))
    assert model.last_route is not None
    assert (model.last_route.from_node, model.last_route.to) == ("model", ("tools",))
    assert changes[-1].route and changes[-1].nodes == {"model", "tools"}
    model.apply(ev(Route, from_node="tools", to=[], sends=[{"node": "model", "arg": "x"}]))
    assert model.last_route.to == ("model",)
    assert changes[-1].nodes == {"model", "tools"}


def test_failed_and_interrupted_nodes(model: GraphStateModel) -> None:
    model.apply_all([started("model"), finished("model", status="error", error=timeout())])
    assert model.status("model") == "failed" and model.failed_nodes == ["model"]
    assert model.node("model").error == "TimeoutError: model timed out"
    model.apply_all([started("tools"), finished("tools", status="interrupted")])
    assert model.status("tools") == "interrupted" and model.interrupted_nodes == ["tools"]
    model.apply(ev(InterruptResumed, node="tools"))
    assert model.status("tools") == "visited"
    model.apply(ev(InterruptRaised, node="tools", value={"question": "ok?"}))
    assert model.status("tools") == "interrupted"
    model.apply(ev(InterruptResumed))  # no node: all interrupts answered
    assert model.interrupted_nodes == []
    # running the failed node again clears the failure
    model.apply(started("model", "again"))
    assert model.status("model") == "running" and model.node("model").error is None


def test_retry_badge_text(model: GraphStateModel) -> None:
    model.apply(started("model"))
    model.apply(
        ev(AttemptStarted, middleware="ModelRetryMiddleware", attempt=1, max_attempts=3, model="m")
    )
    assert model.node("model").badge is None
    model.apply(
        ev(
            AttemptFinished,
            middleware="ModelRetryMiddleware",
            attempt=1,
            max_attempts=3,
            outcome="error",
            error=timeout(),
            will_retry=True,
            delay_s=1.0,
            model="m",
        )
    )
    shown = badge(model, "model")
    assert shown.tone == "warn"
    assert shown.text == "ModelRetry attempt 2/3 - TimeoutError, retrying in 1.0 s"
    model.apply(ev(AttemptStarted, middleware="ModelRetryMiddleware", attempt=2, max_attempts=3))
    assert badge(model, "model").text == "ModelRetry attempt 2/3 - running"
    model.apply(ev(AttemptFinished, middleware="ModelRetryMiddleware", attempt=2, max_attempts=3))
    assert badge(model, "model").text == "ModelRetry attempt 2/3 - succeeded"
    assert badge(model, "model").tone == "ok"
    # the next visit of the node starts without a badge
    model.apply_all([finished("model"), started("model", "t2")])
    assert model.node("model").badge is None


def test_badge_when_giving_up_and_on_fallback(model: GraphStateModel) -> None:
    model.apply(
        ev(
            AttemptFinished,
            middleware="ModelRetryMiddleware",
            attempt=3,
            max_attempts=3,
            outcome="error",
            error=timeout(),
        )
    )
    assert badge(model, "model").text == "ModelRetry attempt 3/3 - TimeoutError, giving up"
    assert badge(model, "model").tone == "error"
    model.apply(
        ev(
            AttemptFinished,
            middleware="ModelFallbackMiddleware",
            attempt=1,
            max_attempts=2,
            outcome="error",
            error=ErrorInfo(type="RateLimitError", message="429"),
            will_retry=True,
            fallback_model="small-model",
        )
    )
    assert (
        badge(model, "model").text
        == "ModelFallback attempt 2/2 - RateLimitError, switching to small-model"
    )


def test_tool_attempts_go_to_the_tools_node(model: GraphStateModel) -> None:
    model.apply(started("tools"))
    model.apply(ev(ToolStarted, tool="search", tool_call_id="c1"))
    model.apply(
        ev(
            AttemptFinished,
            middleware="ToolRetryMiddleware",
            attempt=1,
            max_attempts=2,
            outcome="error",
            error=ErrorInfo(type="ValueError", message="bad"),
            will_retry=True,
            delay_s=0.5,
            tool="search",
            tool_call_id="c1",
        )
    )
    assert model.node("model").badge is None
    assert badge(model, "tools").text == "ToolRetry attempt 2/2 - ValueError, retrying in 0.5 s"
    model.apply(
        ev(
            AttemptStarted,
            middleware="ToolRetryMiddleware",
            attempt=2,
            max_attempts=2,
            tool_call_id="c1",
        )
    )
    assert [c.text for c in model.node("tools").tool_calls] == ["search (attempt 2/2)"]


def test_parallel_tool_calls_in_flight(model: GraphStateModel, changes: list[GraphChange]) -> None:
    model.apply(started("tools"))
    for i, tool in enumerate(["search", "calculator", "search"]):
        model.apply(ev(ToolStarted, tool=tool, tool_call_id=f"c{i}", args={"q": i}))
    assert [(c.tool_call_id, c.tool) for c in model.node("tools").tool_calls] == [
        ("c0", "search"),
        ("c1", "calculator"),
        ("c2", "search"),
    ]
    model.apply(ev(ToolFinished, tool="calculator", tool_call_id="c1"))
    assert [c.tool_call_id for c in model.node("tools").tool_calls] == ["c0", "c2"]
    assert changes[-1].nodes == {"tools"}
    model.apply(ev(ToolFinished, tool="search", tool_call_id="unknown"))
    assert len(model.node("tools").tool_calls) == 2
    model.apply(ev(RunFinished, status="cancelled"))
    assert model.node("tools").tool_calls == () and model.running_nodes == []


def test_tool_calls_without_ids(model: GraphStateModel) -> None:
    model.apply_all([ev(ToolStarted, tool="search"), ev(ToolStarted, tool="search")])
    assert len(model.node("tools").tool_calls) == 2
    model.apply(ev(ToolFinished, tool="search"))
    assert len(model.node("tools").tool_calls) == 1


def test_wrapper_stack_from_graph_metadata() -> None:
    model = GraphStateModel(twelve_middleware_graph())
    assert model.node("model").wrappers == (
        "ContextEditing",
        "LLMToolSelector",
        "ModelRetry",
        "ModelFallback",
    )
    assert model.node("tools").wrappers == ("ToolRetry", "ToolCallLimit")
    assert model.node("PIIMiddleware.before_model").wrappers == ()


def test_breakpoints(model: GraphStateModel, changes: list[GraphChange]) -> None:
    assert model.toggle_breakpoint("tools") is True
    assert model.node("tools").breakpoint and model.breakpoints == {"tools"}
    assert changes[-1].nodes == {"tools"}
    n = len(changes)
    model.set_breakpoint("tools", True)  # no change, no notification
    model.set_breakpoint("nope", True)
    assert len(changes) == n and model.breakpoints == {"tools"}
    assert model.toggle_breakpoint("tools") is False and model.breakpoints == frozenset()


def test_reset_keeps_breakpoints_only(model: GraphStateModel, changes: list[GraphChange]) -> None:
    model.toggle_breakpoint("model")
    model.apply_all(
        [
            started("model"),
            ev(Route, from_node="model", to=["tools"]),
            finished("model", status="error"),
        ]
    )
    model.reset()
    assert changes[-1].everything
    assert model.visits("model") == 0 and model.last_route is None and model.failed_nodes == []
    assert model.breakpoints == {"model"}
    model.set_graph(twelve_middleware_graph())
    assert model.breakpoints == {"model"} and model.status("AuditMiddleware.before_agent") == "idle"


def test_scrubbed_moment_replaces_live_status(model: GraphStateModel) -> None:
    model.apply_all([started("model"), finished("model", status="error")])
    model.show_moment(["tools"], interrupts=["model"])
    assert model.moment == Moment(("tools",), ("model",))
    assert model.status("tools") == "pending" and model.status("model") == "interrupted"
    model.clear_moment()
    assert model.status("tools") == "idle" and model.status("model") == "failed"


def test_subgraph_and_unknown_node_events_are_ignored(
    model: GraphStateModel, changes: list[GraphChange]
) -> None:
    model.apply(ev(NodeStarted, node="model", task_id="x", ns="inner:1"))
    model.apply(started("not_in_graph"))
    assert model.visits("model") == 0 and changes == []
    model.remove_listener(changes.append)
    model.apply(started("model"))
    assert changes == []
