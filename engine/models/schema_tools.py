"""A schema class (pydantic model, dataclass, TypedDict) as a tool a model can call.

``bind_tools([Weather])`` binds such a class the way LangChain does: the tool's name is the
class name, its description the docstring, its parameters the class's JSON schema.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

import typing_extensions
from pydantic import BaseModel, TypeAdapter

__all__ = ["is_schema_class", "pydantic_friendly", "schema_class_tool"]


def is_schema_class(cls: type) -> bool:
    return issubclass(cls, BaseModel) or dataclasses.is_dataclass(cls) or typing.is_typeddict(cls)


def pydantic_friendly(schema: Any) -> Any:
    """pydantic needs ``typing_extensions.TypedDict`` before Python 3.12: rebuild a
    ``typing.TypedDict`` as one (same name, fields, docstring)."""
    if not typing.is_typeddict(schema) or type(schema).__module__ != "typing":
        return schema
    make: Any = typing_extensions.TypedDict
    fields = typing.get_type_hints(schema, include_extras=True)
    clone = make(schema.__name__, fields, total=schema.__total__)
    clone.__doc__ = schema.__doc__
    return clone


def schema_class_tool(cls: type) -> dict[str, Any]:
    """``{"name", "description", "parameters"}`` of a schema class."""
    if issubclass(cls, BaseModel):
        parameters = cls.model_json_schema()
    else:
        parameters = TypeAdapter(pydantic_friendly(cls)).json_schema()
    parameters.pop("title", None)
    parameters.setdefault("type", "object")
    description = (cls.__doc__ or "").strip()
    if dataclasses.is_dataclass(cls) and description.startswith(f"{cls.__name__}("):
        description = ""  # the generated dataclass docstring is not a description
    return {"name": cls.__name__, "description": description, "parameters": parameters}
