"""Model fallback, context editing and tool selection: the primary model is down, a fallback answers, old tool results are cleared, a small model picks the tools.

Offline on scripted models.  Three middleware shape every model call, outermost first:

    LLMToolSelector   a small "selector" model picks 2 of the 5 tools for the question
                      (``middleware.action tools_selected``; the request only offers those)
    ModelFallback     "primary" raises a 503 on every call; each call falls back to
                      "fallback" (attempt 1/2 fails, attempt 2/2 answers; ``fallback_switch``)
    ContextEditing    once the request passes 300 tokens, all but the newest tool result are
                      replaced by "[cleared]" in what the model sees (``context_edit``); the
                      state keeps the full results

The agent searches the docs, reads two long pages and answers.  Compare a checkpoint's messages
with the next model request to see the edit.  Set ``STEPWISE_MODEL`` to use a real model as the
fallback.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from engine.agents import create_agent
from engine.checkpoint.memory import InMemorySaver
from engine.graph.compiled import CompiledStateGraph
from engine.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from engine.middleware.builtins import (
    ClearToolUsesEdit,
    ContextEditingMiddleware,
    LLMToolSelectorMiddleware,
    ModelFallbackMiddleware,
)
from engine.models import ScriptedChatModel, ServerError, init_chat_model
from engine.tools import BaseTool, tool

__all__ = ["INPUT", "agent", "build_agent", "reply", "select"]

INPUT = "How do I configure retries for tool calls in Stepwise? Check the docs."
PAGES = {
    "docs/middleware/tool-retry": (
        "ToolRetryMiddleware retries failed tool calls. Arguments: max_retries (retries after the "
        "first call), retry_on (exception types or a predicate), on_failure ('continue' returns "
        "an error ToolMessage to the model, 'error' re-raises), backoff_factor, initial_delay, "
        "max_delay and jitter. Each attempt is reported as attempt.started / attempt.finished. "
    )
    * 3,
    "docs/middleware/retry-policy": (
        "Delays grow as initial_delay * backoff_factor ** k, capped at max_delay, with +-25% "
        "jitter when enabled. A retried call re-runs every inner wrapper layer, so fallbacks and "
        "context edits apply to each attempt again. "
    )
    * 3,
}


def make_tools(delay: float) -> list[BaseTool]:
    @tool
    async def search_docs(query: str) -> str:
        """Search the documentation; returns matching page paths.

        Args:
            query: what to look for
        """
        await asyncio.sleep(delay)
        return json.dumps(list(PAGES))

    @tool
    async def read_page(path: str) -> str:
        """Read one documentation page.

        Args:
            path: a path returned by search_docs
        """
        await asyncio.sleep(delay)
        return PAGES.get(path, f"{path}: no such page")

    @tool
    def get_time(city: str) -> str:
        """The local time in a city.

        Args:
            city: the city's name
        """
        return f"12:00 in {city}"

    @tool
    def send_email(to: str, body: str) -> str:
        """Send an email.

        Args:
            to: the address
            body: the text
        """
        return f"sent to {to}"

    @tool
    def create_ticket(title: str) -> str:
        """Open a support ticket.

        Args:
            title: a short summary
        """
        return f"ticket opened: {title}"

    return [search_docs, read_page, get_time, send_email, create_ticket]


def select(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> str:
    """The selector model: the documentation tools fit a documentation question."""
    return json.dumps({"tools": ["search_docs", "read_page"]})


def reply(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> AIMessage:
    """The fallback model's policy: search, read both pages, answer."""
    read = [m for m in messages if isinstance(m, ToolMessage) and m.name == "read_page"]
    last = messages[-1] if messages else None
    if isinstance(last, HumanMessage):
        return AIMessage(
            content="",
            tool_calls=[
                {"name": "search_docs", "args": {"query": "tool retries"}, "id": "call_search"}
            ],
        )
    if len(read) < len(PAGES):
        path = list(PAGES)[len(read)]
        return AIMessage(
            content="",
            tool_calls=[
                {"name": "read_page", "args": {"path": path}, "id": f"call_read_{len(read) + 1}"}
            ],
        )
    return AIMessage(
        content=(
            "Add ToolRetryMiddleware(max_retries=2, retry_on=(OSError,), initial_delay=0.5) to "
            "create_agent's middleware. Delays grow by backoff_factor up to max_delay; with "
            "on_failure='continue' the model gets an error message instead of the run failing."
        )
    )


def _fallback_model() -> Any:
    spec = os.environ.get("STEPWISE_MODEL")
    if spec:
        return init_chat_model(spec, base_url=os.environ.get("STEPWISE_BASE_URL") or None)
    return ScriptedChatModel([reply] * 50, name="fallback")


def build_agent(*, delay: float = 0.4, trigger: int = 300) -> CompiledStateGraph:
    """A fresh agent (``delay``: seconds per doc tool; ``trigger``: tokens before clearing)."""
    primary = ScriptedChatModel(
        [ServerError("503 Service Unavailable: primary is overloaded")] * 50, name="primary"
    )
    selector = ScriptedChatModel([select] * 50, name="selector")
    return create_agent(
        primary,
        make_tools(delay),
        system_prompt="You answer questions about Stepwise from its documentation.",
        middleware=[
            LLMToolSelectorMiddleware(model=selector, max_tools=2),
            ModelFallbackMiddleware(_fallback_model()),
            ContextEditingMiddleware([ClearToolUsesEdit(trigger=trigger, keep=1)]),
        ],
        checkpointer=InMemorySaver(),
        name="fallback_context",
    )


agent = build_agent()
