"""``HumanInTheLoopMiddleware``: pause before gated tool calls until a human decides.

Batched mode (default): ``after_model`` interrupts **once** per model turn with

    {"action_requests": [{"name", "args", "description"}, ...],
     "review_configs": [{"action_name", "allowed_decisions"}, ...]}

listing only the gated calls, in call order. Resume with
``Command(resume={"decisions": [...]})``, one decision per gated call, in the same order:

- ``{"type": "approve"}`` - the call runs unchanged;
- ``{"type": "edit", "edited_action": {"name", "args"}}`` - the reviewer's call runs instead.
  The AIMessage keeps the model's own call; the edit is kept in state
  (``hitl_edited_tool_calls``) and ``wrap_tool_call`` swaps it in when the tool runs, then
  prefixes the result with ``edit_notice`` naming what ran. With
  ``rewrite_edited_calls=True`` the call is instead rewritten inside the AIMessage (same
  message id, so ``add_messages`` replaces it in place) and no notice is added;
- ``{"type": "reject", "message"?}`` - the call does not run; an error ToolMessage tells the
  model why;
- ``{"type": "respond", "message"}`` - the call does not run; ``message`` is its result.

Per-call mode (``interrupt_mode="per_call"``): ``wrap_tool_call`` interrupts once per gated
call, as it starts, with a ``ToolApprovalRequest`` whose ``response_schema`` lists the
decisions that tool allows; each is answered with one decision (see ``hitl_per_call``).

Every decision is reported as ``middleware.action`` ``hitl_decision``.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any, NotRequired

from pydantic import TypeAdapter

from engine.events import MiddlewareAction
from engine.graph.runtime import Runtime, get_config, interrupt
from engine.graph.state import PrivateStateAttr
from engine.messages import AIMessage, BaseMessage, ToolCall, ToolMessage
from engine.middleware import hitl_per_call
from engine.middleware.hitl_edits import (
    DEFAULT_EDIT_NOTICE,
    EDITED_CALLS_KEY,
    annotate_result,
    apply_edit,
    as_action,
)
from engine.middleware.hitl_types import (
    DECISION_TYPES,
    INTERRUPT_MODES,
    Action,
    ActionRequest,
    ApproveDecision,
    Decision,
    DecisionType,
    EditDecision,
    HITLRequest,
    HITLResponse,
    InterruptMode,
    InterruptOnConfig,
    RejectDecision,
    RespondDecision,
    ReviewConfig,
    ToolApprovalRequest,
    answer_message,
)
from engine.middleware.retry_policy import Emit, Steps, drive_async, drive_sync
from engine.middleware.types import AgentMiddleware, AgentState, ToolCallRequest
from engine.tools import ToolRuntime
from engine.types import Command

__all__ = [
    "DECISION_TYPES",
    "Action",
    "ActionRequest",
    "ApproveDecision",
    "Decision",
    "DecisionType",
    "EditDecision",
    "HITLRequest",
    "HITLResponse",
    "HumanInTheLoopMiddleware",
    "HumanInTheLoopState",
    "InterruptMode",
    "InterruptOnConfig",
    "RejectDecision",
    "RespondDecision",
    "ReviewConfig",
    "ToolApprovalRequest",
]


class HumanInTheLoopState(AgentState):
    """The agent state with the reviewer's edits of the current turn."""

    hitl_edited_tool_calls: NotRequired[Annotated[dict[str, Action], PrivateStateAttr]]


def _resolve_config(tool: str, cfg: Any) -> InterruptOnConfig | None:
    if cfg is True:
        return InterruptOnConfig(allowed_decisions=list(DECISION_TYPES))
    if cfg is False or cfg is None:
        return None
    if not isinstance(cfg, Mapping) or not cfg.get("allowed_decisions"):
        keys = sorted(cfg.keys()) if isinstance(cfg, Mapping) else type(cfg).__name__
        got = cfg.get("allowed_decisions") if isinstance(cfg, Mapping) else None
        raise ValueError(
            f"Invalid `interrupt_on` config for tool '{tool}': `allowed_decisions` must be a "
            f"non-empty list of decision types (e.g. ['approve', 'reject']). Got config with "
            f"keys {keys} and allowed_decisions={got!r}."
        )
    unknown = [d for d in cfg["allowed_decisions"] if d not in DECISION_TYPES]
    if unknown:
        raise ValueError(
            f"interrupt_on[{tool!r}]: unknown decision type(s) {unknown}; expected some of "
            f"{list(DECISION_TYPES)}"
        )
    return InterruptOnConfig(**cfg)  # type: ignore[typeddict-item]


