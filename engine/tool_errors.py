"""A tool's own error handling (``handle_tool_error`` / ``handle_validation_error``), as
langchain_core's tools apply it before the tools node sees anything: the tool answers with the
handled text (a ``ToolMessage`` with status "error") instead of raising.

- ``handle_tool_error`` (for a ``ToolException``, the engine's or langchain_core's): ``True``
  gives the exception's first argument (or "Tool execution error"), a string gives itself, a
  callable what it returns for the exception.
- ``handle_validation_error`` (for arguments not matching the schema): ``True`` gives
  "Tool input validation error", a string itself, a callable what it returns.
"""

from __future__ import annotations

from typing import Any

from engine.tools import BaseTool, ToolArgsValidationError, ToolException

__all__ = ["UNHANDLED", "tool_error_answer"]

UNHANDLED: Any = object()
"""``tool_error_answer``'s "the tool does not handle this one"."""


def _is_tool_exception(exc: BaseException) -> bool:
    if isinstance(exc, ToolException):
        return True
    return any(
        t.__name__ == "ToolException" and t.__module__.startswith("langchain_core")
        for t in type(exc).__mro__
    )


def _apply(flag: Any, exc: BaseException, true_text: str) -> Any:
    if isinstance(flag, bool):
        return true_text
    if isinstance(flag, str):
        return flag
    if callable(flag):
        return flag(exc)
    raise ValueError(
        f"Got unexpected type of error handler. Expected bool, str or callable. Received: {flag}"
    )


def tool_error_answer(tool: BaseTool, exc: BaseException) -> Any:
    """The content ``tool`` answers ``exc`` with by its own settings, or ``UNHANDLED``."""
    if isinstance(exc, ToolArgsValidationError):
        flag = tool.handle_validation_error
        return _apply(flag, exc, "Tool input validation error") if flag else UNHANDLED
    if _is_tool_exception(exc):
        flag = tool.handle_tool_error
        if not flag:
            return UNHANDLED
        return _apply(flag, exc, exc.args[0] if exc.args else "Tool execution error")
    return UNHANDLED
