"""``create_plan_agent``: plan with a model, execute the plan as a DAG, retry failed chains, answer.

    START -> planner -> executor -> evaluator -> answer -> END
                |                     ^    |
                v (no valid plan)     |    v (retryable failures, rounds left)
               END               retry_executor

The planner asks the model for a ``Plan`` (structured output); an unusable reply ends the
run with ``error`` set and an explanatory AI message.  The executor runs every step; the
evaluator computes the retry set (failed steps plus their downstream chain, see
``plan_retry``); the retry executor re-runs it, up to ``max_retry_rounds`` times; the answer
node asks the model to report.  ``plan``, ``steps`` (one ``StepResult`` JSON per step),
``retry``, ``retry_round`` and ``rounds`` are plain JSON in the state, so a viewer can draw
the DAG at any checkpoint; ``plan.step`` events tell it about every change as it happens.

Input: ``{"messages": [HumanMessage(objective)]}`` (the last human message is the
objective) or, on a new thread, ``{"objective": "..."}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, TypedDict

from engine.graph import END, START, RetryPolicy, StateGraph, set_route_reason
from engine.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage, add_messages
from engine.models.base import ChatModel
from engine.plan.executor import ToolsLike, execute_plan, tool_map
from engine.plan.model_call import call_model
from engine.plan.prompts import ANSWER_SYSTEM_PROMPT, answer_request, planner_system_prompt
from engine.plan.results import StepResult
from engine.plan.retry import plan_retry
from engine.plan.schema import Plan
from engine.plan.structured import PlanParseError, parse_plan, plan_response_format

if TYPE_CHECKING:
    from engine.checkpoint.base import BaseCheckpointSaver
    from engine.graph.compiled import CompiledStateGraph

__all__ = ["PlanAgentState", "create_plan_agent"]

#: Supersteps besides the retry rounds: planner, executor, evaluator, answer (+1 spare).
_BASE_STEPS = 5


class PlanAgentState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    objective: str
    plan: dict[str, Any] | None
    """``Plan.model_dump(mode="json")``, or None when planning failed."""
    steps: list[dict[str, Any]]
    """``StepResult.to_json()`` per step, by index: the latest outcome of each step."""
    retry: dict[str, Any] | None
    """The evaluator's decision: ``{"failed", "retryable", "chain"}``."""
    retry_round: int
    rounds: list[dict[str, Any]]
    """``PlanExecution.summary()`` of each execution of this plan, in order."""
    error: str | None
    answer: str | None


def _objective(state: PlanAgentState) -> str:
    for message in reversed(state.get("messages") or []):
        if isinstance(message, HumanMessage):
            return message.text
    return state.get("objective") or ""


def _load(state: PlanAgentState) -> tuple[Plan, list[StepResult]]:
    plan = Plan.model_validate(state.get("plan") or {})
    return plan, [StepResult.model_validate(s) for s in state.get("steps") or []]


