"""A compiled graph's JSON Schemas (input, output, run context), as LangGraph gives them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, get_args, get_origin

from engine.graph.schema_json import schema_json
from engine.graph.state import schema_fields

if TYPE_CHECKING:
    from engine.graph.builder import StateGraph

__all__ = ["SchemasAPI"]


class SchemasAPI:
    """The schema methods of ``CompiledStateGraph`` (which provides these attributes)."""

    builder: StateGraph
    input_keys: list[str]
    output_keys: list[str]
    name: str

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        """The graph's name (``name`` if given), with ``suffix`` added as LangChain's runnables
        add it: title-cased to a name that starts upper-case (``LangGraphInput``), lower-cased
        after an underscore otherwise (``my_graph_input``)."""
        base = name or self.name or type(self).__name__
        if not suffix:
            return base
        return base + suffix.title() if base[:1].isupper() else f"{base}_{suffix.lower()}"

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

    # the pydantic models LangGraph gives: the input (or state) schema as a root model, and a
    # model of the output keys, each optional
    def get_input_schema(self, config: dict[str, Any] | None = None) -> Any:
        from pydantic import BaseModel, RootModel

        b = self.builder
        schema = b.input_schema if b.input_schema is not None else b.state_schema
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            return schema  # a pydantic schema is its own model
        return type(self.get_name("Input"), (RootModel[schema],), {})  # type: ignore[valid-type]

    def get_output_schema(self, config: dict[str, Any] | None = None) -> Any:
        from pydantic import create_model

        b = self.builder
        schema = b.output_schema if b.output_schema is not None else b.state_schema
        hints = schema_fields(schema)
        keys = list(hints) if b.output_schema is not None else self.output_keys
        fields: dict[str, Any] = {k: (_value_type(hints.get(k, Any)), None) for k in keys}
        return create_model(self.get_name("Output"), **fields)

    @property
    def input_schema(self) -> Any:
        return self.get_input_schema()

    @property
    def output_schema(self) -> Any:
        return self.get_output_schema()

    def get_context_jsonschema(self) -> dict[str, Any] | None:
        """JSON Schema of the run context (``context_schema``), or None without one."""
        ctx = getattr(self.builder, "context_schema", None)
        return None if ctx is None else schema_json(ctx, None, "Context")


def _value_type(annotation: Any) -> Any:
    """A state key's value type (its reducer, if any, left out)."""
    return get_args(annotation)[0] if get_origin(annotation) is Annotated else annotation
