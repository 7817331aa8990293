"""The built-in middleware inside create_agent: spec scenarios 17, 18, 19b, 23, 24, 26 and more."""

from __future__ import annotations

from typing import Any

from engine.agents import create_agent
from engine.checkpoint import InMemorySaver
from engine.events import EventBase
from engine.graph import Command, interrupt
from engine.messages import AIMessage, HumanMessage, ToolMessage
from engine.middleware.builtins import (
    ClearToolUsesEdit,
    ContextEditingMiddleware,
    LLMToolSelectorMiddleware,
    ModelCallLimitMiddleware,
    ModelFallbackMiddleware,
    ModelRetryMiddleware,
    SummarizationMiddleware,
    TodoListMiddleware,
    ToolCallLimitMiddleware,
    ToolRetryMiddleware,
)
from engine.models import ScriptedChatModel
from engine.tools import tool
from tests.engine.middleware.helpers import actions

FAST: dict[str, Any] = {"initial_delay": 0.001, "jitter": False}


def cfg(thread: str = "t") -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def ask(text: str = "go") -> dict[str, Any]:
    return {"messages": [HumanMessage(content=text)]}


def calls(*specs: tuple[str, dict[str, Any]]) -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(specs, 1)],
    )


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return f"echo: {text}"


def test_scenario_17_retry_around_fallback() -> None:
    primary = ScriptedChatModel([RuntimeError("primary down")] * 2, name="primary")
    m2 = ScriptedChatModel([RuntimeError("m2 once"), "answer from m2"], name="m2")
    agent = create_agent(
        primary,
        middleware=[ModelRetryMiddleware(max_retries=1, **FAST), ModelFallbackMiddleware(m2)],
    )
    events: list[EventBase] = []
    with agent.subscribe(events.append):
        out = agent.invoke(ask())
    assert out["messages"][-1].text == "answer from m2"
    assert (len(primary.calls), len(m2.calls)) == (2, 2)
    switches = actions(events, "fallback_switch")
    assert [(e.detail["from"], e.detail["to"]) for e in switches] == [("primary", "m2")] * 2


async def test_scenario_18_exhausted_async() -> None:
    model = ScriptedChatModel([RuntimeError("always")] * 3, name="flaky")
    agent = create_agent(model, middleware=[ModelRetryMiddleware(max_retries=2, **FAST)])
    out = await agent.ainvoke(ask())
    assert len(model.calls) == 3
    final = out["messages"][-1]
    assert isinstance(final, AIMessage) and not final.tool_calls
    assert final.content == "Model call failed after 3 attempts with RuntimeError: always"


def test_scenario_19b_parallel_tools_one_failing_retried() -> None:
    attempts: list[str] = []

    @tool
    def good(x: int) -> str:
        """Works."""
        attempts.append("good")
        return f"good {x}"

    @tool
    def bad(x: int) -> str:
        """Always fails."""
        attempts.append("bad")
        raise ConnectionError("unreachable")

    model = ScriptedChatModel([calls(("bad", {"x": 1}), ("good", {"x": 2})), "done"])
    agent = create_agent(
        model, [good, bad], middleware=[ToolRetryMiddleware(max_retries=2, **FAST)]
    )
    out = agent.invoke(ask())
    assert attempts.count("bad") == 3 and attempts.count("good") == 1
    tool_msgs = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert [(m.tool_call_id, m.status) for m in tool_msgs] == [("c1", "error"), ("c2", "success")]
    assert (
        tool_msgs[0].content
        == "Tool 'bad' failed after 3 attempts with ConnectionError: unreachable. Please try again."
    )
    assert out["messages"][-1].text == "done"


