"""Answers to pauses other than human-in-the-loop approvals (plain Python, no Qt).

- ``ValueRequest``: a node called ``interrupt(value)``; the user shows what it asked and types a
  resume value, JSON (validated as typed) or plain text.  ``submit(text)`` answers with the
  value; the caller resumes with ``Command(resume=value)`` (or ``{interrupt_id: value}`` when
  several interrupts are pending).
- ``PauseRequest``: a static ``interrupt_before`` / ``interrupt_after`` pause; answered with
  ``"continue"`` (run on, with no new input) or ``"edit"`` (edit the state, then run on).

Like ``ApprovalRequest`` both are ``Answerable``: outcome signals plus an awaitable future, and
``cancel()`` leaves the run paused.
"""

from __future__ import annotations

from typing import Any, Literal

from studio.dialogs.approval_model import Answerable, ApprovalError
from studio.dialogs.json_check import parse_json_value

__all__ = ["PauseRequest", "ValueRequest"]


class ValueRequest(Answerable):
    """An ``interrupt(value)`` awaiting its resume value."""

    def __init__(self, value: Any, *, interrupt_id: str | None = None, node: str = "") -> None:
        super().__init__()
        self.value = value
        self.interrupt_id = interrupt_id
        self.node = node

    @staticmethod
    def parse(text: str, *, as_text: bool = False) -> tuple[Any, str | None]:
        """``(value, None)`` or ``(None, error)``: the text as JSON, or as a plain string."""
        if as_text:
            return text, None
        if not text.strip():
            return None, "Type a JSON value (a string needs quotes), or send it as plain text"
        return parse_json_value(text)

    def submit(self, text: str, *, as_text: bool = False) -> Any:
        """Answer with ``text`` parsed (raises ``ApprovalError`` when it is not valid JSON)."""
        value, error = self.parse(text, as_text=as_text)
        if error is not None:
            raise ApprovalError(error)
        self._answer(value)
        return value


PauseAnswer = Literal["continue", "edit"]


class PauseRequest(Answerable):
    """A static pause before (or after) ``nodes``; answered with ``"continue"`` or ``"edit"``."""

    def __init__(
        self,
        nodes: tuple[str, ...] | list[str],
        *,
        when: Literal["before", "after"] | None = None,
        can_edit: bool = False,
    ) -> None:
        super().__init__()
        self.nodes = tuple(nodes)
        self.when = when
        self.can_edit = can_edit

    @property
    def title(self) -> str:
        where = ", ".join(self.nodes) or "the next step"
        if self.when == "after":
            return f"Paused after {where}"
        if self.when == "before":
            return f"Paused before {where}"
        return f"Paused; next: {where}"

    def continue_(self) -> None:
        self._answer("continue")

    def edit_and_continue(self) -> None:
        if not self.can_edit:
            raise ApprovalError("Editing the state is not available here")
        self._answer("edit")
