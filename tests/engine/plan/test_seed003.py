"""Seed 003 reproduced: the problem scenario, comparison scenarios 1-3, and the three
suggested test shapes (linear chain, branches, join) with their exact retry sets.

Order is asserted from the recorded step updates (positions = sequence numbers)."""

from __future__ import annotations

from engine.plan import (
    SKIP_UPSTREAM_FAILED,
    TOOL_ERROR,
    Plan,
    PlanExecution,
    PlanStep,
    RetryDecision,
    execute_plan,
    plan_retry,
)

from .helpers import Recorder, ScriptedTool, assert_dependencies_first, make_plan, tools_for

FILE_NOT_FOUND = FileNotFoundError("file not found")


async def first_and_retry(
    plan: Plan, tools: list, rec: Recorder
) -> tuple[PlanExecution, RetryDecision, PlanExecution]:
    """Execute, decide the retry set from the failures, retry it once."""
    first = await execute_plan(plan, tools, on_step=rec)
    decision = plan_retry(plan, first.results)
    retry = await execute_plan(
        plan, tools, retry_steps=decision.chain, prior=first, retry_round=1, on_step=rec
    )
    assert_dependencies_first(plan, rec.updates)
    return first, decision, retry


def seed_problem_plan() -> Plan:
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


# -- the problem scenario ------------------------------------------------------------------


async def test_problem_scenario_file_still_missing():
    plan = seed_problem_plan()
    read = ScriptedTool("read_file", FILE_NOT_FOUND, FILE_NOT_FOUND)
    tools, scripted = tools_for(plan, read_file=read)
    rec = Recorder()
    first, decision, retry = await first_and_retry(plan, tools, rec)

    assert [r.status for r in first.results] == ["succeeded", "failed", "skipped", "skipped"]
    # only step 1 really failed; the chain adds its dependants
    assert decision == RetryDecision(failed=[1], retryable=[1], chain=[1, 2, 3])
    # retryExec = { attempted: 3, succeeded: 0, used: [read_file failed, 2 and 3 skipped] }
    assert (retry.attempted, retry.succeeded) == (3, 0)
    assert [(r.status, r.code) for r in retry.results[1:]] == [
        ("failed", TOOL_ERROR),
        ("skipped", SKIP_UPSTREAM_FAILED),
        ("skipped", SKIP_UPSTREAM_FAILED),
    ]
    assert (
        retry.results[2].message
        == "Skipped: upstream step failed - step 1 (read_file): file not found"
    )
    assert retry.results[3].message == (
        "Skipped: upstream step failed - step 2 (process_data): skipped (upstream step failed)"
    )
    # step 0 kept its result and was not touched in the retry round
    assert retry.results[0] == first.results[0]
    assert rec.touched(retry_round=1) == {1, 2, 3}
    assert rec.started(retry_round=1) == [1]
    assert len(scripted["list_files"].calls) == 1
    assert len(read.calls) == 2
    assert scripted["process_data"].calls == [] and scripted["write_result"].calls == []
    assert [r.attempts for r in retry.results] == [1, 2, 0, 0]


async def test_problem_scenario_file_appears_on_the_retry():
    plan = seed_problem_plan()
    read = ScriptedTool("read_file", FILE_NOT_FOUND, "a,b\n1,2")
    process = ScriptedTool("process_data", lambda args: {"rows": args["text"].count("\n")})
    tools, scripted = tools_for(plan, read_file=read, process_data=process)
    rec = Recorder()
    _, decision, retry = await first_and_retry(plan, tools, rec)

    assert decision.chain == [1, 2, 3]
    assert retry.all_succeeded and (retry.attempted, retry.succeeded) == (3, 3)
    # in dependency order: 1 finishes before 2 starts, 2 before 3
    assert rec.pos(index=1, status="succeeded", retry_round=1) < rec.pos(
        index=2, status="running", retry_round=1
    )
    assert rec.pos(index=2, status="succeeded", retry_round=1) < rec.pos(
        index=3, status="running", retry_round=1
    )
    # the re-run steps saw the new data
    assert process.calls == [{"text": "a,b\n1,2"}]
    assert scripted["write_result"].calls == [{"data": {"rows": 1}}]


# -- comparison scenarios --------------------------------------------------------------


