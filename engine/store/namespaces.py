"""A store's namespace checks, as LangGraph's stores make them: every label a non-empty string
without a period or a NUL byte (``InvalidNamespaceError``, a ``ValueError``); a namespace
written to is not empty and not rooted at ``"langgraph"``."""

from __future__ import annotations

from typing import Any

__all__ = ["InvalidNamespaceError", "check_namespace"]

_SEP = "\x1f"
"""The engine's own separator of labels in a stored namespace: no label may hold it."""


class InvalidNamespaceError(ValueError):
    """A namespace a store cannot take."""


def check_namespace(namespace: Any, *, written: bool = False) -> tuple[str, ...]:
    """``namespace`` as a tuple, checked (``written``: the namespace of a put)."""
    if not isinstance(namespace, tuple | list):
        raise TypeError(f"A namespace must be a tuple of strings, got {type(namespace).__name__}")
    ns = tuple(namespace)
    if written and not ns:
        raise InvalidNamespaceError("Namespace cannot be empty.")
    for label in ns:
        if not isinstance(label, str):
            raise InvalidNamespaceError(
                f"Invalid namespace label '{label}' found in {ns}. Namespace labels"
                f" must be strings, but got {type(label).__name__}."
            )
        if "." in label:
            raise InvalidNamespaceError(
                f"Invalid namespace label '{label}' found in {ns}. Namespace labels cannot"
                " contain periods ('.')."
            )
        if "\x00" in label:
            raise InvalidNamespaceError(
                f"Invalid namespace label '{label}' found in {ns}. Namespace labels cannot"
                " contain NUL bytes ('\\x00')."
            )
        if not label:
            raise InvalidNamespaceError(
                f"Namespace labels cannot be empty strings. Got {label} in {ns}"
            )
        if _SEP in label:
            raise InvalidNamespaceError(
                f"Invalid namespace label {label!r} in {ns!r}: labels cannot hold '\\x1f'"
            )
    if written and ns[0] == "langgraph":
        raise InvalidNamespaceError(f'Root label for namespace cannot be "langgraph". Got: {ns}')
    return ns
