"""An edit of one checkpoint's state, validated against the graph's state schema (no Qt).

The Edit State dialog shows two things: the non-message values as one JSON document, and the
messages one by one (each editable as JSON, deletable, or with a tool call removed).
``StateEdit`` checks both (JSON syntax with line and column, unknown keys, schema types down
to the failing path, message shape) and builds the ``update_state`` values:

- changed keys are written as they are (``LastValue`` channels);
- an ``operator.add`` list can only grow: its new items are written (the reducer appends);
- other reducer channels cannot be set directly (reported as an error);
- edited messages keep their id, so ``add_messages`` replaces them; deleted ones become
  ``RemoveMessage(id=...)``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError

from engine.messages import AIMessage, BaseMessage, RemoveMessage, message_from_dict
from engine.serde import to_jsonable
from studio.models.state_tree import message_preview, path_text

__all__ = ["EditIssue", "StateEdit", "parse_json"]

_MESSAGE_TYPES = ("human", "ai", "tool", "system")


@dataclass(frozen=True)
class EditIssue:
    message: str
    line: int | None = None
    column: int | None = None

    def text(self) -> str:
        where = f"line {self.line}, column {self.column}: " if self.line is not None else ""
        return where + self.message


def parse_json(text: str) -> tuple[Any, list[EditIssue]]:
    """``(value, [])`` or ``(None, [issue with line/column])``."""
    try:
        return json.loads(text), []
    except json.JSONDecodeError as exc:
        return None, [EditIssue(f"Invalid JSON: {exc.msg}", exc.lineno, exc.colno)]


def _channel_kind(graph: Any, key: str) -> str:
    ch = getattr(graph, "channels", {}).get(key)
    return type(ch).__name__ if ch is not None else ""


class StateEdit:
    """A pending edit of the state at one checkpoint."""

    def __init__(self, values: Mapping[str, Any], graph: Any = None) -> None:
        self.graph = graph
        self.original = dict(values)
        spec = getattr(graph, "spec", None)
        self.fields: dict[str, Any] = dict(getattr(spec, "fields", {}) or {})
        markers: dict[str, set[type]] = dict(getattr(spec, "markers", {}) or {})
        self.private = {
            k for k, m in markers.items() if any(t.__name__ == "PrivateStateAttr" for t in m)
        }
        self.messages_key = next(
            (k for k in values if _channel_kind(graph, k) == "MessagesChannel"),
            "messages" if "messages" in values else None,
        )
        self.messages: list[BaseMessage] = (
            list(values.get(self.messages_key) or []) if self.messages_key else []
        )
        self.edited: dict[int, BaseMessage] = {}
        self.deleted: set[int] = set()

    # -- values ----------------------------------------------------------------------------------

    def editable_values(self) -> dict[str, Any]:
        return {
            k: to_jsonable(v)
            for k, v in self.original.items()
            if k != self.messages_key and k not in self.private
        }

    def values_text(self) -> str:
        return json.dumps(self.editable_values(), indent=2, ensure_ascii=False)

    def check_values(self, text: str) -> tuple[dict[str, Any] | None, list[EditIssue]]:
        """The parsed document and its issues (syntax, unknown keys, schema types)."""
        data, issues = parse_json(text)
        if issues:
            return None, issues
        if not isinstance(data, dict):
            return None, [EditIssue('The values must be a JSON object: {"key": value, ...}')]
        original = self.editable_values()
        for key, value in data.items():
            if key == self.messages_key:
                issues.append(EditIssue(f"Edit '{key}' in the Messages tab"))
            elif self.fields and key not in self.fields:
                known = ", ".join(
                    k for k in self.fields if k != self.messages_key and k not in self.private
                )
                issues.append(EditIssue(f"Unknown key '{key}': the state schema has {known}"))
            elif key in self.private:
                issues.append(EditIssue(f"'{key}' is private to the graph and cannot be edited"))
            elif key in self.fields:
                issues.extend(self._check_type(key, value))
            if key in original and value != original[key]:
                issues.extend(self._check_reducer(key, original[key], value))
        issues.extend(
            EditIssue(f"'{k}' cannot be removed from the state; set it to null instead")
            for k in original
            if k not in data
        )
        return (data if not issues else None), issues

    def _check_type(self, key: str, value: Any) -> list[EditIssue]:
        try:
            TypeAdapter(self.fields[key]).validate_python(value)
        except ValidationError as exc:
            out = []
            for err in exc.errors()[:5]:
                where = path_text((key, *err["loc"]))
                out.append(EditIssue(f"{where}: {err['msg']}"))
            return out
        except Exception:  # an annotation pydantic cannot check is accepted as it is
            return []
        return []

    def _check_reducer(self, key: str, old: Any, new: Any) -> list[EditIssue]:
        kind = _channel_kind(self.graph, key)
        if kind == "AppendListChannel":
            if not (isinstance(new, list) and isinstance(old, list) and new[: len(old)] == old):
                return [
                    EditIssue(
                        f"'{key}' only grows (operator.add): keep its items and append new ones"
                    )
                ]
        elif kind == "BinaryOperatorAggregate":
            return [EditIssue(f"'{key}' is combined by a reducer and cannot be set directly")]
        return []

    # -- messages --------------------------------------------------------------------------------

    def message(self, index: int) -> BaseMessage:
        return self.edited.get(index, self.messages[index])

    def message_text(self, index: int) -> str:
        return json.dumps(self.message(index).model_dump(mode="json"), indent=2, ensure_ascii=False)

    def message_label(self, index: int) -> str:
        mark = "✗ " if index in self.deleted else ("✎ " if index in self.edited else "")
        return f"{mark}{index}  {message_preview(self.message(index), 80)}"

    def check_message(self, index: int, text: str) -> tuple[BaseMessage | None, list[EditIssue]]:
        data, issues = parse_json(text)
        if issues:
            return None, issues
        if not isinstance(data, dict) or data.get("type") not in _MESSAGE_TYPES:
            return None, [
                EditIssue(f'A message is an object with "type" one of {", ".join(_MESSAGE_TYPES)}')
            ]
        original = self.messages[index]
        if data.get("id") != original.id:
            return None, [
                EditIssue(
                    f"Keep the message id ({original.id!r}): it says which message to replace"
                )
            ]
        try:
            msg = message_from_dict(data)
        except (ValidationError, ValueError, TypeError) as exc:
            errors = (
                exc.errors()[:3]
                if isinstance(exc, ValidationError)
                else [{"loc": (), "msg": str(exc)}]
            )
            return None, [
                EditIssue(f"{path_text(tuple(e['loc'])) or 'message'}: {e['msg']}") for e in errors
            ]
        if isinstance(msg, AIMessage):
            for i, call in enumerate(msg.tool_calls):
                if not isinstance(call.get("args"), dict) or not call.get("name"):
                    issues.append(EditIssue(f'tool_calls[{i}] needs a "name" and an "args" object'))
        return (msg if not issues else None), issues

    def set_message(self, index: int, msg: BaseMessage) -> None:
        if msg == self.messages[index]:
            self.edited.pop(index, None)
        else:
            self.edited[index] = msg

    def remove_tool_call(self, index: int, call_index: int) -> None:
        msg = self.message(index)
        if not isinstance(msg, AIMessage) or not 0 <= call_index < len(msg.tool_calls):
            raise IndexError(f"message {index} has no tool call {call_index}")
        calls = [c for i, c in enumerate(msg.tool_calls) if i != call_index]
        self.set_message(index, msg.model_copy(update={"tool_calls": calls}))

    def toggle_deleted(self, index: int) -> bool:
        if index in self.deleted:
            self.deleted.discard(index)
            return False
        self.deleted.add(index)
        return True

    # -- the update ----------------------------------------------------------------------------

    def build_update(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The ``update_state`` values for the checked document ``values`` and the message edits."""
        original = self.editable_values()
        update: dict[str, Any] = {}
        for key, value in values.items():
            if key in original and value == original[key]:
                continue
            if _channel_kind(self.graph, key) == "AppendListChannel" and isinstance(
                original.get(key), list
            ):
                value = value[len(original[key]) :]
            update[key] = value
        if self.messages_key is not None:
            msgs: list[BaseMessage] = [
                m for i, m in sorted(self.edited.items()) if i not in self.deleted
            ]
            msgs += [RemoveMessage(id=self.messages[i].id) for i in sorted(self.deleted)]
            if msgs:
                update[self.messages_key] = msgs
        return update