async def test_scenario_1_upstream_fails_again_downstream_skipped():
    plan = make_plan([[], [0], [1], [2]], ["api_auth", "api_getData", "processData", "saveResult"])
    timeout = TimeoutError("API timeout")
    get_data = ScriptedTool("api_getData", timeout, timeout)
    tools, scripted = tools_for(plan, api_getData=get_data)
    rec = Recorder()
    _, decision, retry = await first_and_retry(plan, tools, rec)

    assert decision.chain == [1, 2, 3]
    # one real failure, two skips: processData and saveResult were never called
    assert retry.failed == [1] and retry.skipped == [2, 3]
    assert len(get_data.calls) == 2
    assert scripted["processData"].calls == [] and scripted["saveResult"].calls == []
    assert rec.statuses(2)[-1] == "skipped" and rec.statuses(3)[-1] == "skipped"
    assert rec.pos(index=1, status="failed", retry_round=1) < rec.pos(
        index=2, status="skipped", retry_round=1
    )
    assert rec.pos(index=2, status="skipped", retry_round=1) < rec.pos(
        index=3, status="skipped", retry_round=1
    )
    assert (
        retry.results[2].message
        == "Skipped: upstream step failed - step 1 (api_getData): API timeout"
    )


async def test_scenario_2_upstream_recovers_downstream_rerun_in_order():
    plan = Plan(
        "report",
        [
            PlanStep("downloadFile", "downloadFile"),
            PlanStep("parseFile", "parseFile", {"raw": "{{steps.0.output}}"}, depends_on=[0]),
            PlanStep(
                "generateReport", "generateReport", {"data": "{{steps.1.output}}"}, depends_on=[1]
            ),
        ],
    )
    download = ScriptedTool("downloadFile", ConnectionError("network error"), "raw bytes")
    parse = ScriptedTool("parseFile", lambda a: a["raw"].upper())
    report = ScriptedTool("generateReport", lambda a: f"report on {a['data']}")
    tools, _ = tools_for(plan, downloadFile=download, parseFile=parse, generateReport=report)
    rec = Recorder()
    first, decision, retry = await first_and_retry(plan, tools, rec)

    assert first.failed == [0] and first.skipped == [1, 2]
    assert decision.chain == [0, 1, 2]
    assert retry.all_succeeded
    assert rec.started(retry_round=1) == [0, 1, 2]
    assert rec.pos(index=0, status="succeeded", retry_round=1) < rec.pos(
        index=1, status="running", retry_round=1
    )
    assert rec.pos(index=1, status="succeeded", retry_round=1) < rec.pos(
        index=2, status="running", retry_round=1
    )
    # each step saw its upstream's new output
    assert parse.calls == [{"raw": "raw bytes"}]
    assert retry.results[2].output == "report on RAW BYTES"


async def test_scenario_3_partial_success_precise_retry():
    plan = make_plan([[], [], [0], [1, 2]], ["task_A", "task_B", "task_C", "task_D"])
    task_b = ScriptedTool("task_B", RuntimeError("B broke"), RuntimeError("B broke again"))
    tools, scripted = tools_for(plan, task_B=task_b)
    rec = Recorder()
    first, decision, retry = await first_and_retry(plan, tools, rec)

    assert [r.status for r in first.results] == ["succeeded", "failed", "succeeded", "skipped"]
    assert decision.chain == [1, 3]
    assert rec.touched(retry_round=1) == {1, 3}
    assert retry.failed == [1] and retry.skipped == [3]
    # D names only the step that failed; C succeeded earlier and is not re-run
    assert (
        retry.results[3].message == "Skipped: upstream step failed - step 1 (task_B): B broke again"
    )
    assert len(scripted["task_A"].calls) == len(scripted["task_C"].calls) == 1
    assert scripted["task_D"].calls == []


async def test_scenario_3_when_b_recovers_d_runs_with_cs_earlier_output():
    plan = make_plan([[], [], [0], [1, 2]], ["task_A", "task_B", "task_C", "task_D"])
    tools, scripted = tools_for(plan, task_B=ScriptedTool("task_B", RuntimeError("B broke")))
    rec = Recorder()
    _, _, retry = await first_and_retry(plan, tools, rec)
    assert retry.all_succeeded and rec.started(retry_round=1) == [1, 3]
    assert len(scripted["task_D"].calls) == 1