def test_scenario_23_model_call_limit_ends_the_run() -> None:
    model = ScriptedChatModel(
        [calls(("echo", {"text": "a"})), calls(("echo", {"text": "b"})), "never"]
    )
    agent = create_agent(
        model,
        [echo],
        middleware=[ModelCallLimitMiddleware(run_limit=2)],
        checkpointer=InMemorySaver(),
    )
    out = agent.invoke(ask(), cfg())
    assert len(model.calls) == 2
    assert out["messages"][-1].content == "Model call limits exceeded: run limit (2/2)"
    assert "run_model_call_count" not in out and "thread_model_call_count" not in out
    assert agent.get_state(cfg()).values["thread_model_call_count"] == 2
    # the run counter starts again on the next invocation; the thread counter carries on
    model.push("second run answer")
    out2 = agent.invoke(ask("again"), cfg())
    assert out2["messages"][-1].text == "second run answer"
    assert agent.get_state(cfg()).values["thread_model_call_count"] == 3


def test_scenario_23_tool_call_limit_blocks_the_third_parallel_call() -> None:
    ran: list[str] = []

    @tool
    def fetch(url: str) -> str:
        """Fetch a URL."""
        ran.append(url)
        return f"page {url}"

    model = ScriptedChatModel(
        [
            calls(("fetch", {"url": "a"}), ("fetch", {"url": "b"}), ("fetch", {"url": "c"})),
            "summary",
        ]
    )
    agent = create_agent(model, [fetch], middleware=[ToolCallLimitMiddleware(run_limit=2)])
    out = agent.invoke(ask())
    assert sorted(ran) == ["a", "b"]
    by_id = {m.tool_call_id: m for m in out["messages"] if isinstance(m, ToolMessage)}
    assert by_id["c3"].content == "Tool call limit exceeded. Do not make additional tool calls."
    assert by_id["c3"].status == "error"
    assert {by_id["c1"].content, by_id["c2"].content} == {"page a", "page b"}
    assert out["messages"][-1].text == "summary"


def test_tool_call_limit_end_stops_the_batch_and_the_run() -> None:
    model = ScriptedChatModel([calls(("echo", {"text": "1"}), ("echo", {"text": "2"})), "never"])
    agent = create_agent(
        model, [echo], middleware=[ToolCallLimitMiddleware(run_limit=1, exit_behavior="end")]
    )
    out = agent.invoke(ask())
    assert len(model.calls) == 1
    assert [type(m).__name__ for m in out["messages"]] == [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "ToolMessage",
        "AIMessage",
    ]
    assert out["messages"][-1].content == "Tool call limit reached: run limit exceeded (2/1 calls)."


def test_scenario_24_write_todos_and_parallel_calls() -> None:
    todos = [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "pending"}]
    model = ScriptedChatModel(
        [
            calls(("write_todos", {"todos": todos}), ("write_todos", {"todos": todos[:1]})),
            calls(("write_todos", {"todos": todos})),
            "planned",
        ]
    )
    agent = create_agent(model, middleware=[TodoListMiddleware()])
    out = agent.invoke(ask("plan it"))
    msgs = out["messages"]
    errors = [m for m in msgs[:4] if isinstance(m, ToolMessage)]
    assert [(m.tool_call_id, m.status) for m in errors] == [("c1", "error"), ("c2", "error")]
    assert errors[0].content.startswith(
        "Error: The `write_todos` tool should never be called multiple times in parallel."
    )
    assert out["todos"] == todos
    assert msgs[-2].content == f"Updated todo list to {todos}"
    assert "write_todos" in model.calls[0].tool_names
    assert (model.calls[0].messages[0].text or "").startswith("## `write_todos`")


def test_scenario_26_summarization_keeps_two() -> None:
    summarizer = ScriptedChatModel(["user said hello twice"], name="summarizer")
    model = ScriptedChatModel(["first", "second", "third"])
    agent = create_agent(
        model,
        middleware=[
            SummarizationMiddleware(summarizer, trigger=("messages", 5), keep=("messages", 2))
        ],
        checkpointer=InMemorySaver(),
    )
    agent.invoke(ask("hello"), cfg())
    agent.invoke(ask("hello again"), cfg())
    out = agent.invoke(ask("and now?"), cfg())  # 5 messages before the model: summarize
    texts = [m.text for m in out["messages"]]
    assert texts == [
        "Here is a summary of the conversation to date:\n\nuser said hello twice",
        "second",
        "and now?",
        "third",
    ]
    assert [m.text for m in model.calls[-1].messages] == texts[:3]
    assert len(summarizer.calls) == 1


