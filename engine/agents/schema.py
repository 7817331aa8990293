"""The agent's state schema: every middleware's ``state_schema`` merged with the base.

Schemas are merged in list order with the base (the user's ``state_schema``, else
``AgentState``) last, so for a key defined twice the later definition wins.  As LangChain's,
a user's schema stands in for ``AgentState``: its keys (``messages``, ``jump_to``,
``structured_response``) are the state's only if that schema or a middleware's has them (a
TypedDict schema usually extends ``AgentState``; a pydantic one names its own).
Field markers travel with the annotations: ``OmitFromInput`` keys cannot be given as input,
``OmitFromOutput`` keys are left out of the result, ``PrivateStateAttr`` keys are both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

from typing_extensions import is_typeddict

from engine.graph.state import schema_fields
from engine.middleware.types import AgentMiddleware, AgentState

__all__ = ["merge_state_schema"]


def merge_state_schema(middleware: Sequence[AgentMiddleware], state_schema: Any = None) -> Any:
    """One TypedDict with the fields of every schema involved (see the module docstring)."""
    schemas: list[Any] = []
    for m in middleware:
        s = getattr(m, "state_schema", None) or AgentState
        if s not in schemas:
            schemas.append(s)
    base = [AgentState if state_schema is None else state_schema]
    schemas = [s for s in schemas if s not in base] + base
    if len(schemas) == 1 and is_typeddict(schemas[0]):
        return schemas[0]  # a pydantic model or a dataclass becomes a TypedDict, as LangChain's
    fields: dict[str, Any] = {}
    for s in schemas:
        fields.update(schema_fields(s))
    return TypedDict("AgentState", fields, total=False)  # type: ignore[operator]
