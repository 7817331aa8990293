"""``ModelRefusalMiddleware``: a model reply holding a refusal block is an error.

A provider reports a refusal as a successful reply (a ``{"type": "refusal"}`` block in the
message's ``content_blocks``); with this middleware the model call raises
``ModelRefusalError`` instead ("Model refused to produce the requested output", then
`` (category='...')`` from the block's ``extras`` and ``: <text>``), so an outer
``ModelFallbackMiddleware`` can try another model.  A structured-output validation error
whose reply was a refusal raises the refusal instead.  The error is langchain_core's
``ModelRefusalError`` when langchain_core has it (what a program catches), else the engine's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from engine.middleware.types import AgentMiddleware, ModelCallResult, ModelRequest, ModelResponse
from engine.models.errors import ModelRefusalError

__all__ = ["ModelRefusalMiddleware"]


def _error_class() -> type[Exception]:
    try:
        from langchain_core.exceptions import ModelRefusalError as Theirs
    except ImportError:
        return ModelRefusalError
    return Theirs


def _raise_if_refused(message: Any) -> None:
    for block in getattr(message, "content_blocks", None) or ():
        if block.get("type") != "refusal":
            continue
        text = "Model refused to produce the requested output"
        if category := (block.get("extras") or {}).get("category"):
            text += f" (category={category!r})"
        if refusal := block.get("refusal"):
            text += f": {refusal}"
        raise _error_class()(text, raw_message=message)  # type: ignore[call-arg]


def _is_structured_validation_error(exc: Exception) -> bool:
    """A ``StructuredOutputValidationError`` (the agents layer's, named here by its class name:
    the middleware sits beside the agents, not above them)."""
    return any(t.__name__ == "StructuredOutputValidationError" for t in type(exc).__mro__)


def _checked(response: ModelCallResult) -> ModelCallResult:
    messages = response.result if isinstance(response, ModelResponse) else [response]
    for m in messages:
        _raise_if_refused(m)
    return response


class ModelRefusalMiddleware(AgentMiddleware):
    """Raise ``ModelRefusalError`` for a reply with a refusal block (list it after
    ``ModelFallbackMiddleware`` so the fallback catches it)."""

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelCallResult]
    ) -> ModelCallResult:
        try:
            response = handler(request)
        except Exception as exc:
            if _is_structured_validation_error(exc):
                _raise_if_refused(getattr(exc, "ai_message", None))
            raise
        return _checked(response)

    async def awrap_model_call(
        self,
        request: ModelRequest,
        handler: Callable[[ModelRequest], Awaitable[ModelCallResult]],
    ) -> ModelCallResult:
        try:
            response = await handler(request)
        except Exception as exc:
            if _is_structured_validation_error(exc):
                _raise_if_refused(getattr(exc, "ai_message", None))
            raise
        return _checked(response)
