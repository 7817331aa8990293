"""A human-in-the-loop approval as a plain object: the requests, the decisions, the outcome.

``ApprovalRequest`` is built from the value of a ``HumanInTheLoopMiddleware`` interrupt

    {"action_requests": [{"name", "args", "description"}, ...],
     "review_configs": [{"action_name", "allowed_decisions", "args_schema"?}, ...]}

and holds one ``ActionReview`` per action request.  Each review takes one decision among those
its review config allows (approve, edit with arguments checked against the tool's schema,
reject with an optional reason, respond with a message).  ``submit()`` turns the decisions, in
order, into exactly ``Command(resume={"decisions": [...]})``; ``cancel()`` answers nothing
(the run stays paused at the interrupt).  Both are *outcomes*: the ``answered`` / ``cancelled``
signals fire and the future returned by ``future()`` resolves, so a widget renders the request
and the caller awaits it (no nested event loop).  No Qt here: this is tested without windows.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard

from engine.tools import BaseTool, ToolArgsValidationError
from engine.types import Command
from studio.dialogs.json_check import check_json_schema, json_kind, parse_json_object

__all__ = [
    "DECISION_LABELS",
    "DECISION_TYPES",
    "ActionReview",
    "Answerable",
    "ApprovalError",
    "ApprovalRequest",
    "ArgsCheck",
    "Outcome",
    "allowed_in_schema",
    "args_check_for",
    "is_hitl_request",
    "is_per_call_request",
]

DecisionType = Literal["approve", "edit", "reject", "respond"]
DECISION_TYPES: tuple[DecisionType, ...] = ("approve", "edit", "reject", "respond")
DECISION_LABELS: dict[str, str] = {
    "approve": "Approve",
    "edit": "Edit",
    "reject": "Reject",
    "respond": "Respond",
}

ArgsCheck = Callable[[dict[str, Any]], list[str]]
"""Checks tool arguments; returns the problems (empty when they are valid)."""


class ApprovalError(ValueError):
    """A decision or a submission that is not valid (the message says why, for the user)."""


class Outcome:
    """A tiny Qt-free signal: ``connect(callback)`` returns a disconnect function."""

    def __init__(self) -> None:
        self._slots: list[Callable[..., Any]] = []

    def connect(self, callback: Callable[..., Any]) -> Callable[[], None]:
        self._slots.append(callback)

        def disconnect() -> None:
            if callback in self._slots:
                self._slots.remove(callback)

        return disconnect

    def emit(self, *args: Any) -> None:
        for slot in list(self._slots):
            slot(*args)


class Answerable:
    """Something the user answers once, or dismisses: ``answered(result)`` / ``cancelled()``
    fire, and ``future()`` resolves with the result (None when cancelled)."""

    def __init__(self) -> None:
        self.state: Literal["open", "answered", "cancelled"] = "open"
        self.answered = Outcome()
        """Fires ``(result)`` when the request is answered."""
        self.cancelled = Outcome()
        """Fires ``()`` when the request is dismissed without an answer."""
        self._future: asyncio.Future[Any] | None = None
        self._result: Any = None

    def _answer(self, result: Any) -> None:
        if self.state != "open":
            raise ApprovalError(f"This request was already {self.state}")
        self._finish("answered", result)
        self.answered.emit(result)

    def cancel(self) -> None:
        """Answer later: nothing is resumed; the run stays paused where it is."""
        if self.state != "open":
            return
        self._finish("cancelled", None)
        self.cancelled.emit()

    def _finish(self, state: Literal["answered", "cancelled"], result: Any) -> None:
        self.state = state
        self._result = result
        if self._future is not None and not self._future.done():
            self._future.set_result(result)

    def future(self) -> asyncio.Future[Any]:
        """Resolves with the answer, or None when cancelled (created on the running loop)."""
        if self._future is None:
            self._future = asyncio.get_running_loop().create_future()
            if self.state != "open":
                self._future.set_result(self._result)
        return self._future

    async def wait(self) -> Any:
        return await self.future()


def is_hitl_request(value: object) -> TypeGuard[Mapping[str, Any]]:
    """True for the value of a ``HumanInTheLoopMiddleware`` interrupt: a batch (one interrupt
    per AI turn) or one call (``interrupt_mode="per_call"``)."""
    return is_per_call_request(value) or (
        isinstance(value, Mapping)
        and isinstance(value.get("action_requests"), list)
        and isinstance(value.get("review_configs"), list)
    )


def is_per_call_request(value: object) -> TypeGuard[Mapping[str, Any]]:
    """``{"type": "tool_approval", "tool_call_id", "name", "args", "description"}``."""
    return (
        isinstance(value, Mapping)
        and value.get("type") == "tool_approval"
        and isinstance(value.get("name"), str)
    )


def allowed_in_schema(schema: Any) -> tuple[str, ...]:
    """The decision types a per-call interrupt's ``response_schema`` accepts (its ``type``
    constants), in our order; every type when the schema does not say."""
    if schema is not None and not isinstance(schema, Mapping):
        dump = getattr(schema, "model_json_schema", None)
        if callable(dump):
            schema = dump()
        else:
            try:
                from pydantic import TypeAdapter

                schema = TypeAdapter(schema).json_schema()
            except Exception:
                schema = None
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, Mapping):
            kind = node.get("properties", {}).get("type") if "properties" in node else None
            if isinstance(kind, Mapping):
                for value in (kind.get("const"), *(kind.get("enum") or ())):
                    if isinstance(value, str):
                        found.add(value)
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(schema)
    allowed = tuple(d for d in DECISION_TYPES if d in found)
    return allowed or DECISION_TYPES


# -- argument checking ------------------------------------------------------------------------


def args_check_for(tool: BaseTool | None, schema: Mapping[str, Any] | None = None) -> ArgsCheck:
    """A check for a tool's arguments: its JSON schema (``schema``, else the tool's model-facing
    ``parameters_json_schema``, with unknown argument names refused) and then the tool's own
    ``validate_args`` (the pydantic model the tool node validates with)."""
    js: Mapping[str, Any] | None = schema
    if js is None and tool is not None:
        js = tool.parameters_json_schema
    if js is not None and "additionalProperties" not in js and js.get("properties"):
        js = {**js, "additionalProperties": False}

    def check(args: dict[str, Any]) -> list[str]:
        problems = check_json_schema(args, js) if js is not None else []
        if not problems and tool is not None:
            try:
                tool.validate_args(args)
            except ToolArgsValidationError as exc:
                problems = [f"{loc}: {msg}" for loc, msg in exc.errors]
        return problems

    return check


# -- one action request -----------------------------------------------------------------------


@dataclass
class ActionReview:
    """One action request of the interrupt and the decision taken on it (None = undecided)."""

    index: int
    name: str
    args: dict[str, Any]
    description: str
    allowed: tuple[str, ...]
    check: ArgsCheck | None = None
    schema: dict[str, Any] | None = None
    decision: dict[str, Any] | None = None
    changed: Outcome = field(default_factory=Outcome, repr=False, compare=False)
    """Fires ``(review)`` whenever the decision changes."""

    def allows(self, kind: str) -> bool:
        return kind in self.allowed

    @property
    def kind(self) -> str | None:
        """The type of the decision taken, or None."""
        return None if self.decision is None else str(self.decision["type"])

    def _require(self, kind: str) -> None:
        if kind not in self.allowed:
            allowed = ", ".join(self.allowed)
            raise ApprovalError(f"'{kind}' is not allowed for {self.name} (allowed: {allowed})")

    def _set(self, decision: dict[str, Any] | None) -> None:
        if decision != self.decision:
            self.decision = decision
            self.changed.emit(self)

    def approve(self) -> None:
        self._require("approve")
        self._set({"type": "approve"})

    def problems(self, args: Any) -> list[str]:
        """Why ``args`` (a dict, or JSON text) cannot replace the arguments; empty when it can."""
        if isinstance(args, str):
            parsed, error = parse_json_object(args)
            if error is not None:
                return [error]
            args = parsed
        if not isinstance(args, dict):
            return [f"The arguments must be a JSON object, not {json_kind(args)}"]
        return self.check(args) if self.check is not None else []

    def edit(self, args: dict[str, Any] | str) -> None:
        """Run the call with other arguments (a dict or JSON text); raises ``ApprovalError``
        listing the problems when they do not fit the tool's schema."""
        self._require("edit")
        problems = self.problems(args)
        if problems:
            raise ApprovalError("\n".join(problems))
        value = json.loads(args) if isinstance(args, str) else dict(args)
        self._set({"type": "edit", "edited_action": {"name": self.name, "args": value}})

    def reject(self, reason: str | None = None) -> None:
        """Do not run the call; the model is told so (and why, when ``reason`` is given)."""
        self._require("reject")
        reason = (reason or "").strip()
        self._set({"type": "reject", "message": reason} if reason else {"type": "reject"})

    def respond(self, message: str) -> None:
        """Do not run the call; ``message`` is given to the model as its result."""
        self._require("respond")
        if not message.strip():
            raise ApprovalError(f"A response to {self.name} needs a message")
        self._set({"type": "respond", "message": message})

    def clear(self) -> None:
        self._set(None)