def test_context_editing_trims_the_request_not_the_state() -> None:
    big = "x" * 2000
    rounds = [
        AIMessage(content="", tool_calls=[{"name": "echo", "args": {"text": big}, "id": f"r{i}"}])
        for i in range(3)
    ]
    model = ScriptedChatModel([*rounds, "done"])
    edit = ClearToolUsesEdit(trigger=1000, keep=1)
    agent = create_agent(model, [echo], middleware=[ContextEditingMiddleware([edit])])
    events: list[EventBase] = []
    with agent.subscribe(events.append):
        out = agent.invoke(ask())
    last_request = model.calls[-1].messages
    sent_tools = [m.text for m in last_request if isinstance(m, ToolMessage)]
    assert sent_tools == ["[cleared]", "[cleared]", f"echo: {big}"]
    kept = [m.text for m in out["messages"] if isinstance(m, ToolMessage)]
    assert kept == [f"echo: {big}"] * 3
    edits = [a.detail for a in actions(events, "context_edit")]
    assert [d["cleared"] for d in edits] == [["r0"], ["r0", "r1"]]
    # each cleared result gives back its ~500 tokens (the calls' 2000-char arguments stay)
    assert all(d["tokens_before"] - d["tokens_after"] >= 495 * len(d["cleared"]) for d in edits)


def test_tool_selector_narrows_the_model_tools() -> None:
    @tool
    def weather(city: str) -> str:
        """Weather."""
        return "sunny"

    selector = ScriptedChatModel(['{"tools": ["weather"]}'], name="selector")
    model = ScriptedChatModel(["it is sunny"])
    agent = create_agent(model, [echo, weather], middleware=[LLMToolSelectorMiddleware(selector)])
    agent.invoke(ask("weather in Rome?"))
    assert model.calls[0].tool_names == ["weather"]


def test_composition_retry_fallback_and_todos_in_one_agent() -> None:
    primary = ScriptedChatModel([TimeoutError("slow")] * 3, name="primary")
    backup = ScriptedChatModel(
        [calls(("write_todos", {"todos": [{"content": "x", "status": "completed"}]})), "ok"],
        name="backup",
    )
    agent = create_agent(
        primary,
        middleware=[
            ModelFallbackMiddleware(backup),
            ModelRetryMiddleware(max_retries=2, on_failure="error", **FAST),
            TodoListMiddleware(),
        ],
    )
    out = agent.invoke(ask())
    assert out["todos"] == [{"content": "x", "status": "completed"}]
    # each model turn: the primary is retried 3 times (the second time its script is empty,
    # which raises too), then the fallback answers
    assert len(primary.calls) == 6 and len(backup.calls) == 2
    assert out["messages"][-1].text == "ok"


def test_an_interrupt_inside_a_retried_tool_is_not_retried() -> None:
    runs: list[str] = []

    @tool
    def confirm(question: str) -> str:
        """Ask the user."""
        runs.append(question)
        answer = interrupt({"question": question})
        return f"user said {answer}"

    model = ScriptedChatModel([calls(("confirm", {"question": "ok?"})), "thanks"])
    retry = ToolRetryMiddleware(max_retries=3, **FAST)
    agent = create_agent(model, [confirm], middleware=[retry], checkpointer=InMemorySaver())
    events: list[EventBase] = []
    with agent.subscribe(events.append):
        out = agent.invoke(ask(), cfg())
        assert out["__interrupt__"][0].value == {"question": "ok?"}
        assert runs == ["ok?"]  # one attempt, no retry
        final = agent.invoke(Command(resume="yes"), cfg())
    assert runs == ["ok?", "ok?"]  # the node re-runs on resume
    assert [m.text for m in final["messages"] if isinstance(m, ToolMessage)] == ["user said yes"]
    assert not actions(events, "retry_exhausted")
    first = next(e for e in events if e.kind == "attempt.finished")
    assert (first.attempt, first.will_retry, first.outcome, first.error) == (
        1,
        False,
        "interrupted",
        None,
    )  # type: ignore[attr-defined]
