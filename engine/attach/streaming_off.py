"""A chat model's streaming turned off for the length of a call, on the model itself.

Attach mode streams the app's models to show their tokens; a model that cannot stream (or
whose stream is made from its reply, as LangChain's fake models') is called with streaming off
instead.  A copy of the model with ``disable_streaming`` set would do that too, but a model is
often stateful (a scripted fake's position, a counter of calls, a client's session): the copy's
state would move on while the app's model stood still.  So the flag is set on the model while
the call runs, counted so that overlapping calls (parallel nodes, threads) leave it as the app
set it once the last one ends.  Streaming off only makes a call what the app's own ``invoke``
makes it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["streaming_handlers", "streaming_off"]

_lock = threading.Lock()
_held: dict[int, tuple[Any, Any, int]] = {}
"""id(model) -> (model, its own ``disable_streaming``, calls holding it off)."""


@contextmanager
def streaming_off(model: Any) -> Iterator[None]:
    """``model.disable_streaming`` is True inside, and the app's value again after the last
    overlapping call ends (a model without the flag is left alone)."""
    if not hasattr(model, "disable_streaming"):
        yield
        return
    key = id(model)
    with _lock:
        held = _held.get(key)
        if held is None:
            _held[key] = (model, model.disable_streaming, 1)
            object.__setattr__(model, "disable_streaming", True)  # no validation, no copy
        else:
            _held[key] = (held[0], held[1], held[2] + 1)
    try:
        yield
    finally:
        with _lock:
            _model, own, count = _held[key]
            if count == 1:
                del _held[key]
                object.__setattr__(model, "disable_streaming", own)
            else:
                _held[key] = (model, own, count - 1)


def streaming_handlers(callbacks: Any) -> bool:
    """Does the app's own ``callbacks`` (a list of handlers or a callback manager) hold a
    handler that asks its chat models to stream (LangChain's ``astream_events`` /
    ``astream_log`` handler)?  Then its models stream as the app set them, as on LangGraph,
    and Stepwise turns no model's streaming off in the run."""
    handlers = getattr(callbacks, "handlers", callbacks)
    if not isinstance(handlers, (list, tuple)) or not handlers:
        return False
    try:
        from langchain_core.tracers._streaming import _StreamingCallbackHandler
    except ImportError:  # pragma: no cover - langchain-core comes with LangGraph
        return False
    return any(isinstance(h, _StreamingCallbackHandler) for h in handlers)