def create_plan_agent(
    model: ChatModel,
    tools: ToolsLike,
    *,
    max_retry_rounds: int = 1,
    max_concurrency: int = 8,
    checkpointer: BaseCheckpointSaver | None = None,
    name: str = "plan_agent",
    planner_prompt: str | None = None,
    answer_prompt: str | None = None,
    interrupt_before: list[str] | None = None,
    interrupt_after: list[str] | None = None,
    model_retry: RetryPolicy | None = None,
) -> CompiledStateGraph:
    """A compiled plan-and-execute graph (see the module docstring).

    ``planner_prompt`` is appended to the built-in planning rules; ``answer_prompt``
    replaces the final report's system prompt.  ``max_retry_rounds=0`` never retries.
    Model errors propagate; ``model_retry`` retries the planner and answer nodes on them.
    The plan is requested with ``response_format`` unless ``model.profile`` says the
    model has no native structured output (the prompt asks for JSON either way).
    """
    if max_retry_rounds < 0:
        raise ValueError(f"max_retry_rounds must be 0 or more, got {max_retry_rounds}")
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
    toolset = tool_map(tools)
    planner_system = planner_system_prompt(toolset, planner_prompt)
    answer_system = answer_prompt or ANSWER_SYSTEM_PROMPT
    profile = getattr(model, "profile", None)
    plan_format = (
        plan_response_format() if getattr(profile, "structured_output", None) is not False else None
    )

    async def planner(state: PlanAgentState) -> dict[str, Any]:
        # a new plan starts from scratch (a thread may hold an earlier plan's results)
        fresh: dict[str, Any] = {
            "plan": None,
            "steps": [],
            "retry": None,
            "retry_round": 0,
            "rounds": [],
            "error": None,
            "answer": None,
        }
        objective = _objective(state)
        if not objective.strip():
            error = "No objective: send a human message (or pass 'objective' on a new thread)"
            return {**fresh, "error": error, "messages": [AIMessage(content=error)]}
        messages = [SystemMessage(content=planner_system), HumanMessage(content=objective)]
        reply = await call_model(model, messages, response_format=plan_format)
        try:
            plan = parse_plan(reply, tools=toolset)
        except PlanParseError as exc:
            return {
                **fresh,
                "objective": objective,
                "error": str(exc),
                "messages": [reply, AIMessage(content=f"I could not make a plan. {exc}")],
            }
        if not plan.objective:
            plan = plan.model_copy(update={"objective": objective})
        pending = [
            StepResult(index=i, name=s.name, tool=s.tool).to_json()
            for i, s in enumerate(plan.steps)
        ]
        return {
            **fresh,
            "objective": objective,
            "plan": plan.model_dump(mode="json"),
            "steps": pending,
            "messages": [reply],
        }

    def route_after_planner(state: PlanAgentState) -> Literal["executor", "__end__"]:
        if state.get("plan") is None:
            set_route_reason("end", state.get("error") or "no plan")
            return END
        set_route_reason("conditional", f"plan with {len(state['plan']['steps'])} step(s)")  # type: ignore[index]
        return "executor"

    async def executor(state: PlanAgentState) -> dict[str, Any]:
        plan, _ = _load(state)
        execution = await execute_plan(plan, toolset, max_concurrency=max_concurrency)
        return {
            "steps": [r.to_json() for r in execution.results],
            "retry_round": 0,
            "rounds": [execution.summary()],
        }

    def evaluator(state: PlanAgentState) -> dict[str, Any]:
        plan, results = _load(state)
        return {"retry": plan_retry(plan, results).to_json()}

    def route_after_evaluator(state: PlanAgentState) -> Literal["retry_executor", "answer"]:
        retry = state.get("retry") or {}
        failed, chain = retry.get("failed") or [], retry.get("chain") or []
        done = state.get("retry_round", 0)
        if not failed:
            set_route_reason("conditional", "every step succeeded")
            return "answer"
        if not chain:
            set_route_reason("conditional", f"failed steps {failed} cannot be fixed by a retry")
            return "answer"
        if done >= max_retry_rounds:
            set_route_reason(
                "conditional",
                f"retry rounds used up ({done} of {max_retry_rounds}); failed steps {failed}",
            )
            return "answer"
        set_route_reason(
            "conditional", f"round {done + 1} of {max_retry_rounds}: retrying steps {chain}"
        )
        return "retry_executor"

    async def retry_executor(state: PlanAgentState) -> dict[str, Any]:
        plan, results = _load(state)
        retry = state.get("retry") or {}
        round_ = state.get("retry_round", 0) + 1
        execution = await execute_plan(
            plan,
            toolset,
            retry_steps=retry.get("chain") or [],
            prior=results,
            retry_round=round_,
            max_concurrency=max_concurrency,
        )
        summary = {**execution.summary(), "retry_of": retry.get("retryable") or []}
        return {
            "steps": [r.to_json() for r in execution.results],
            "retry_round": round_,
            "rounds": [*(state.get("rounds") or []), summary],
        }

    async def answer(state: PlanAgentState) -> dict[str, Any]:
        plan, results = _load(state)
        request = answer_request(_objective(state), plan, results, state.get("retry_round", 0))
        reply = await call_model(
            model, [SystemMessage(content=answer_system), HumanMessage(content=request)]
        )
        return {"answer": reply.text, "messages": [reply]}

    builder = StateGraph(PlanAgentState)
    builder.add_node(
        "planner",
        planner,
        retry_policy=model_retry,
        metadata={"kind": "node", "plan_role": "planner"},
    )
    builder.add_node("executor", executor, metadata={"kind": "node", "plan_role": "executor"})
    builder.add_node("evaluator", evaluator, metadata={"kind": "node", "plan_role": "evaluator"})
    builder.add_node(
        "retry_executor", retry_executor, metadata={"kind": "node", "plan_role": "retry_executor"}
    )
    builder.add_node(
        "answer", answer, retry_policy=model_retry, metadata={"kind": "node", "plan_role": "answer"}
    )
    builder.add_edge(START, "planner")
    builder.add_conditional_edges(
        "planner", route_after_planner, {"executor": "executor", END: END}
    )
    builder.add_edge("executor", "evaluator")
    builder.add_conditional_edges(
        "evaluator", route_after_evaluator, {"retry_executor": "retry_executor", "answer": "answer"}
    )
    builder.add_edge("retry_executor", "evaluator")
    builder.add_edge("answer", END)
    graph = builder.compile(
        checkpointer=checkpointer,
        name=name,
        interrupt_before=interrupt_before,
        interrupt_after=interrupt_after,
    )
    needed = _BASE_STEPS + 2 * max_retry_rounds
    if needed > graph.default_recursion_limit:
        graph = graph.with_config(recursion_limit=needed)
    return graph
