"""JSON Schemas of a graph's input, output and context (``get_input_jsonschema`` ...)."""

from __future__ import annotations

import dataclasses
import functools
import operator
import sys
import types
import typing
from collections.abc import Sequence
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

__all__ = ["schema_json"]


def schema_json(schema: Any, keys: Sequence[str] | None, root_title: str) -> dict[str, Any]:
    """The JSON Schema of ``schema`` (TypedDict, dataclass, pydantic model or any type).

    ``keys`` keeps only those properties of a keyed schema; a schema without keys (a plain
    type such as ``list[int]``) gets ``root_title`` as its title, as LangGraph names it.
    """
    from pydantic import TypeAdapter

    if schema is None or schema is Any:
        return {"title": root_title}
    out = dict(TypeAdapter(_pydantic_ready(schema)).json_schema())
    if dataclasses.is_dataclass(schema) and "required" in out:
        optional = _optional_fields(schema)
        out["required"] = [k for k in out["required"] if k not in optional]
        if not out["required"]:
            del out["required"]
    props = out.get("properties")
    if isinstance(props, dict) and out.get("type") == "object":
        if keys is not None:
            wanted = set(keys)
            out["properties"] = {k: v for k, v in props.items() if k in wanted}
            if "required" in out:
                required = [k for k in out["required"] if k in wanted]
                if required:
                    out["required"] = required
                else:
                    del out["required"]
        return out
    out["title"] = root_title
    return out


def _pydantic_ready(tp: Any) -> Any:
    """``tp`` with every ``typing.TypedDict`` in it rebuilt as a ``typing_extensions`` one:
    pydantic refuses ``typing``'s before Python 3.12, and users write that one."""
    if sys.version_info >= (3, 12):
        return tp
    if typing.is_typeddict(tp) and type(tp).__module__ == "typing":
        import typing_extensions as te

        try:
            hints = get_type_hints(tp, include_extras=True)
        except Exception:  # unresolvable annotations: let pydantic say what is wrong
            return tp
        required = getattr(tp, "__required_keys__", frozenset(hints))
        fields = {
            k: _pydantic_ready(h) if k in required else te.NotRequired[_pydantic_ready(h)]
            for k, h in hints.items()
        }
        rebuilt = te.TypedDict(tp.__name__, fields)  # type: ignore[operator]
        rebuilt.__doc__ = tp.__doc__
        return rebuilt
    args = get_args(tp)
    if not args:
        return tp
    new = tuple(_pydantic_ready(a) for a in args)
    if all(a is b for a, b in zip(args, new, strict=True)):
        return tp
    copy_with = getattr(tp, "copy_with", None)
    if get_origin(tp) is Annotated:
        return Annotated[(new[0], *tp.__metadata__)]  # type: ignore[valid-type]
    if callable(copy_with):
        return copy_with(new)
    origin = get_origin(tp)
    if origin is types.UnionType:
        return functools.reduce(operator.or_, new)
    return types.GenericAlias(origin, new) if origin is not None else tp


def _admits_none(tp: Any) -> bool:
    origin = get_origin(tp)
    if origin is Annotated:
        return _admits_none(get_args(tp)[0])
    if origin is Union or origin is types.UnionType:
        return any(a is type(None) or _admits_none(a) for a in get_args(tp))
    return tp is None or tp is type(None)


def _optional_fields(schema: Any) -> set[str]:
    """Dataclass fields typed ``X | None``: LangGraph does not require them in input."""
    try:
        hints = get_type_hints(schema, include_extras=True)
    except Exception:  # unresolvable annotations: keep pydantic's view
        return set()
    return {k for k, tp in hints.items() if _admits_none(tp)}
