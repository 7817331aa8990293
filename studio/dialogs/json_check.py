"""JSON text and JSON-schema checks for the dialogs' editors (plain Python, no Qt)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["check_json_schema", "json_kind", "parse_json_object", "parse_json_value"]

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def _type_ok(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _JSON_TYPES.get(kind, (object,)))


def check_json_schema(value: Any, schema: Mapping[str, Any], path: str = "") -> list[str]:
    """The ways ``value`` breaks ``schema`` (the JSON Schema subset tool schemas use).

    Understood: ``type`` (one or a list), ``enum``, ``const``, ``anyOf``/``oneOf``,
    ``properties``, ``required``, ``additionalProperties: false``, ``items``, ``minLength``,
    ``maxLength``, ``minimum``, ``maximum``, ``minItems``, ``maxItems``; ``$ref`` into ``$defs``.
    """
    return _check(value, schema, path or "args", schema)


def _check(value: Any, schema: Mapping[str, Any], path: str, root: Mapping[str, Any]) -> list[str]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, Mapping) else {}
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            results = [_check(value, opt, path, root) for opt in options]
            if not any(not r for r in results):
                return min(results, key=len)
    kinds = schema.get("type")
    if kinds is not None:
        allowed = [kinds] if isinstance(kinds, str) else list(kinds)
        if not any(_type_ok(value, k) for k in allowed):
            return [f"{path}: expected {' or '.join(allowed)}, got {json_kind(value)}"]
    if "enum" in schema and value not in schema["enum"]:
        options = ", ".join(json.dumps(v) for v in schema["enum"])
        return [f"{path}: must be one of {options}"]
    if "const" in schema and value != schema["const"]:
        return [f"{path}: must be {json.dumps(schema['const'])}"]
    problems: list[str] = []
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            problems.append(f"{path}: must have at least {schema['minLength']} character(s)")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            problems.append(f"{path}: must have at most {schema['maxLength']} character(s)")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            problems.append(f"{path}: must be at least {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            problems.append(f"{path}: must be at most {schema['maximum']}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            problems.append(f"{path}: needs at least {schema['minItems']} item(s)")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            problems.append(f"{path}: allows at most {schema['maxItems']} item(s)")
        items = schema.get("items")
        if isinstance(items, Mapping):
            for i, item in enumerate(value):
                problems += _check(item, items, f"{path}[{i}]", root)
    if isinstance(value, dict):
        props: Mapping[str, Any] = schema.get("properties") or {}
        for name in schema.get("required") or []:
            if name not in value:
                problems.append(f"{_join(path, name)}: required")
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in props:
                problems += _check(item, props[name], _join(path, name), root)
            elif extra is False:
                known = ", ".join(props) or "none"
                problems.append(f"{_join(path, name)}: unknown argument (expected: {known})")
            elif isinstance(extra, Mapping):
                problems += _check(item, extra, _join(path, name), root)
    return problems


def _join(path: str, name: str) -> str:
    return name if path == "args" else f"{path}.{name}"


def json_kind(value: Any) -> str:
    for kind in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _type_ok(value, kind) and not (kind == "integer" and isinstance(value, float)):
            return kind
    return type(value).__name__


def parse_json_object(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """``(object, None)`` for JSON text holding an object, else ``(None, error message)``."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"Not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
    if not isinstance(value, dict):
        return None, f"The arguments must be a JSON object, not {json_kind(value)}"
    return value, None


def parse_json_value(text: str) -> tuple[Any, str | None]:
    """``(value, None)`` for valid JSON text, else ``(None, error message)``."""
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"Not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