class HumanInTheLoopMiddleware(AgentMiddleware):
    """Ask a human to approve, edit, reject or answer gated tool calls.

    Args:
        interrupt_on: ``{tool_name: True | False | {"allowed_decisions": [...],
            "description": str | callable, "when": predicate}}``. ``True`` allows every
            decision; ``False`` (or no entry) lets the tool run without review.
        description_prefix: the start of the default description
            (``f"{prefix}\\n\\nTool: {name}\\nArgs: {args}"``).
        edit_notice: text put before the result of a call a reviewer edited (``None``: none).
        interrupt_mode: ``"batched"`` (one interrupt per turn) or ``"per_call"``.
        rewrite_edited_calls: Stepwise option - rewrite an edited call inside the AIMessage
            instead of swapping it in at execution time (no notice is added).
    """

    state_schema = HumanInTheLoopState

    def __init__(
        self,
        interrupt_on: Mapping[str, bool | InterruptOnConfig],
        *,
        description_prefix: str = "Tool execution requires approval",
        edit_notice: str | None = DEFAULT_EDIT_NOTICE,
        interrupt_mode: InterruptMode = "batched",
        rewrite_edited_calls: bool = False,
    ) -> None:
        if interrupt_mode not in INTERRUPT_MODES:
            allowed = " or ".join(repr(m) for m in INTERRUPT_MODES)
            raise ValueError(f"`interrupt_mode` must be {allowed}, got {interrupt_mode!r}.")
        if not isinstance(interrupt_on, Mapping):
            raise ValueError("interrupt_on must be a dict {tool_name: True | False | config}")
        self.interrupt_on: dict[str, InterruptOnConfig] = {}
        for name, cfg in interrupt_on.items():
            resolved = _resolve_config(name, cfg)
            if resolved is not None:
                self.interrupt_on[name] = resolved
        self.description_prefix = description_prefix
        self.edit_notice = edit_notice
        self.interrupt_mode: InterruptMode = interrupt_mode
        self.rewrite_edited_calls = rewrite_edited_calls
        self.tools = []

    # -- the reviewer's view -------------------------------------------------------------

    def ask_human(self, value: Any, response_schema: Any = None) -> Any:
        """Interrupt with ``value`` and return the human's answer, checked against
        ``response_schema`` when given (this module's ``interrupt``: tests answer it)."""
        if response_schema is None:
            return interrupt(value)
        if "response_schema" in inspect.signature(interrupt).parameters:
            return interrupt(value, response_schema=response_schema)  # type: ignore[call-arg]
        return TypeAdapter(response_schema).validate_python(interrupt(value))

    def describe(
        self, call: ToolCall, cfg: InterruptOnConfig, state: Any, runtime: Runtime[Any] | None
    ) -> str:
        """The text shown to the reviewer for ``call``."""
        desc = cfg.get("description")
        if callable(desc):
            return str(desc(call, state, runtime))
        if desc is not None:
            return desc
        return (
            f"{self.description_prefix}\n\nTool: {call.get('name')}\nArgs: {call.get('args', {})}"
        )

    def build_request(
        self, calls: list[ToolCall], state: Any, runtime: Runtime[Any] | None
    ) -> HITLRequest:
        """The batched interrupt payload for the gated ``calls``."""
        actions: list[ActionRequest] = []
        reviews: list[ReviewConfig] = []
        for call in calls:
            cfg = self.interrupt_on[call.get("name", "")]
            actions.append(
                ActionRequest(
                    name=call.get("name", ""),
                    args=call.get("args") or {},
                    description=self.describe(call, cfg, state, runtime),
                )
            )
            review = ReviewConfig(
                action_name=call.get("name", ""), allowed_decisions=cfg["allowed_decisions"]
            )
            if "args_schema" in cfg:
                review["args_schema"] = cfg["args_schema"]
            reviews.append(review)
        return HITLRequest(action_requests=actions, review_configs=reviews)

    def _gated(self, call: ToolCall, state: Any, runtime: Any) -> bool:
        """Is ``call`` reviewed this turn (its tool is listed and ``when`` agrees)?"""
        cfg = self.interrupt_on.get(call.get("name", ""))
        if cfg is None:
            return False
        when = cfg.get("when")
        if when is None:
            return True
        try:
            config = get_config()
        except RuntimeError:
            config = {}
        tool_runtime = ToolRuntime(
            state=state,
            context=getattr(runtime, "context", None),
            config=config,
            stream_writer=getattr(runtime, "stream_writer", lambda _chunk: None),
            tool_call_id=call.get("id"),
            store=getattr(runtime, "store", None),
            execution_info=getattr(runtime, "execution_info", None),
            server_info=getattr(runtime, "server_info", None),
        )
        return bool(when(ToolCallRequest(call, None, state, tool_runtime)))

    # -- batched mode --------------------------------------------------------------------

    def _steps(self, state: Any, runtime: Any) -> Steps[dict[str, Any] | None]:
        if self.interrupt_mode == "per_call":
            return None  # reviewed one call at a time in wrap_tool_call
        messages: list[BaseMessage] = list(state.get("messages") or [])
        last_ai = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        if last_ai is None or not last_ai.tool_calls:
            return None
        answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
        gated = [
            c
            for c in last_ai.tool_calls
            if c.get("id") not in answered and self._gated(c, state, runtime)
        ]
        if not gated:
            # a turn with nothing to review drops the previous turn's edits
            return {EDITED_CALLS_KEY: {}} if state.get(EDITED_CALLS_KEY) else None
        decisions = _decisions_of(interrupt(self.build_request(gated, state, runtime)))
        if len(decisions) != len(gated):
            raise ValueError(
                f"Number of human decisions ({len(decisions)}) does not match number of hanging "
                f"tool calls ({len(gated)})."
            )
        edits: dict[str, Action] = {}
        answers: list[ToolMessage] = []
        details: list[dict[str, Any]] = []
        for call, decision in zip(gated, decisions, strict=True):
            kind = self._check_allowed(call, decision)
            detail: dict[str, Any] = {
                "tool": call.get("name", ""),
                "tool_call_id": call.get("id"),
                "decision": kind,
            }
            if kind == "approve":
                detail["args"] = call.get("args", {})
            elif kind == "edit":
                action = as_action(call, decision)
                call_id = call.get("id")
                if call_id:
                    edits[call_id] = action
                detail.update(
                    args=call.get("args", {}),
                    edited_name=action["name"],
                    edited_args=action["args"],
                )
            else:
                answers.append(answer_message(call, decision))
                detail["message"] = decision.get("message")
            details.append(detail)
        for detail in details:  # every decision was valid: report them all
            yield Emit(
                MiddlewareAction,
                {"middleware": self.name, "action": "hitl_decision", "detail": detail},
            )
        if self.rewrite_edited_calls:
            return {"messages": [_rewritten(last_ai, edits), *answers], EDITED_CALLS_KEY: {}}
        return {"messages": [last_ai, *answers], EDITED_CALLS_KEY: edits}

    def _check_allowed(self, call: ToolCall, decision: Mapping[str, Any]) -> DecisionType:
        allowed = self.interrupt_on[call.get("name", "")]["allowed_decisions"]
        kind = decision.get("type")
        if kind not in allowed:
            raise ValueError(
                f"Unexpected human decision: {dict(decision)}. Decision type '{kind}' is not allowed "
                f"for tool '{call.get('name')}'. Expected one of {list(allowed)} based on the tool's "
                "configuration."
            )
        return kind  # type: ignore[return-value]

    def after_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return drive_sync(self._steps(state, runtime))

    async def aafter_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return await drive_async(self._steps(state, runtime))

    # -- tool execution ------------------------------------------------------------------

    def _recorded_edit(self, request: ToolCallRequest) -> Action | None:
        call_id = request.tool_call.get("id")
        state = request.state if isinstance(request.state, Mapping) else {}
        edits = state.get(EDITED_CALLS_KEY) or {}
        return edits.get(call_id) if call_id else None

    def _tool_steps(self, request: ToolCallRequest) -> Steps[ToolCallRequest | ToolMessage]:
        """What to run for ``request``: a (maybe edited) request, or the answer to return."""
        if self.interrupt_mode == "batched":
            executed = self._recorded_edit(request)
            return apply_edit(request, executed) if executed is not None else request
        return (yield from hitl_per_call.review(self, request))

    def _finish(
        self, original: ToolCallRequest, ran: ToolCallRequest, result: ToolMessage | Command
    ) -> ToolMessage | Command:
        if ran is original:
            return result
        executed = {"name": ran.tool_call.get("name", ""), "args": ran.tool_call.get("args", {})}
        return annotate_result(result, ran.tool_call.get("id"), executed, self.edit_notice)

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command],
    ) -> ToolMessage | Command:
        to_run = drive_sync(self._tool_steps(request))
        if isinstance(to_run, ToolMessage):
            return to_run
        return self._finish(request, to_run, handler(to_run))

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command]],
    ) -> ToolMessage | Command:
        to_run = await drive_async(self._tool_steps(request))
        if isinstance(to_run, ToolMessage):
            return to_run
        return self._finish(request, to_run, await handler(to_run))


def _rewritten(last_ai: AIMessage, edits: Mapping[str, Action]) -> AIMessage:
    if not edits:
        return last_ai
    calls: list[ToolCall] = []
    for c in last_ai.tool_calls:
        edit = edits.get(c.get("id") or "")
        if edit is None:
            calls.append(c)
        else:
            calls.append(
                ToolCall(name=edit["name"], args=edit["args"], id=c.get("id"), type="tool_call")
            )
    return last_ai.model_copy(update={"tool_calls": calls})


def _decisions_of(resume: Any) -> list[Mapping[str, Any]]:
    """The decision list of a resume value (``{"decisions": [...]}``, or the bare list)."""
    decisions = resume.get("decisions") if isinstance(resume, Mapping) else resume
    if not isinstance(decisions, list | tuple) or not all(
        isinstance(d, Mapping) for d in decisions
    ):
        raise ValueError(
            'Resume a human-in-the-loop interrupt with Command(resume={"decisions": [{"type": ...}, ...]}), '
            f"got {resume!r}"
        )
    return list(decisions)
