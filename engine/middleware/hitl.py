"""``HumanInTheLoopMiddleware``: pause before gated tool calls until a human decides.

``after_model``: when the last AIMessage calls tools named in ``interrupt_on``, the run is
interrupted **once** for the whole turn with

    {"action_requests": [{"name", "args", "description"}, ...],
     "review_configs": [{"action_name", "allowed_decisions"}, ...]}

listing only the gated calls, in call order. Resume with
``Command(resume={"decisions": [...]})``, one decision per gated call, in the same order:

- ``{"type": "approve"}`` - the call runs unchanged;
- ``{"type": "edit", "edited_action": {"name", "args"}}`` - the call is rewritten inside the
  AIMessage (same message id, so ``add_messages`` replaces it in place) and then runs;
- ``{"type": "reject", "message"?}`` - the call does not run; an error ToolMessage tells the
  model why;
- ``{"type": "respond", "message"}`` - the call does not run; ``message`` is its result.

Every decision is reported as ``middleware.action`` ``hitl_decision``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, NotRequired, TypeAlias

from typing_extensions import TypedDict

from engine.events import MiddlewareAction
from engine.graph.runtime import Runtime, interrupt
from engine.messages import AIMessage, BaseMessage, ToolCall, ToolMessage
from engine.middleware.retry_policy import Emit, Steps, drive_async, drive_sync
from engine.middleware.types import AgentMiddleware

__all__ = [
    "DECISION_TYPES",
    "ActionRequest",
    "HITLRequest",
    "HumanInTheLoopMiddleware",
    "InterruptOnConfig",
    "ReviewConfig",
]

DecisionType: TypeAlias = Literal["approve", "edit", "reject", "respond"]
DECISION_TYPES: tuple[DecisionType, ...] = ("approve", "edit", "reject", "respond")

DescriptionFactory: TypeAlias = Callable[[ToolCall, Any, Any], str]


class InterruptOnConfig(TypedDict):
    """How one tool is reviewed."""

    allowed_decisions: list[DecisionType]
    description: NotRequired[str | DescriptionFactory]
    """A fixed text, or ``(tool_call, state, runtime) -> str``."""
    args_schema: NotRequired[dict[str, Any]]
    """JSON schema of the arguments, shown to the reviewer when edits are allowed."""


class ActionRequest(TypedDict):
    name: str
    args: dict[str, Any]
    description: str


class ReviewConfig(TypedDict):
    action_name: str
    allowed_decisions: list[DecisionType]
    args_schema: NotRequired[dict[str, Any]]


class HITLRequest(TypedDict):
    action_requests: list[ActionRequest]
    review_configs: list[ReviewConfig]


def _normalise(tool: str, cfg: Any) -> InterruptOnConfig | None:
    if cfg is True:
        return InterruptOnConfig(allowed_decisions=list(DECISION_TYPES))
    if cfg is False or cfg is None:
        return None
    if not isinstance(cfg, Mapping):
        raise ValueError(
            f"interrupt_on[{tool!r}] must be True, False or a dict with 'allowed_decisions', got {cfg!r}"
        )
    allowed = list(cfg.get("allowed_decisions", DECISION_TYPES))
    if not allowed:
        raise ValueError(f"interrupt_on[{tool!r}]: allowed_decisions must not be empty")
    unknown = [d for d in allowed if d not in DECISION_TYPES]
    if unknown:
        raise ValueError(
            f"interrupt_on[{tool!r}]: unknown decision type(s) {unknown}; expected some of {list(DECISION_TYPES)}"
        )
    out = InterruptOnConfig(allowed_decisions=allowed)
    if "description" in cfg:
        out["description"] = cfg["description"]
    if "args_schema" in cfg:
        out["args_schema"] = cfg["args_schema"]
    return out


class HumanInTheLoopMiddleware(AgentMiddleware):
    """Ask a human to approve, edit, reject or answer gated tool calls.

    Args:
        interrupt_on: ``{tool_name: True | False | {"allowed_decisions": [...],
            "description": str | callable, "args_schema": {...}}}``. ``True`` allows every
            decision; ``False`` (or no entry) lets the tool run without review.
        description_prefix: the start of the default description
            (``f"{prefix}\\n\\nTool: {name}\\nArgs: {args}"``).
    """

    def __init__(
        self,
        interrupt_on: Mapping[str, bool | InterruptOnConfig],
        *,
        description_prefix: str = "Tool execution requires approval",
    ) -> None:
        if not isinstance(interrupt_on, Mapping):
            raise ValueError("interrupt_on must be a dict {tool_name: True | False | config}")
        self.interrupt_on: dict[str, InterruptOnConfig] = {}
        for name, cfg in interrupt_on.items():
            resolved = _normalise(name, cfg)
            if resolved is not None:
                self.interrupt_on[name] = resolved
        self.description_prefix = description_prefix
        self.tools = []

    def _description(self, call: ToolCall, cfg: InterruptOnConfig, state: Any, runtime: Any) -> str:
        desc = cfg.get("description")
        if callable(desc):
            return str(desc(call, state, runtime))
        if desc is not None:
            return desc
        return (
            f"{self.description_prefix}\n\nTool: {call.get('name')}\nArgs: {call.get('args', {})}"
        )

    def build_request(self, calls: list[ToolCall], state: Any, runtime: Any) -> HITLRequest:
        """The interrupt payload for the gated ``calls``."""
        actions: list[ActionRequest] = []
        reviews: list[ReviewConfig] = []
        for call in calls:
            cfg = self.interrupt_on[call.get("name", "")]
            actions.append(
                ActionRequest(
                    name=call.get("name", ""),
                    args=dict(call.get("args") or {}),
                    description=self._description(call, cfg, state, runtime),
                )
            )
            review = ReviewConfig(
                action_name=call.get("name", ""), allowed_decisions=list(cfg["allowed_decisions"])
            )
            if "args_schema" in cfg:
                review["args_schema"] = cfg["args_schema"]
            reviews.append(review)
        return HITLRequest(action_requests=actions, review_configs=reviews)

    def _steps(self, state: Any, runtime: Any) -> Steps[dict[str, Any] | None]:
        messages: list[BaseMessage] = list(state.get("messages") or [])
        last_ai = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        if last_ai is None or not last_ai.tool_calls:
            return None
        answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
        gated = [
            c
            for c in last_ai.tool_calls
            if c.get("name", "") in self.interrupt_on and c.get("id") not in answered
        ]
        if not gated:
            return None
        decisions = _decisions_of(interrupt(self.build_request(gated, state, runtime)))
        if len(decisions) != len(gated):
            raise ValueError(
                f"Number of human decisions ({len(decisions)}) does not match number of hanging "
                f"tool calls ({len(gated)})."
            )
        replaced: dict[str | None, ToolCall] = {}
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
                new_call = _edited(call, decision)
                replaced[call.get("id")] = new_call
                detail.update(
                    args=call.get("args", {}),
                    edited_name=new_call.get("name", ""),
                    edited_args=new_call.get("args", {}),
                )
            else:
                answers.append(_answer(call, decision, kind))
                detail["message"] = decision.get("message")
            details.append(detail)
        for detail in details:  # every decision was valid: report them all
            yield Emit(
                MiddlewareAction,
                {"middleware": self.name, "action": "hitl_decision", "detail": detail},
            )
        update: list[BaseMessage] = []
        if replaced:
            calls = [replaced.get(c.get("id"), c) for c in last_ai.tool_calls]
            update.append(last_ai.model_copy(update={"tool_calls": calls}))
        update.extend(answers)
        return {"messages": update} if update else None

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


def _edited(call: ToolCall, decision: Mapping[str, Any]) -> ToolCall:
    action = decision.get("edited_action")
    if not isinstance(action, Mapping):
        raise ValueError(
            f"An edit decision needs 'edited_action': {{'name', 'args'}}, got {dict(decision)}"
        )
    args = action.get("args", action.get("arguments", call.get("args", {})))
    if not isinstance(args, Mapping):
        raise ValueError(f"edited_action['args'] must be a dict, got {args!r}")
    return ToolCall(
        name=str(action.get("name") or call.get("name", "")),
        args=dict(args),
        id=call.get("id"),
        type="tool_call",
    )


def _answer(call: ToolCall, decision: Mapping[str, Any], kind: DecisionType) -> ToolMessage:
    name, call_id = call.get("name", ""), call.get("id") or ""
    message = decision.get("message")
    if kind == "respond":
        if not isinstance(message, str):
            raise ValueError(f"A respond decision needs a 'message' string, got {dict(decision)}")
        return ToolMessage(content=message, tool_call_id=call_id, name=name, status="success")
    if message:
        content = f"User rejected the tool call for `{name}` with reason: {message}"
    else:
        content = (
            f"User rejected the tool call for `{name}` with id {call_id}. The tool was not executed. "
            "Do not retry this tool call unless the user explicitly requests it."
        )
    return ToolMessage(content=content, tool_call_id=call_id, name=name, status="error")
