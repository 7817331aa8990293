"""The line of an error message that says what went wrong, for one-line views (the CLI tree,
the Events tree): its first line; for a pydantic validation error, whose first line only
counts the errors ("1 validation error for get_weather"), the fields and what is wrong with
each: "1 validation error for get_weather: city: Field required"."""

from __future__ import annotations

import re

__all__ = ["headline"]

_VALIDATION = re.compile(r"^\d+ validation errors? for ")
_DETAIL = re.compile(r"\s+\[type=[^\]]*\]$")
_MAX_FIELDS = 3


def headline(message: str) -> str:
    """``message``'s headline (see the module docstring); "" for an empty message."""
    lines = message.strip().splitlines()
    if not lines:
        return ""
    first = lines[0].strip()
    if not _VALIDATION.match(first):
        return first
    fields: list[str] = []
    loc: str | None = None
    for line in lines[1:]:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent == 0:
            loc = line.strip()
        elif indent == 2 and loc is not None:
            fields.append(f"{loc}: {_DETAIL.sub('', line.strip())}")
            loc = None
    if not fields:
        return first
    more = len(fields) - _MAX_FIELDS
    shown = "; ".join(fields[:_MAX_FIELDS]) + (f"; {more} more" if more > 0 else "")
    return f"{first}: {shown}"
