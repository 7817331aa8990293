"""A compiled graph's JSON Schemas (input, output, run context), as LangGraph gives them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.graph.schema_json import schema_json

if TYPE_CHECKING:
    from engine.graph.builder import StateGraph

__all__ = ["SchemasAPI"]


class SchemasAPI:
    """The schema methods of ``CompiledStateGraph`` (which provides these attributes)."""

    builder: StateGraph
    input_keys: list[str]
    output_keys: list[str]

    def get_input_jsonschema(self, config: dict[str, Any] | None = None) -> dict[str, Any]:
        """JSON Schema of the graph's input (the input schema, else the state schema)."""
        b = self.builder
        if b.input_schema is not None:
            return schema_json(b.input_schema, None, "LangGraphInput")
        return schema_json(b.state_schema, self.input_keys, "LangGraphInput")

    def get_output_jsonschema(self, config: dict[str, Any] | None = None) -> dict[str, Any]:
        """JSON Schema of the graph's output (the output schema, else the state schema)."""
        b = self.builder
        if b.output_schema is not None:
            return schema_json(b.output_schema, None, "LangGraphOutput")
        return schema_json(b.state_schema, self.output_keys, "LangGraphOutput")

    def get_context_jsonschema(self) -> dict[str, Any] | None:
        """JSON Schema of the run context (``context_schema``), or None without one."""
        ctx = getattr(self.builder, "context_schema", None)
        return None if ctx is None else schema_json(ctx, None, "Context")
