"""Per-call review for ``HumanInTheLoopMiddleware(interrupt_mode="per_call")``.

Each gated call interrupts as it starts (inside ``wrap_tool_call``) with a
``ToolApprovalRequest``; the interrupt's ``response_schema`` accepts only the decisions that
tool allows, and an edit must keep the tool's name and follow its argument schema (args the
tool does not declare pass through; the tool validates the args itself when it runs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal, Protocol, Union, cast

from pydantic import BaseModel, Discriminator, WithJsonSchema, WrapValidator
from pydantic import create_model as _create_model

from engine.events import MiddlewareAction
from engine.graph.runtime import Runtime, get_runtime
from engine.messages import ToolCall, ToolMessage
from engine.middleware.hitl_edits import apply_edit
from engine.middleware.hitl_types import (
    ApproveDecision,
    DecisionType,
    InterruptOnConfig,
    RejectDecision,
    RespondDecision,
    ToolApprovalRequest,
    answer_message,
)
from engine.middleware.retry_policy import Emit, Steps
from engine.middleware.types import ToolCallRequest

__all__ = ["decision_schema", "review"]

create_model: Any = _create_model


def _args_model(tool: Any) -> Any:
    """The edit's ``args`` type: the tool's model-facing pydantic schema, if it has one."""
    schema = getattr(tool, "args_schema", None)
    if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
        shown = schema if isinstance(schema, dict) else {"type": "object"}
        return Annotated[dict[str, Any], WithJsonSchema(shown)]
    injected = set(getattr(tool, "injected", {}) or {})
    fields = {
        k: (f.annotation, f)
        for k, f in schema.model_fields.items()
        if k not in injected and f.annotation is not None
    }
    doc = getattr(tool, "description", None) or schema.__doc__
    return create_model(getattr(tool, "name", schema.__name__), __doc__=doc, **fields)


def _checked_as_sent(value: object, check: Any) -> object:
    check(value)  # validate, but hand on the answer as given: the tool validates args itself
    return value


def _edit_decision(name: str, tool: Any) -> object:
    action = create_model("EditedAction", name=(Literal[name], ...), args=(_args_model(tool), ...))
    decision = create_model(
        "EditDecision", type=(Literal["edit"], ...), edited_action=(action, ...)
    )
    return Annotated[decision, WrapValidator(_checked_as_sent)]


def decision_schema(allowed: Sequence[DecisionType], name: str, tool: Any = None) -> Any:
    """The type a per-call answer must match: one branch per allowed decision, on ``type``."""
    by_type: dict[str, object] = {
        "approve": ApproveDecision,
        "reject": RejectDecision,
        "respond": RespondDecision,
    }
    if "edit" in allowed:
        by_type["edit"] = _edit_decision(name, tool)
    members = tuple(by_type[d] for d in dict.fromkeys(allowed))
    if len(members) == 1:
        return members[0]
    return Annotated[Union[members], Discriminator("type")]  # noqa: UP007


class Reviewer(Protocol):
    """What per-call review needs of ``HumanInTheLoopMiddleware`` (``engine.middleware.hitl``)."""

    interrupt_on: dict[str, InterruptOnConfig]

    @property
    def name(self) -> str: ...

    def describe(
        self, call: ToolCall, cfg: InterruptOnConfig, state: Any, runtime: Runtime[Any] | None
    ) -> str: ...

    def ask_human(self, value: Any, response_schema: Any = None) -> Any:
        """Interrupt with ``value``; the human's answer (checked against the schema)."""
        ...


def _ask(mw: Reviewer, value: ToolApprovalRequest, schema: Any) -> dict[str, Any]:
    return cast("dict[str, Any]", mw.ask_human(value, schema))


def review(mw: Reviewer, request: ToolCallRequest) -> Steps[ToolCallRequest | ToolMessage]:
    """Ask about ``request`` if its tool is gated: the request to run, or the answer to return."""
    call = request.tool_call
    name = str(call.get("name", ""))
    cfg = mw.interrupt_on.get(name)
    if cfg is None:
        return request
    when = cfg.get("when")
    if when is not None and not when(request):
        return request
    call_id = call.get("id")
    if call_id is None:
        raise ValueError(
            f"Tool call `{name}` has no ID, so its result can't be matched to it. Make sure "
            "the chat model returns tool call IDs."
        )
    runtime = get_runtime()
    value = ToolApprovalRequest(
        type="tool_approval",
        tool_call_id=call_id,
        name=name,
        args=call.get("args") or {},
        description=mw.describe(call, cfg, request.state, runtime),
    )
    decision = _ask(mw, value, decision_schema(cfg["allowed_decisions"], name, request.tool))
    kind = decision["type"]
    detail: dict[str, Any] = {"tool": name, "tool_call_id": call_id, "decision": kind}
    if kind in ("reject", "respond"):
        detail["message"] = decision.get("message")
    if kind == "edit":
        action = decision["edited_action"]
        detail.update(
            args=call.get("args", {}), edited_name=action["name"], edited_args=action["args"]
        )
    yield Emit(
        MiddlewareAction, {"middleware": mw.name, "action": "hitl_decision", "detail": detail}
    )
    if kind == "approve":
        return request
    if kind == "edit":
        return apply_edit(request, decision["edited_action"])
    return answer_message(call, decision)
