"""Step output references: ``"{{steps.N.output}}"`` in a step's args.

A string that is exactly one reference is replaced by step N's output as is (any type);
a reference inside a longer string is replaced by the output as text (JSON for non-strings).
References are looked for in nested dicts and lists too.  A step may only reference steps
it depends on (checked when a ``Plan`` is built), so the output is there when it runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from engine.serde import to_jsonable

__all__ = ["REF_PATTERN", "referenced_steps", "resolve_refs", "step_ref"]

REF_PATTERN = re.compile(r"\{\{\s*steps\.(\d+)\.output\s*\}\}")


def step_ref(index: int) -> str:
    """The reference text for step ``index``'s output."""
    return f"{{{{steps.{index}.output}}}}"


def referenced_steps(value: Any) -> set[int]:
    """Indices of the steps whose output ``value`` refers to."""
    found: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.update(int(m.group(1)) for m in REF_PATTERN.finditer(item))
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(to_jsonable(value), ensure_ascii=False)


def resolve_refs(value: Any, outputs: Mapping[int, Any]) -> Any:
    """``value`` with every reference replaced by the referenced step's output.

    Raises ``KeyError`` naming the step when an output is missing.
    """
    if isinstance(value, str):
        whole = REF_PATTERN.fullmatch(value.strip())
        if whole is not None:
            return _lookup(outputs, int(whole.group(1)))
        if "{{" not in value:
            return value
        return REF_PATTERN.sub(lambda m: _as_text(_lookup(outputs, int(m.group(1)))), value)
    if isinstance(value, Mapping):
        return {k: resolve_refs(v, outputs) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [resolve_refs(v, outputs) for v in value]
    return value


def _lookup(outputs: Mapping[int, Any], index: int) -> Any:
    try:
        return outputs[index]
    except KeyError:
        raise KeyError(f"the output of step {index} is not available") from None
