"""LangChain's fake chat models are not streamed by an attached run's token streaming, wherever
they are called.

To show tokens, an attached run asks LangGraph for its ``messages`` stream, and LangGraph then
streams every chat model called inside the run, an agent's own or one a node calls itself
(an agent invoked inside a node).  A fake chat model (``GenericFakeChatModel``,
``FakeListChatModel``) streams its next scripted reply cut into pieces: a reply with no text
(a tool call) streams nothing, and LangChain fails with "No generations found in stream" where
the app's own ``invoke`` got the reply.  The agent's model calls go through the innermost
layer, which turns streaming off for them; a model called anywhere else is reached here: its
class's ``_should_stream`` answers no when the call runs under an attached run that streams
tokens (our callback handler is among the call's handlers), and as before otherwise.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from engine.agents.unstreamed import streams_its_reply

__all__ = ["install", "streams_its_reply"]

_MARK = "__stepwise_quiet__"
_lock = threading.Lock()


def install() -> None:
    """Make LangChain's fake chat model classes quiet under attached token streaming (once)."""
    try:
        from langchain_core.language_models import fake_chat_models as fakes
    except ImportError:  # pragma: no cover - langchain-core comes with LangGraph
        return
    with _lock:
        for name in ("GenericFakeChatModel", "FakeListChatModel"):
            cls = getattr(fakes, name, None)
            if cls is not None and not getattr(cls.__dict__.get("_should_stream"), _MARK, False):
                cls._should_stream = _quiet(cls._should_stream)


def _quiet(original: Callable[..., bool]) -> Callable[..., bool]:
    def _should_stream(self: Any, *, async_api: bool, run_manager: Any = None, **kw: Any) -> bool:
        if run_manager is not None and _ours(run_manager.handlers) and streams_its_reply(self):
            return False
        return original(self, async_api=async_api, run_manager=run_manager, **kw)

    setattr(_should_stream, _MARK, True)
    return _should_stream


def _ours(handlers: list[Any]) -> bool:
    from engine.attach.base import HandlerBase

    return any(
        isinstance(h, HandlerBase) and h.stream_tokens and not h.app_streams_messages
        for h in handlers
    )
