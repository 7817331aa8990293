"""Tools' errors (``ToolException``, ``ToolInvocationError``, ``ToolArgsValidationError``) and a
tool's own error handling (``handle_tool_error`` / ``handle_validation_error``), as
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

__all__ = [
    "UNHANDLED",
    "ToolArgsValidationError",
    "ToolException",
    "ToolInvocationError",
    "tool_error_answer",
]


class ToolException(Exception):
    """Raise inside a tool to report an error the model should see (with handle_tool_errors)."""


class ToolInvocationError(ToolException):
    """A tool call's arguments do not match the tool's schema, as the tools node reports it
    (LangGraph's ``ToolInvocationError``): ``message`` is the text the model gets by default,
    ``source`` the validation error, ``tool_kwargs`` the arguments the model sent."""

    def __init__(self, tool_name: str, source: Exception, tool_kwargs: Any, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.tool_name = tool_name
        self.tool_kwargs = tool_kwargs
        self.source = source


class ToolArgsValidationError(ValueError):
    """The model's arguments do not match the tool's schema.  ``errors``: (location, message)
    pairs; an empty location is the schema's own check (a model validator); ``source``: the
    pydantic ``ValidationError`` they come from, if any (what a direct call raises, and what a
    ``ToolInvocationError`` names as its source, as LangChain's do)."""

    def __init__(
        self,
        tool_name: str,
        args: Any,
        errors: list[tuple[str, str]],
        source: Exception | None = None,
    ) -> None:
        # worded as pydantic words a failed validation of the tool's argument model, which is
        # what LangChain's tools raise
        n = len(errors)
        detail = "".join(f"\n{loc}\n  {msg}" if loc else f"\n  {msg}" for loc, msg in errors)
        super().__init__(f"{n} validation error{'' if n == 1 else 's'} for {tool_name}{detail}")
        self.tool_name = tool_name
        self.tool_args = args
        """The arguments the model sent (``args`` is the exception's own message tuple)."""
        self.errors = errors
        self.source = source


for _cls in (ToolException, ToolInvocationError, ToolArgsValidationError):
    _cls.__module__ = "engine.tools"  # their public home, as tracebacks and reprs name them

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


def tool_error_answer(tool: Any, exc: BaseException) -> Any:
    """The content ``tool`` (a ``BaseTool``) answers ``exc`` with by its own settings, or
    ``UNHANDLED``."""
    if isinstance(exc, ToolArgsValidationError):
        flag = tool.handle_validation_error
        return _apply(flag, exc, "Tool input validation error") if flag else UNHANDLED
    if _is_tool_exception(exc):
        flag = tool.handle_tool_error
        if not flag:
            return UNHANDLED
        return _apply(flag, exc, exc.args[0] if exc.args else "Tool execution error")
    return UNHANDLED
