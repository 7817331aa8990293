"""Which models answer in a JSON schema natively, when their profile does not say.

``create_agent(response_format=Schema)`` (the auto strategy) uses the provider's native
structured output only for a model known to have it: its profile says so, or, when the
profile leaves it open, its name is one of the families LangChain assumes have it (OpenAI's
gpt-4o / gpt-4.1 / gpt-5 / gpt-oss / o3-mini / o3-pro, xAI's grok).  Every other model gets
the tool strategy, which works with any tool-calling model.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["native_structured_output"]

_NATIVE_FAMILIES = re.compile(
    r"(^|[/:.])(gpt-4o|gpt-4\.1|gpt-5(\.\d+)?|gpt-oss|o3-mini|o3-pro|grok(-\d+)?)($|[-/:.])"
)
"""A family name as a whole segment of the model name (``openai:gpt-4o-mini``,
``gpt-5.1``, ``azure/gpt-4.1``), not anywhere inside it."""


def native_structured_output(model: Any, *, with_tools: bool = False) -> bool:
    """Does ``model`` (one of ours, or a name) answer in a JSON schema natively?
    ``with_tools``: the call binds tools too (a Gemini before the 3 series, LangChain says,
    cannot use both at once: its profile is not taken then, only its name)."""
    if isinstance(model, str):
        return bool(_NATIVE_FAMILIES.search(model))
    name = getattr(model, "model_name", None)
    declared = getattr(getattr(model, "profile", None), "structured_output", None)
    if declared is not None and not (declared and with_tools and _older_gemini(name)):
        return bool(declared)
    return isinstance(name, str) and bool(_NATIVE_FAMILIES.search(name))


def _older_gemini(name: Any) -> bool:
    return isinstance(name, str) and "gemini" in name.lower() and "gemini-3" not in name.lower()
