"""The names LangChain's ``langchain.agents.structured_output`` offers, where a program ported by
imports (``langchain.agents`` -> ``engine.agents``) looks for them."""

from __future__ import annotations

from engine.agents.structured import (
    AutoStrategy,
    MultipleStructuredOutputsError,
    ProviderStrategy,
    StructuredOutputError,
    StructuredOutputValidationError,
    ToolStrategy,
)

__all__ = [
    "AutoStrategy",
    "MultipleStructuredOutputsError",
    "ProviderStrategy",
    "StructuredOutputError",
    "StructuredOutputValidationError",
    "ToolStrategy",
]
