"""create_plan_agent end to end on ScriptedChatModel: plan, execute, evaluate, retry, answer."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.checkpoint import InMemorySaver
from engine.graph import RetryPolicy
from engine.messages import AIMessage, HumanMessage
from engine.models import ModelProfile, ModelTimeoutError, ScriptedChatModel
from engine.plan import Plan, PlanStep, create_plan_agent, plan_response_format

from .helpers import ScriptedTool, assert_dependencies_first, tools_for

FILE_NOT_FOUND = FileNotFoundError("file not found")


def seed_plan() -> Plan:
    return Plan(
        "process the data file",
        [
            PlanStep("list_files", "list_files", {"directory": "data"}),
            PlanStep("read_file", "read_file", {"path": "data/in.csv"}, depends_on=[0]),
            PlanStep(
                "process_data", "process_data", {"text": "{{steps.1.output}}"}, depends_on=[1]
            ),
            PlanStep(
                "write_result", "write_result", {"data": "{{steps.2.output}}"}, depends_on=[2]
            ),
        ],
    )


def as_json(plan: Plan) -> str:
    return json.dumps(plan.model_dump(mode="json"))


def seed_tools(*read_outcomes: Any) -> tuple[list, dict[str, ScriptedTool]]:
    return tools_for(seed_plan(), read_file=ScriptedTool("read_file", *read_outcomes))


async def run_events(agent, inp: dict[str, Any], config: dict[str, Any] | None = None) -> list:
    return [ev async for ev in agent.astream_events(inp, config, version="stepwise")]


def nodes_run(events: list) -> list[str]:
    return [ev.node for ev in events if ev.kind == "node.started"]


async def test_plan_fail_retry_chain_and_answer():
    model = ScriptedChatModel([as_json(seed_plan()), "All done after one retry."])
    tools, scripted = seed_tools(FILE_NOT_FOUND, "a,b\n1,2")
    agent = create_plan_agent(model, tools, max_retry_rounds=1)
    events = await run_events(agent, {"messages": [HumanMessage(content="process the data file")]})
    state = events[-1].output

    assert nodes_run(events) == [
        "planner",
        "executor",
        "evaluator",
        "retry_executor",
        "evaluator",
        "answer",
    ]
    assert state["plan"] == seed_plan().model_dump(mode="json")
    assert [s["status"] for s in state["steps"]] == ["succeeded"] * 4
    assert [s["attempts"] for s in state["steps"]] == [1, 2, 1, 1]
    assert [s["retry_round"] for s in state["steps"]] == [0, 1, 1, 1]
    assert state["retry_round"] == 1
    assert [r["ran"] for r in state["rounds"]] == [[0, 1, 2, 3], [1, 2, 3]]
    assert state["rounds"][1]["retry_of"] == [1]
    assert state["answer"] == "All done after one retry."
    assert [m["type"] for m in state["messages"]] == ["human", "ai", "ai"]
    assert len(scripted["list_files"].calls) == 1

    steps = [ev for ev in events if ev.kind == "plan.step"]
    assert_dependencies_first(seed_plan(), steps)
    assert {ev.index for ev in steps if ev.retry_round == 1} == {1, 2, 3}
    first_round = {ev.index: ev.status for ev in steps if ev.retry_round == 0}
    assert first_round == {0: "succeeded", 1: "failed", 2: "skipped", 3: "skipped"}
    routes = [ev.detail for ev in events if ev.kind == "route" and ev.from_node == "evaluator"]
    assert routes == ["round 1 of 1: retrying steps [1, 2, 3]", "every step succeeded"]

    planning, answering = model.calls
    assert planning.response_format == plan_response_format()
    assert "- read_file: The read_file tool." in planning.messages[0].text
    assert planning.messages[1].text == "process the data file"
    report = answering.messages[1].text
    assert "- step 1 (read_file) [read_file]: succeeded after 2 attempt(s). Output: a,b" in report
    assert "Retry rounds used: 1" in report
    requests = [ev for ev in events if ev.kind == "model.request"]
    assert [r.response_format for r in requests] == ["Plan", None]


async def test_retry_rounds_run_out():
    model = ScriptedChatModel([as_json(seed_plan()), "The file never appeared."])
    tools, scripted = seed_tools(FILE_NOT_FOUND, FILE_NOT_FOUND, FILE_NOT_FOUND)
    agent = create_plan_agent(model, tools, max_retry_rounds=2)
    events = await run_events(agent, {"objective": "process the data file"})
    state = events[-1].output

    assert nodes_run(events) == [
        "planner",
        "executor",
        "evaluator",
        "retry_executor",
        "evaluator",
        "retry_executor",
        "evaluator",
        "answer",
    ]
    assert [s["status"] for s in state["steps"]] == ["succeeded", "failed", "skipped", "skipped"]
    assert [s["code"] for s in state["steps"]] == [
        None,
        "TOOL_ERROR",
        "SKIP_UPSTREAM_FAILED",
        "SKIP_UPSTREAM_FAILED",
    ]
    assert state["steps"][1]["attempts"] == 3
    assert state["retry"] == {"failed": [1], "retryable": [1], "chain": [1, 2, 3]}
    assert len(scripted["read_file"].calls) == 3 and scripted["process_data"].calls == []
    last_route = [ev.detail for ev in events if ev.kind == "route" and ev.from_node == "evaluator"][
        -1
    ]
    assert last_route == "retry rounds used up (2 of 2); failed steps [1]"
    report = model.calls[1].messages[1].text
    assert (
        "- step 2 (process_data) [process_data]: skipped after 0 attempt(s). SKIP_UPSTREAM_FAILED: Skipped: upstream step failed - step 1 (read_file): file not found"
        in report
    )


async def test_no_retry_rounds():
    model = ScriptedChatModel([as_json(seed_plan()), "It failed."])
    tools, _ = seed_tools(FILE_NOT_FOUND)
    events = await run_events(
        create_plan_agent(model, tools, max_retry_rounds=0), {"objective": "x"}
    )
    assert nodes_run(events) == ["planner", "executor", "evaluator", "answer"]
    assert events[-1].output["retry_round"] == 0


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (
            "Sure! Here is my plan: step one...",
            "The model's plan is not valid JSON (Expecting value at line 1 column 1)",
        ),
        (
            json.dumps(
                {
                    "steps": [
                        {"name": "a", "tool": "list_files", "depends_on": [1]},
                        {"name": "b", "tool": "list_files", "depends_on": [0]},
                    ]
                }
            ),
            "The model's plan is invalid: Plan has a dependency cycle: step 0 (a) -> step 1 (b) -> step 0 (a)",
        ),
        (
            json.dumps({"steps": [{"name": "a", "tool": "rm_rf"}]}),
            "The model's plan uses unknown tools: step 0 (a) uses 'rm_rf' (available: list_files, process_data, read_file, write_result)",
        ),
    ],
)
async def test_an_unusable_plan_ends_the_run_with_a_clear_error(reply: str, error: str):
    model = ScriptedChatModel([reply])
    tools, scripted = seed_tools()
    events = await run_events(create_plan_agent(model, tools), {"objective": "do it"})
    state = events[-1].output
    assert events[-1].status == "done"
    assert nodes_run(events) == ["planner"]
    assert state["error"].startswith(error)
    assert state["plan"] is None and state["steps"] == []
    assert state["messages"][-1]["content"] == f"I could not make a plan. {state['error']}"
    assert len(model.calls) == 1
    assert all(not t.calls for t in scripted.values())


async def test_no_objective():
    model = ScriptedChatModel([])
    tools, _ = seed_tools()
    out = await create_plan_agent(model, tools).ainvoke({"messages": []})
    assert (
        out["error"] == "No objective: send a human message (or pass 'objective' on a new thread)"
    )
    assert model.calls == []


async def test_state_is_json_and_checkpointed_at_every_stage():
    model = ScriptedChatModel([as_json(seed_plan()), "ok"])
    tools, _ = seed_tools(FILE_NOT_FOUND, "data")
    agent = create_plan_agent(model, tools, checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t1"}}
    await agent.ainvoke({"messages": [HumanMessage(content="go")]}, cfg)
    snap = agent.get_state(cfg)
    for key in ("plan", "steps", "retry", "rounds", "retry_round", "answer"):
        json.dumps(snap.values[key])
    assert isinstance(snap.values["messages"][-1], AIMessage)
    # the checkpoint written after the first execution still shows the failed DAG
    after_exec = [
        s
        for s in agent.get_state_history(cfg)
        if s.next == ("evaluator",) and s.values.get("retry_round") == 0
    ]
    assert len(after_exec) == 1
    assert [s["status"] for s in after_exec[0].values["steps"]] == [
        "succeeded",
        "failed",
        "skipped",
        "skipped",
    ]


def test_graph_shape():
    agent = create_plan_agent(ScriptedChatModel([]), seed_tools()[0], name="planner_agent")
    g = agent.get_graph()
    assert g.name == "planner_agent"
    assert {
        n: g.nodes[n].metadata.get("plan_role")
        for n in g.nodes
        if n not in ("__start__", "__end__")
    } == {
        "planner": "planner",
        "executor": "executor",
        "evaluator": "evaluator",
        "retry_executor": "retry_executor",
        "answer": "answer",
    }
    edges = {(e.source, e.target, e.conditional) for e in g.edges}
    assert edges == {
        ("__start__", "planner", False),
        ("planner", "executor", True),
        ("planner", "__end__", True),
        ("executor", "evaluator", False),
        ("evaluator", "retry_executor", True),
        ("evaluator", "answer", True),
        ("retry_executor", "evaluator", False),
        ("answer", "__end__", False),
    }


async def test_many_retry_rounds_fit_the_recursion_limit():
    model = ScriptedChatModel([as_json(seed_plan()), "gave up"])
    tools, scripted = seed_tools(*([FILE_NOT_FOUND] * 20))
    out = await create_plan_agent(model, tools, max_retry_rounds=15).ainvoke({"objective": "x"})
    assert out["retry_round"] == 15
    assert len(scripted["read_file"].calls) == 16


def test_argument_errors():
    with pytest.raises(ValueError, match="max_retry_rounds must be 0 or more, got -1"):
        create_plan_agent(ScriptedChatModel([]), [], max_retry_rounds=-1)
    with pytest.raises(ValueError, match="max_concurrency must be at least 1, got 0"):
        create_plan_agent(ScriptedChatModel([]), [], max_concurrency=0)


async def test_model_without_structured_output_gets_the_json_prompt_only():
    model = ScriptedChatModel(
        [as_json(seed_plan()), "ok"], profile=ModelProfile(structured_output=False)
    )
    tools, _ = seed_tools("data")
    out = await create_plan_agent(model, tools).ainvoke({"objective": "x"})
    assert [s["status"] for s in out["steps"]] == ["succeeded"] * 4
    assert model.calls[0].response_format is None
    assert (
        "Reply with only a JSON object matching the Plan schema" in model.calls[0].messages[0].text
    )


async def test_model_errors_propagate_or_are_retried():
    tools, _ = seed_tools("data")
    failing = ScriptedChatModel([ModelTimeoutError("slow")])
    with pytest.raises(ModelTimeoutError):
        await create_plan_agent(failing, tools).ainvoke({"objective": "x"})

    flaky = ScriptedChatModel([ModelTimeoutError("slow"), as_json(seed_plan()), "ok"])
    retry = RetryPolicy(
        max_attempts=2, initial_interval=0, jitter=False, retry_on=ModelTimeoutError
    )
    out = await create_plan_agent(flaky, tools, model_retry=retry).ainvoke({"objective": "x"})
    assert out["answer"] == "ok" and len(flaky.calls) == 3


async def test_a_second_turn_on_a_thread_starts_a_fresh_plan():
    model = ScriptedChatModel([as_json(seed_plan()), "first answer", "not a plan"])
    tools, _ = seed_tools("data")
    agent = create_plan_agent(model, tools, checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    first = await agent.ainvoke({"messages": [HumanMessage(content="first task")]}, cfg)
    assert first["answer"] == "first answer" and len(first["rounds"]) == 1
    second = await agent.ainvoke({"messages": [HumanMessage(content="second task")]}, cfg)
    assert model.calls[2].messages[1].text == "second task"
    assert second["objective"] == "second task"
    assert (second["plan"], second["steps"], second["rounds"], second["answer"]) == (
        None,
        [],
        [],
        None,
    )
    assert second["error"].startswith("The model's plan is not valid JSON")
