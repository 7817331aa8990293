"""A ``Plan`` as a model's structured output: the response format and the reply parser."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from pydantic import ValidationError

from engine.messages import BaseMessage
from engine.plan.schema import Plan

__all__ = ["PlanParseError", "parse_plan", "plan_response_format"]

_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*?)\n?```\s*$", re.S)
PREVIEW_CHARS = 200


class PlanParseError(ValueError):
    """The model's reply is not a usable plan (not JSON, invalid, or naming unknown tools)."""


def plan_response_format() -> dict[str, Any]:
    """The OpenAI-style ``response_format`` asking a model for a ``Plan``."""
    return {
        "type": "json_schema",
        "json_schema": {"name": "Plan", "schema": Plan.model_json_schema()},
    }


def _preview(text: str) -> str:
    text = text.strip()
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"


def _validation_problems(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        msg = str(err["msg"]).removeprefix("Value error, ")
        loc = ".".join(str(x) for x in err["loc"])
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)


def parse_plan(reply: BaseMessage | str, tools: Collection[str] | None = None) -> Plan:
    """The ``Plan`` in a model's reply (JSON, optionally in a code fence).

    With ``tools``, a step naming a tool outside it is an error too.  Raises
    ``PlanParseError`` with a message fit to show a user.
    """
    text = reply.text if isinstance(reply, BaseMessage) else reply
    fenced = _FENCE.match(text)
    if fenced is not None:
        text = fenced.group(1)
    if not text.strip():
        raise PlanParseError("The model replied without a plan (empty content)")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PlanParseError(
            f"The model's plan is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}): "
            f"{_preview(text)!r}"
        ) from None
    try:
        plan = Plan.model_validate(data)
    except ValidationError as exc:
        raise PlanParseError(f"The model's plan is invalid: {_validation_problems(exc)}") from None
    if tools is not None:
        known = set(tools)
        unknown = [
            f"{plan.describe(i)} uses '{s.tool}'"
            for i, s in enumerate(plan.steps)
            if s.tool not in known
        ]
        if unknown:
            available = ", ".join(sorted(known)) or "none"
            raise PlanParseError(
                f"The model's plan uses unknown tools: {'; '.join(unknown)} (available: {available})"
            )
    return plan