# -- the whole request ------------------------------------------------------------------------


class ApprovalRequest(Answerable):
    """An HITL interrupt awaiting decisions; see the module docstring.

    ``tools`` maps tool names to the agent's tools so edited arguments are checked against
    their schemas (a ``review_configs[i]["args_schema"]`` takes precedence).
    """

    def __init__(
        self,
        value: Mapping[str, Any],
        *,
        interrupt_id: str | None = None,
        tools: Mapping[str, BaseTool] | None = None,
        response_schema: Any = None,
    ) -> None:
        self.per_call = is_per_call_request(value)
        """One call reviewed as it starts: the answer is one decision, not a list."""
        if self.per_call:
            value = {
                "action_requests": [
                    {
                        "name": value["name"],
                        "args": value.get("args") or {},
                        "description": value.get("description") or "",
                    }
                ],
                "review_configs": [
                    {
                        "action_name": value["name"],
                        "allowed_decisions": list(allowed_in_schema(response_schema)),
                    }
                ],
            }
        if not is_hitl_request(value):
            raise ApprovalError(
                "Not a human-in-the-loop request: expected {'action_requests': [...], "
                "'review_configs': [...]}"
            )
        super().__init__()
        self.value = value
        self.interrupt_id = interrupt_id
        self.changed = Outcome()
        """Fires ``(review)`` when any decision changes."""
        configs = _configs_by_action(value["review_configs"])
        tools = tools or {}
        self.actions: list[ActionReview] = []
        for i, req in enumerate(value["action_requests"]):
            if not isinstance(req, Mapping) or not isinstance(req.get("name"), str):
                raise ApprovalError(f"action_requests[{i}] needs a tool 'name'")
            name = req["name"]
            config = configs.get(name, {})
            allowed = tuple(d for d in config.get("allowed_decisions", ()) if d in DECISION_TYPES)
            if not allowed:
                raise ApprovalError(f"No review config allows any decision for {name}")
            schema = config.get("args_schema")
            tool = tools.get(name)
            review = ActionReview(
                index=i,
                name=name,
                args=dict(req.get("args") or {}),
                description=str(req.get("description") or ""),
                allowed=allowed,
                check=args_check_for(tool, schema) if tool is not None or schema else None,
                schema=dict(schema) if schema else (tool.parameters_json_schema if tool else None),
            )
            review.changed.connect(self.changed.emit)
            self.actions.append(review)
        if not self.actions:
            raise ApprovalError("The request has no action to review")

    # -- decisions --------------------------------------------------------------------------

    @property
    def can_approve_all(self) -> bool:
        """Every call still undecided may be approved (decided ones are left as they are)."""
        return all(self.actions[i].allows("approve") for i in self.undecided())

    def approve_all(self) -> None:
        """Approve every call still undecided; a decision already taken (a reject, a response,
        an edit) is never overridden."""
        if not self.can_approve_all:
            blocked = ", ".join(
                self.actions[i].name
                for i in self.undecided()
                if not self.actions[i].allows("approve")
            )
            raise ApprovalError(f"Approval is not allowed for {blocked}")
        for i in self.undecided():
            self.actions[i].approve()

    # -- drafts (answer later, keep what was decided) -----------------------------------------

    def draft(self) -> list[dict[str, Any] | None]:
        """The decisions taken so far (None where undecided), to restore when reopened."""
        return [None if a.decision is None else dict(a.decision) for a in self.actions]

    def restore(self, draft: Sequence[Mapping[str, Any] | None]) -> None:
        """Take back the decisions of ``draft`` (from ``draft()`` on the same interrupt)."""
        for action, decision in zip(self.actions, draft, strict=False):
            if decision is not None and action.allows(str(decision.get("type"))):
                action._set(dict(decision))

    def undecided(self) -> list[int]:
        return [a.index for a in self.actions if a.decision is None]

    @property
    def complete(self) -> bool:
        return not self.undecided()

    def decisions(self) -> list[dict[str, Any]]:
        """One decision per action request, in order (raises while some are undecided)."""
        missing = self.undecided()
        if missing:
            names = ", ".join(f"{i + 1}. {self.actions[i].name}" for i in missing)
            raise ApprovalError(f"Decide on every action first (undecided: {names})")
        return [dict(a.decision or {}) for a in self.actions]

    # -- outcomes ---------------------------------------------------------------------------

    def submit(self) -> Command:
        """Answer with the decisions: ``Command(resume={"decisions": [...]})``."""
        if self.state != "open":
            raise ApprovalError(f"This request was already {self.state}")
        decisions = self.decisions()
        command = Command(resume=decisions[0] if self.per_call else {"decisions": decisions})
        self._answer(command)
        return command


def _configs_by_action(configs: Sequence[Any]) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    for cfg in configs:
        if isinstance(cfg, Mapping) and isinstance(cfg.get("action_name"), str):
            out.setdefault(cfg["action_name"], cfg)
    return out
