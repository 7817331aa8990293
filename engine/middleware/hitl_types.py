"""The shapes ``HumanInTheLoopMiddleware`` exchanges with the reviewer (LangChain v1's names).

Batched mode interrupts once per model turn with a ``HITLRequest`` and is resumed with a
``HITLResponse`` (one ``Decision`` per gated call, in order). Per-call mode interrupts once
per gated call with a ``ToolApprovalRequest`` and is resumed with a single ``Decision``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, NotRequired, TypeAlias

from typing_extensions import TypedDict

from engine.messages import ToolCall, ToolMessage

__all__ = [
    "DECISION_TYPES",
    "INTERRUPT_MODES",
    "Action",
    "ActionRequest",
    "ApproveDecision",
    "Decision",
    "DecisionType",
    "EditDecision",
    "HITLRequest",
    "HITLResponse",
    "InterruptMode",
    "InterruptOnConfig",
    "RejectDecision",
    "RespondDecision",
    "ReviewConfig",
    "ToolApprovalRequest",
    "answer_message",
]

DecisionType: TypeAlias = Literal["approve", "edit", "reject", "respond"]
DECISION_TYPES: tuple[DecisionType, ...] = ("approve", "edit", "reject", "respond")

InterruptMode: TypeAlias = Literal["batched", "per_call"]
"""``"batched"``: one interrupt per model turn; ``"per_call"``: one per gated tool call."""
INTERRUPT_MODES: tuple[InterruptMode, ...] = ("batched", "per_call")

DescriptionFactory: TypeAlias = Callable[[ToolCall, Any, Any], str]


class Action(TypedDict):
    """A tool call as a reviewer sees or rewrites it."""

    name: str
    args: dict[str, Any]


class ActionRequest(TypedDict):
    """One gated call in a batched interrupt."""

    name: str
    args: dict[str, Any]
    description: NotRequired[str]


class ReviewConfig(TypedDict):
    """Which decisions the reviewer may take for one gated call."""

    action_name: str
    allowed_decisions: list[DecisionType]
    args_schema: NotRequired[dict[str, Any]]


class HITLRequest(TypedDict):
    """The value of a batched interrupt."""

    action_requests: list[ActionRequest]
    review_configs: list[ReviewConfig]


class ApproveDecision(TypedDict):
    """Run the call as the model wrote it."""

    type: Literal["approve"]


class EditDecision(TypedDict):
    """Run ``edited_action`` instead of the model's call."""

    type: Literal["edit"]
    edited_action: Action


class RejectDecision(TypedDict):
    """Do not run the call; ``message`` (optional) tells the model why."""

    type: Literal["reject"]
    message: NotRequired[str]


class RespondDecision(TypedDict):
    """Do not run the call; ``message`` is returned to the model as its result."""

    type: Literal["respond"]
    message: str


Decision: TypeAlias = ApproveDecision | EditDecision | RejectDecision | RespondDecision


class HITLResponse(TypedDict):
    """The resume value of a batched interrupt."""

    decisions: list[Decision]


class ToolApprovalRequest(TypedDict):
    """The value of a per-call interrupt (answered with one ``Decision``)."""

    type: Literal["tool_approval"]
    tool_call_id: str
    name: str
    args: dict[str, Any]
    description: str


class InterruptOnConfig(TypedDict):
    """How one tool is reviewed."""

    allowed_decisions: list[DecisionType]
    description: NotRequired[str | DescriptionFactory]
    """A fixed text, or ``(tool_call, state, runtime) -> str``."""
    args_schema: NotRequired[dict[str, Any]]
    when: NotRequired[Callable[[Any], bool]]
    """``(ToolCallRequest) -> bool``: False lets this call run without review."""


def answer_message(call: ToolCall | Mapping[str, Any], decision: Mapping[str, Any]) -> ToolMessage:
    """The ToolMessage given to the model instead of running a rejected/answered call."""
    name, call_id = str(call.get("name", "")), call.get("id") or ""
    message = decision.get("message")
    if decision.get("type") == "respond":
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
