"""Tokens of a langchain_core chat model a user's node calls itself, on the run's ``messages``
stream, as LangGraph's messages stream gets them.

LangGraph hands every node a config whose callbacks include its messages handler; a chat model
the node invokes picks that config up, streams (the handler is a streaming consumer) and
reports each chunk.  Here, while a node of a run that streams ``messages`` runs, a context
variable registered with langchain_core's configure hook holds ``NodeTokens``: every callback
manager langchain_core configures inside the node adds it.  The engine's own calls of a
langchain model (``create_agent``'s model node) tap their tokens themselves and clear it
(``engine_call``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar
from uuid import UUID

from engine.core.context import call_metadata, current_task_view, note_model_run
from engine.interop.langchain_messages import message_from_langchain
from engine.models.base import MODEL_CALL_TAGS

__all__ = ["engine_call", "enter_node", "hook"]

T = TypeVar("T")

NOSTREAM = "nostream"
"""A model call tagged so never streams to ``messages`` (LangGraph's tag)."""

_NODE_TOKENS: ContextVar[Any | None] = ContextVar("stepwise_node_tokens", default=None)
_hooked: list[bool] = []


def hook() -> None:
    """Register the node handler's context variable with langchain_core (once)."""
    if not _hooked:
        from langchain_core.tracers.context import register_configure_hook

        register_configure_hook(_NODE_TOKENS, inheritable=True)
        _hooked.append(True)


def enter_node() -> Callable[[], None]:
    """Report the running node's langchain model calls to its run; returns the undo."""
    token = _NODE_TOKENS.set(_handler())
    return lambda: _NODE_TOKENS.reset(token)


async def engine_call(call: Awaitable[T]) -> T:
    """Await an engine-made model call: it taps its own tokens (see the module docstring)."""
    token = _NODE_TOKENS.set(None)
    try:
        return await call
    finally:
        _NODE_TOKENS.reset(token)


_HANDLER_CLASS: list[type] = []


def _serialized_name(serialized: Any) -> str:
    """A model run's name from its serialized form, as LangChain's event stream takes it."""
    if isinstance(serialized, dict):
        if serialized.get("name"):
            return str(serialized["name"])
        ident = serialized.get("id")
        if isinstance(ident, list) and ident:
            return str(ident[-1])
    return "Unnamed"


def _handler() -> Any:
    """A fresh ``NodeTokens`` (its class is made once, on first use)."""
    if not _HANDLER_CLASS:
        _HANDLER_CLASS.append(_handler_class())
    return _HANDLER_CLASS[0]()


def _handler_class() -> type:
    from langchain_core.callbacks import BaseCallbackHandler

    class NodeTokens(BaseCallbackHandler):
        """Hands the node's model chunks to its run's ``messages`` stream; a model that did not
        stream gives its whole reply as one message, as LangGraph does."""

        run_inline = True

        def __init__(self) -> None:
            self.calls: dict[UUID, list[Any]] = {}

        def on_chat_model_start(
            self,
            serialized: Any,
            messages: Any,
            *,
            run_id: UUID,
            tags: list[str] | None = None,
            metadata: dict[str, Any] | None = None,
            **kwargs: Any,
        ) -> None:
            task = current_task_view()
            if task is None or not task.run.wants("messages") or NOSTREAM in (tags or ()):
                return
            # as LangGraph's: the call's metadata (the model's ls_* keys too) and its own tags
            # (a docs program filters the stream by metadata["tags"])
            meta = {**call_metadata(task.config), **(metadata or {})}
            user_tags = [t for t in tags or () if not t.startswith("seq:step")]
            if user_tags:
                meta["tags"] = user_tags
            # the call's run name and tags, as LangChain's event stream names it
            name = kwargs.get("name") or _serialized_name(serialized)
            run_tags = list(tags or ())
            if not any(t.startswith("seq:step") for t in run_tags):
                run_tags = [*MODEL_CALL_TAGS, *run_tags]
            given = messages[0] if isinstance(messages, list) and messages else None
            self.calls[run_id] = [task.run, meta, task.ns, False, (name, run_tags, given)]

        def on_llm_new_token(
            self, token: Any, *, chunk: Any = None, run_id: UUID, **kwargs: Any
        ) -> None:
            call = self.calls.get(run_id)
            message = getattr(chunk, "message", None)
            if call is None or message is None:
                return
            call[3] = True
            run, meta, ns, _, (name, tags, given) = call
            ours = message_from_langchain(message)
            if ours.id:  # streamed: not again when it comes back in the node's output
                run.streamed_message_ids.add(ours.id)
            note_model_run(ours.id, name, tags, given)
            run.push_any_thread("messages", (ours, meta), ns)

        def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
            call = self.calls.pop(run_id, None)
            if call is None or call[3]:
                return
            run, meta, ns, _, (name, tags, given) = call
            for generations in getattr(response, "generations", None) or ():
                for generation in generations:
                    message = getattr(generation, "message", None)
                    if message is not None:
                        ours = message_from_langchain(message)
                        if ours.id:
                            run.streamed_message_ids.add(ours.id)
                        note_model_run(ours.id, name, tags, given)
                        run.push_any_thread("messages", (ours, meta), ns)

        def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
            self.calls.pop(run_id, None)

        def tap_output_aiter(self, run_id: UUID, output: AsyncIterator[Any]) -> AsyncIterator[Any]:
            return output  # a streaming consumer: the model streams inside ``invoke``

        def tap_output_iter(self, run_id: UUID, output: Iterator[Any]) -> Iterator[Any]:
            return output

    return NodeTokens
