"""The input form of a graph, from the JSON Schema of its input (``Target.input_schema()``) or
of its run context (``Target.context_schema()``).  Plain Python, no Qt.

Each property of an object schema is a field: text, a whole number, a number, a yes/no, one of
a list (``enum`` / ``Literal``), or JSON for what a form cannot express (lists, objects,
unions, messages).  Required fields, defaults and types are checked before the run starts, with
one line per problem; the JSON tab edits the whole input at once, for anything else.

    form = InputForm.from_schema(schema)
    value, problems = form.parse({"topic": "cats", "words": "30"})
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["MISSING", "FieldKind", "FormField", "InputForm"]

FieldKind = Literal["text", "integer", "number", "boolean", "choice", "json"]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""No default."""

_SIMPLE: dict[str, FieldKind] = {
    "string": "text",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
}


def _unwrap_optional(prop: Mapping[str, Any]) -> tuple[Mapping[str, Any], bool]:
    """``Optional[X]`` (``anyOf: [X, null]``) as (X, nullable)."""
    options = prop.get("anyOf") or prop.get("oneOf")
    if isinstance(options, list):
        rest = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
        if len(rest) == 1 and len(rest) < len(options) and isinstance(rest[0], dict):
            merged = {**rest[0], **{k: v for k, v in prop.items() if k not in ("anyOf", "oneOf")}}
            return merged, True
    return prop, False


@dataclass(frozen=True)
class FormField:
    """One field of the form."""

    name: str
    title: str
    kind: FieldKind
    required: bool = False
    default: Any = MISSING
    description: str = ""
    choices: tuple[Any, ...] = ()
    nullable: bool = False

    @classmethod
    def of(cls, name: str, prop: Mapping[str, Any], required: bool) -> FormField:
        prop, nullable = _unwrap_optional(prop)
        kind: FieldKind = "json"
        choices: tuple[Any, ...] = ()
        if isinstance(prop.get("enum"), list):
            kind, choices = "choice", tuple(prop["enum"])
        elif "const" in prop:
            kind, choices = "choice", (prop["const"],)
        elif isinstance(prop.get("type"), str) and "$ref" not in prop:
            kind = _SIMPLE.get(prop["type"], "json")
        return cls(
            name=name,
            title=str(prop.get("title") or name),
            kind=kind,
            required=required,
            default=prop.get("default", MISSING),
            description=str(prop.get("description") or ""),
            choices=choices,
            nullable=nullable,
        )

    def initial_text(self) -> str:
        """What the field's editor starts with (its default)."""
        if self.default is MISSING or self.default is None:
            return ""
        if self.kind == "json":
            return json.dumps(self.default, ensure_ascii=False)
        if self.kind == "choice":
            return json.dumps(self.default, ensure_ascii=False)
        return str(self.default)

    def parse(self, raw: Any) -> tuple[Any, str | None]:
        """The field's value from its editor (``MISSING`` when left empty), or a problem."""
        if self.kind == "boolean":
            return bool(raw), None
        text = "" if raw is None else str(raw)
        if not text.strip():
            if self.required and self.default is MISSING:
                return MISSING, f"{self.title}: required"
            return MISSING, None
        if self.kind == "text":
            return text, None
        if self.kind == "integer":
            try:
                return int(text.strip()), None
            except ValueError:
                return MISSING, f"{self.title}: a whole number, not {text.strip()!r}"
        if self.kind == "number":
            try:
                return float(text.strip()), None
            except ValueError:
                return MISSING, f"{self.title}: a number, not {text.strip()!r}"
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            return MISSING, f"{self.title}: not valid JSON ({exc.msg}, column {exc.colno})"
        if self.kind == "choice" and value not in self.choices:
            return MISSING, f"{self.title}: one of {', '.join(map(json.dumps, self.choices))}"
        return value, None


@dataclass
class InputForm:
    """The fields of an object schema; any other schema is one JSON value (``whole``)."""

    schema: dict[str, Any]
    fields: list[FormField] = field(default_factory=list)
    whole: bool = False
    """The input is not an object (a list, a number: a functional-API entrypoint's)."""

    @classmethod
    def from_schema(cls, schema: Mapping[str, Any] | None) -> InputForm:
        schema = dict(schema or {})
        props = schema.get("properties")
        if schema.get("type") not in (None, "object") or not isinstance(props, dict):
            return cls(schema, [], whole=bool(schema))
        required = set(schema.get("required") or ())
        return cls(
            schema, [FormField.of(str(name), p, name in required) for name, p in props.items()]
        )

    @property
    def required_names(self) -> list[str]:
        return [f.name for f in self.fields if f.required and f.default is MISSING]

    def parse(self, raw: Mapping[str, Any]) -> tuple[Any, list[str]]:
        """The input from the form's editors (by field name), and its problems."""
        value: dict[str, Any] = {}
        problems: list[str] = []
        for f in self.fields:
            v, problem = f.parse(raw.get(f.name))
            if problem is not None:
                problems.append(problem)
            elif v is not MISSING:
                value[f.name] = v
        return value, problems

    def check(self, value: Any) -> list[str]:
        """Problems of a whole input (from the JSON tab) a form would have caught."""
        if self.whole:
            expected = self.schema.get("type")
            kinds = {"array": list, "object": dict, "string": str, "boolean": bool}
            want = kinds.get(str(expected))
            if want is not None and not isinstance(value, want):
                return [f"the input is {expected}, not {type(value).__name__}"]
            return []
        if not isinstance(value, dict):
            return [f"the input is an object with {', '.join(f.name for f in self.fields)}"]
        problems = [f"{name}: required" for name in self.required_names if name not in value]
        by_name = {f.name: f for f in self.fields}
        for name, v in value.items():
            f = by_name.get(name)
            if f is None or v is None:
                continue
            problem = _type_problem(f, v)
            if problem:
                problems.append(problem)
        return problems

    @property
    def takes_text(self) -> bool:
        """The whole input is a string (an ``@entrypoint`` of ``topic: str``): typed as it is,
        no JSON quotes needed."""
        return self.whole and self.schema.get("type") == "string"

    def parse_json(self, text: str) -> tuple[Any, list[str]]:
        """The input from the JSON tab, and its problems."""
        if not text.strip():
            return MISSING, ["the input is empty"]
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            if self.takes_text:
                return text, []
            return MISSING, [f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"]
        if self.takes_text and not isinstance(value, str):
            return text, []  # 42 or [1] typed for a string input: the text as typed
        return value, self.check(value)

    def as_json(self, value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, indent=2, default=str)

    def defaults(self) -> dict[str, Any]:
        """The input with every default filled in (the JSON tab starts with it)."""
        return {f.name: f.default for f in self.fields if f.default is not MISSING}


def _type_problem(f: FormField, v: Any) -> str | None:
    if f.kind == "integer" and (not isinstance(v, int) or isinstance(v, bool)):
        return f"{f.title}: a whole number"
    if f.kind == "number" and (not isinstance(v, int | float) or isinstance(v, bool)):
        return f"{f.title}: a number"
    if f.kind == "text" and not isinstance(v, str):
        return f"{f.title}: text"
    if f.kind == "boolean" and not isinstance(v, bool):
        return f"{f.title}: true or false"
    if f.kind == "choice" and v not in f.choices:
        return f"{f.title}: one of {', '.join(map(json.dumps, f.choices))}"
    return None
