"""A langchain_core chat model bound for ``create_agent``'s model node as LangChain's agent binds
it: ``bind_tools`` with the tool objects themselves, or ``bind`` when there is nothing to bind.

What the model's ``bind_tools`` receives, item by item:

- a langchain_core tool the user passed: that very object;
- one of our tools (``@tool`` of a ported program, a plain function the agent made a tool of):
  a langchain_core ``StructuredTool`` with its name, description and model-facing schema (what
  LangChain's agent passes for a ``@tool`` function), made once per tool;
- a dict (a provider's built-in tool): as it is;
- a ``ToolStrategy`` schema: a ``StructuredTool`` named after it, with its JSON schema.

The keyword arguments are the agent's (``tool_choice``, ``response_format``, the request's model
settings); with a ``ProviderStrategy``, an OpenAI-compatible model (langchain_openai's
``BaseChatOpenAI``, Chat Completions) also gets ``strict=True``, as LangChain adds it.
"""

from __future__ import annotations

import importlib
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from engine.agents.structured import SchemaSpec
from engine.tools import BaseTool

__all__ = ["bind_like_agent"]

_MADE: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
"""Our tool -> the langchain_core tool made for it (the same object on every model call)."""


def _not_run_here(**_kwargs: Any) -> Any:
    raise NotImplementedError("the agent's tools node runs this tool; the model only sees it")


def _structured_tool(name: str, description: str, schema: dict[str, Any]) -> Any:
    from langchain_core.tools import StructuredTool

    return StructuredTool(
        name=name, description=description, args_schema=schema, func=_not_run_here
    )


def langchain_tool_of(tool: Any) -> Any:
    """``tool`` as the model's ``bind_tools`` gets it (see the module docstring)."""
    if isinstance(tool, SchemaSpec):
        return _structured_tool(tool.name, tool.description, tool.source_json_schema)
    if not isinstance(tool, BaseTool):
        return tool  # a dict, or an object of the user's own
    wrapped = getattr(tool, "lc_tool", None)  # a langchain_core tool, wrapped as ours
    if wrapped is not None:
        return wrapped
    made = _MADE.get(tool)
    if made is None:
        spec = tool.tool_call_schema
        made = _MADE[tool] = _structured_tool(spec["name"], spec["description"], spec["parameters"])
    return made


def _openai_compatible(lc_model: Any) -> bool:
    try:
        base = importlib.import_module("langchain_openai.chat_models.base")
    except ImportError:
        return False
    return isinstance(lc_model, base.BaseChatOpenAI) and not getattr(
        lc_model, "use_responses_api", False
    )


def bind_like_agent(
    lc_model: Any,
    tools: Sequence[Any] | None,
    kwargs: Mapping[str, Any],
    *,
    provider_strategy: bool = False,
) -> Any:
    """``lc_model.bind_tools(tools, **kwargs)``, or ``lc_model.bind(**kwargs)`` when ``tools``
    is None (see the module docstring)."""
    if tools is None:
        return lc_model.bind(**kwargs)
    extra = {"strict": True} if provider_strategy and _openai_compatible(lc_model) else {}
    try:
        return lc_model.bind_tools([langchain_tool_of(t) for t in tools], **kwargs, **extra)
    except NotImplementedError:
        raise TypeError(
            f"{type(lc_model).__name__} cannot call tools (its bind_tools is not "
            "implemented); give the agent a model that supports tool calling"
        ) from None
