"""How one structured-output schema is bound to a model and read back (upstream's names).

``OutputToolBinding``: the schema as a tool the model calls (``ToolStrategy``);
``ProviderStrategyBinding``: the schema as the provider's native JSON output
(``ProviderStrategy``).  Both parse what the model produced into an instance of the schema.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engine.agents.structured import SchemaKind, SchemaSpec
from engine.messages import AIMessage
from engine.tools import BaseTool

__all__ = ["OutputToolBinding", "ProviderStrategyBinding"]


def _spec_for(schema: Any) -> SchemaSpec:
    return SchemaSpec(schema)


@dataclass
class OutputToolBinding:
    """A schema and the tool the model is asked to call with its fields."""

    schema: Any
    schema_kind: SchemaKind
    tool: BaseTool

    @classmethod
    def from_schema_spec(cls, spec: SchemaSpec) -> OutputToolBinding:
        tool = BaseTool(name=spec.name, description=spec.description, args_schema=spec.json_schema)
        return cls(schema=spec.schema, schema_kind=spec.schema_kind, tool=tool)

    def parse(self, tool_args: dict[str, Any]) -> Any:
        """An instance of the schema from the tool call's arguments (raises on mismatch)."""
        return _spec_for(self.schema).parse(tool_args)


@dataclass
class ProviderStrategyBinding:
    """A schema the provider enforces natively; the reply's text is its JSON."""

    schema: Any
    schema_kind: SchemaKind

    @classmethod
    def from_schema_spec(cls, spec: SchemaSpec) -> ProviderStrategyBinding:
        return cls(schema=spec.schema, schema_kind=spec.schema_kind)

    def parse(self, response: AIMessage) -> Any:
        """An instance of the schema from the reply's JSON text (``ValueError`` if invalid)."""
        raw = _text_of(response)
        try:
            data = json.loads(raw)
        except ValueError as exc:
            name = getattr(self.schema, "__name__", "response_format")
            raise ValueError(
                f"Native structured output expected valid JSON for {name}, "
                f"but parsing failed: {exc}."
            ) from exc
        return _spec_for(self.schema).parse(data)


def _text_of(message: AIMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    parts: list[str] = []
    for block in message.content:
        if isinstance(block, dict):
            if block.get("type") == "text" and "text" in block:
                parts.append(str(block["text"]))
            elif isinstance(block.get("content"), str):
                parts.append(block["content"])
        else:
            parts.append(str(block))
    return "".join(parts)