# -- the suggested test shapes -------------------------------------------------------------


async def test_shape_linear_chain():
    plan = make_plan([[], [0], [1], [2]])
    s1 = ScriptedTool("s1", RuntimeError("down"), RuntimeError("still down"))
    tools, _ = tools_for(plan, s1=s1)
    rec = Recorder()
    _, decision, retry = await first_and_retry(plan, tools, rec)
    assert decision.chain == [1, 2, 3]
    assert [r.status for r in retry.results] == ["succeeded", "failed", "skipped", "skipped"]
    assert rec.started(retry_round=1) == [1]


async def test_shape_branches_step_1_fails():
    plan = make_plan([[], [0], [0], [1], [2]])
    tools, scripted = tools_for(plan, s1=ScriptedTool("s1", RuntimeError("down")))
    rec = Recorder()
    first, decision, retry = await first_and_retry(plan, tools, rec)
    assert [r.status for r in first.results] == [
        "succeeded",
        "failed",
        "succeeded",
        "skipped",
        "succeeded",
    ]
    assert decision.chain == [1, 3]
    assert rec.touched(retry_round=1) == {1, 3}
    assert retry.all_succeeded
    assert [len(scripted[f"s{i}"].calls) for i in range(5)] == [1, 2, 1, 1, 1]


async def test_shape_branches_step_0_fails():
    plan = make_plan([[], [0], [0], [1], [2]])
    tools, _ = tools_for(plan, s0=ScriptedTool("s0", RuntimeError("root down")))
    rec = Recorder()
    first, decision, retry = await first_and_retry(plan, tools, rec)
    assert first.skipped == [1, 2, 3, 4]
    assert decision.chain == [0, 1, 2, 3, 4]
    assert retry.all_succeeded
    assert rec.started(retry_round=1)[0] == 0
    # the two branches are independent: both start once step 0 succeeded
    root_done = rec.pos(index=0, status="succeeded", retry_round=1)
    assert all(rec.pos(index=i, status="running", retry_round=1) > root_done for i in (1, 2, 3, 4))


async def test_shape_join_retry_sets():
    plan = make_plan([[], [0], [], [2], [], [1, 3, 4]])
    tools, _ = tools_for(plan, s1=ScriptedTool("s1", RuntimeError("one down")))
    first = await execute_plan(plan, tools)
    assert plan_retry(plan, first.results).chain == [1, 5]

    tools, _ = tools_for(plan, s3=ScriptedTool("s3", RuntimeError("three down")))
    first = await execute_plan(plan, tools)
    assert plan_retry(plan, first.results).chain == [3, 5]


async def test_shape_join_step_1_recovers_step_3_fails_again():
    plan = make_plan([[], [0], [], [2], [], [1, 3, 4]])
    s1 = ScriptedTool("s1", RuntimeError("one down"))
    s3 = ScriptedTool("s3", RuntimeError("three down"), RuntimeError("three still down"))
    tools, scripted = tools_for(plan, s1=s1, s3=s3)
    rec = Recorder()
    first, decision, retry = await first_and_retry(plan, tools, rec)
    assert first.skipped == [5]
    assert decision.chain == [1, 3, 5]
    assert [retry.results[i].status for i in (1, 3, 5)] == ["succeeded", "failed", "skipped"]
    assert (
        retry.results[5].message == "Skipped: upstream step failed - step 3 (s3): three still down"
    )
    # the join waited for both retried inputs to settle before it was skipped
    skip = rec.pos(index=5, status="skipped", retry_round=1)
    assert skip > rec.pos(index=1, status="succeeded", retry_round=1)
    assert skip > rec.pos(index=3, status="failed", retry_round=1)
    assert scripted["s5"].calls == []


async def test_non_retryable_failures_are_not_retried():
    plan = Plan(
        "g", [PlanStep("a", "missing_tool"), PlanStep("b", "b", depends_on=[0]), PlanStep("c", "c")]
    )
    tools, _ = tools_for(Plan("g", [PlanStep("b", "b"), PlanStep("c", "c")]))
    first = await execute_plan(plan, tools)
    decision = plan_retry(plan, first.results)
    assert decision == RetryDecision(failed=[0], retryable=[], chain=[])
