"""How the engine gets a langchain_core model's tokens: as LangGraph's ``messages`` stream does.

LangChain calls a chat model with ``invoke`` / ``ainvoke``; the model streams only when a
streaming consumer is attached to the call (a callback handler that taps the output, such as
LangGraph's messages handler), and then reports each chunk through ``on_llm_new_token``.  The
engine does the same: ``TokenTap`` is such a handler, added to the call's callbacks only when
someone consumes tokens (a ``messages`` stream, the studio); otherwise the model is simply
invoked, so a model whose stream yields nothing (``GenericFakeChatModel`` answering with tool
calls only) works as it does in LangChain.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any
from uuid import UUID

__all__ = ["TokenTap", "stream_through_invoke", "with_handler"]


def _base_handler() -> type:
    from langchain_core.callbacks import BaseCallbackHandler

    return BaseCallbackHandler


def TokenTap(deliver: Callable[[Any], None]) -> Any:
    """A callback handler that hands each streamed chunk's message to ``deliver`` (from any
    thread).  Having ``tap_output_aiter`` / ``tap_output_iter`` marks it as a streaming
    consumer, which is what makes a langchain_core model stream inside ``invoke``."""

    class _TokenTap(_base_handler()):  # type: ignore[misc]
        run_inline = True

        def on_llm_new_token(self, token: str, *, chunk: Any = None, **kwargs: Any) -> None:
            message = getattr(chunk, "message", None)
            if message is not None:
                deliver(message)

        def tap_output_aiter(self, run_id: UUID, output: AsyncIterator[Any]) -> AsyncIterator[Any]:
            return output

        def tap_output_iter(self, run_id: UUID, output: Iterator[Any]) -> Iterator[Any]:
            return output

    return _TokenTap()


def with_handler(config: Any, handler: Any) -> dict[str, Any]:
    """``config`` (a RunnableConfig or None) with ``handler`` added to its callbacks."""
    cfg = dict(config or {})
    callbacks = cfg.get("callbacks")
    if callbacks is None:
        cfg["callbacks"] = [handler]
    elif isinstance(callbacks, list | tuple):
        cfg["callbacks"] = [*callbacks, handler]
    else:  # a callback manager
        manager = callbacks.copy()
        manager.add_handler(handler, inherit=True)
        cfg["callbacks"] = manager
    return cfg


async def stream_through_invoke(
    call: Callable[[dict[str, Any]], Any], config: Any
) -> AsyncIterator[tuple[str, Any]]:
    """Run ``call(config_with_tap)`` (a model's ``ainvoke``), yielding ``("chunk", message)``
    for each streamed chunk as it arrives, then ``("result", reply)``."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    done = object()

    def deliver(message: Any) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, message)

    job = asyncio.ensure_future(call(with_handler(config, TokenTap(deliver))))
    job.add_done_callback(lambda _f: loop.call_soon(queue.put_nowait, done))
    try:
        while True:
            item = await queue.get()
            if item is done:
                break
            yield "chunk", item
        yield "result", job.result()
    finally:
        if not job.done():
            job.cancel()
