"""Graph factories, called as a LangGraph server calls them.

A ``langgraph.json`` may name a function that makes the graph instead of the graph: it takes
nothing, a ``config``, a ``ServerRuntime`` (``langgraph_sdk.runtime``), or both; it returns a
graph, a graph builder or an awaitable of one, or it is a context manager (sync or async) that
yields one and cleans up after.  A server calls the factory afresh whenever it needs the graph:
to describe it, to read state, and for every run, then closes it.  Stepwise does the same: one
graph, opened when the app is loaded and held open for the session, serves the drawing, the
forms and state reads; every run opens the factory again with that run's ``configurable`` keys
and context, and closes it when the run ends.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import inspect
import logging
import threading
import typing
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from engine.errors import one_line

T = TypeVar("T")
_log = logging.getLogger("stepwise.attach")

__all__ = ["AccessContext", "FactoryError", "GraphFactory", "classify_factory"]

AccessContext = Literal["threads.create_run", "threads.update", "threads.read", "assistants.read"]
"""Why the factory is called (``ServerRuntime.access_context``)."""


class FactoryError(Exception):
    """A factory Stepwise cannot call, or whose call failed (a one-line message)."""


def _runtime_types() -> tuple[Any, tuple[type, ...]] | None:
    """``ServerRuntime`` and its concrete classes, None without ``langgraph_sdk``."""
    try:
        from langgraph_sdk.runtime import ServerRuntime, _ExecutionRuntime, _ReadRuntime
    except ImportError:
        return None
    return ServerRuntime, (_ExecutionRuntime, _ReadRuntime)


def _is_runtime(annotation: Any) -> bool:
    """Does ``annotation`` name a ``ServerRuntime`` (bare, parameterized, a concrete variant,
    or inside ``Annotated``)?"""
    if annotation is inspect.Parameter.empty or annotation is None:
        return False
    if isinstance(annotation, str):  # unresolved: judge by the name written
        return annotation.split("[", 1)[0].strip().rsplit(".", 1)[-1] == "ServerRuntime"
    known = _runtime_types()
    if known is not None:
        alias, classes = known
        if annotation is alias or typing.get_origin(annotation) is alias:
            return True
        if isinstance(annotation, type) and issubclass(annotation, classes):
            return True
    args = typing.get_args(annotation)
    return typing.get_origin(annotation) is typing.Annotated and bool(args) and _is_runtime(args[0])


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    known = _runtime_types()
    local = {"ServerRuntime": known[0]} if known is not None else {}
    try:
        return typing.get_type_hints(fn, localns=local, include_extras=True)
    except Exception:  # an annotation that does not resolve: judged by its text
        return {}


@dataclass(frozen=True)
class GraphFactory:
    """A function that makes a graph, and how to call it (see module docstring)."""

    fn: Callable[..., Any]
    where: str
    config_param: str | None = None
    runtime_param: str | None = None

    def _call(
        self,
        access: AccessContext,
        configurable: Mapping[str, Any] | None,
        context: Any,
        store: Any,
    ) -> Any:
        kwargs: dict[str, Any] = {}
        if self.config_param is not None:
            kwargs[self.config_param] = {"configurable": dict(configurable or {})}
        if self.runtime_param is not None:
            kwargs[self.runtime_param] = _runtime(access, context, store)
        return self.fn(**kwargs)

    @contextlib.asynccontextmanager
    async def open(
        self,
        access: AccessContext,
        *,
        configurable: Mapping[str, Any] | None = None,
        context: Any = None,
        store: Any = None,
    ) -> AsyncIterator[Any]:
        """The compiled graph the factory makes for ``access``, closed (when the factory is a
        context manager) as this block ends.  Raises ``FactoryError`` when the factory fails
        or makes something that is not a graph."""
        try:
            made = self._call(access, configurable, context, store)
        except Exception as exc:
            raise FactoryError(f"{self.where}: the graph factory raised {one_line(exc)}") from exc
        async with _entered(made, self.where) as value:
            yield _compiled(value, self.where)

    def for_runs(self) -> Callable[[Mapping[str, Any], Any, Any], Any]:
        """How a run opens the factory: ``(configurable, context, store)`` -> ``open``."""

        def remake(configurable: Mapping[str, Any], context: Any, store: Any) -> Any:
            return self.open(
                "threads.create_run", configurable=configurable, context=context, store=store
            )

        return remake

    def hold(self, access: AccessContext = "assistants.read", store: Any = None) -> Any:
        """The graph for ``access``, made now from synchronous code and kept open until the
        process ends or the same factory is held again (the app reloaded): the session's
        graph for drawing, forms and state reads.

        It is opened, and closed at exit, on a loop of its own that lives as long as the
        process: what the factory opens (an ``aiosqlite`` connection, a client session) stays
        usable however many loops the app's runs come and go on."""
        stack = contextlib.AsyncExitStack()
        graph = _on_held_loop(stack.enter_async_context(self.open(access, store=store)))
        earlier = _held.pop(self.where, None)  # the same app loaded again: this one replaces it
        _held[self.where] = stack
        if earlier is not None:
            _close(self.where, earlier)
        return graph


_held: dict[str, contextlib.AsyncExitStack] = {}
_held_loop: asyncio.AbstractEventLoop | None = None
_held_lock = threading.Lock()


def _on_held_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the held factories' loop (started on first use, a daemon thread)."""
    global _held_loop
    with _held_lock:
        if _held_loop is None:
            _held_loop = asyncio.new_event_loop()
            threading.Thread(
                target=_held_loop.run_forever, name="stepwise-graph-factories", daemon=True
            ).start()
        loop = _held_loop
    return asyncio.run_coroutine_threadsafe(coro, loop).result()


@atexit.register
def _close_held() -> None:
    """Close the factories held open, on their loop (best effort: the process is ending)."""
    while _held:
        where = next(iter(_held))
        _close(where, _held.pop(where))


def _close(where: str, stack: contextlib.AsyncExitStack) -> None:
    """Close a held factory; its own cleanup failing is the app's affair, said in one line
    on the log (the app goes on: a reload has its new graph already)."""
    try:
        _on_held_loop(stack.aclose())
    except Exception as exc:
        _log.warning("%s: closing the graph factory raised %s", where, one_line(exc))


@contextlib.asynccontextmanager
async def _entered(made: Any, where: str) -> AsyncIterator[Any]:
    """What the factory made, entered: an async or sync context manager, an awaitable, or a
    value as is."""
    try:
        if hasattr(made, "__aenter__") and hasattr(made, "__aexit__"):
            cm: Any = made
            value = await cm.__aenter__()
        elif hasattr(made, "__enter__") and hasattr(made, "__exit__"):
            cm = made
            value = cm.__enter__()
        else:
            cm = None
            value = await made if inspect.isawaitable(made) else made
    except Exception as exc:
        raise FactoryError(f"{where}: the graph factory raised {one_line(exc)}") from exc
    if cm is None:
        yield value
    elif hasattr(cm, "__aexit__"):
        async with contextlib.AsyncExitStack() as stack:
            stack.push_async_exit(cm.__aexit__)
            yield value
    else:
        with contextlib.ExitStack() as stack:
            stack.push(cm.__exit__)
            yield value


def _compiled(value: Any, where: str) -> Any:
    from engine.attach import is_langgraph

    if not is_langgraph(value) and callable(getattr(value, "compile", None)):
        try:
            value = value.compile()  # a builder (StateGraph), compiled as the server does
        except Exception as exc:
            raise FactoryError(f"{where}: compiling the graph raised {one_line(exc)}") from exc
    if not is_langgraph(value) and not (
        callable(getattr(value, "get_graph", None))
        and callable(getattr(value, "astream_events", None))
    ):
        name = type(value).__name__
        article = "an" if name[:1].lower() in "aeiou" else "a"
        raise FactoryError(
            f"{where}: the graph factory returned {article} {name}, not a compiled graph"
        )
    return value


_store: Any = None


def _server_store() -> Any:
    """The store a runtime offers when the app's graph has none: one in-memory store for the
    process, as a server has one store (LangGraph's ``InMemoryStore``)."""
    global _store
    if _store is None:
        from langgraph.store.memory import InMemoryStore

        _store = InMemoryStore()
    return _store


def _runtime(access: AccessContext, context: Any, store: Any) -> Any:
    store = store if store is not None else _server_store()
    known = _runtime_types()
    if known is None:  # classify_factory refuses a runtime factory without langgraph_sdk
        raise FactoryError("a ServerRuntime needs langgraph-sdk")
    from langgraph_sdk.runtime import _ExecutionRuntime, _ReadRuntime

    if access == "threads.create_run":
        return _ExecutionRuntime(access_context=access, store=store, context=context)
    return _ReadRuntime(access_context=access, store=store)


def classify_factory(fn: Callable[..., Any], where: str) -> GraphFactory:
    """How to call ``fn`` as a server does: no argument, a config, a ``ServerRuntime``
    (told by its annotation), or both (by keyword).  Raises ``FactoryError`` otherwise."""
    params = [
        p
        for p in inspect.signature(fn).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    hints = _hints(fn)
    runtime = [p.name for p in params if _is_runtime(hints.get(p.name, p.annotation))]
    others = [p.name for p in params if p.name not in runtime]
    if len(params) > 2 or len(runtime) > 1 or len(others) > 1:
        taking = ", ".join(p.name for p in params)
        raise FactoryError(
            f"{where}: is a graph factory taking ({taking}); a factory takes nothing, a config, "
            "a ServerRuntime, or a config and a ServerRuntime"
        )
    if runtime and _runtime_types() is None:
        raise FactoryError(
            f"{where}: is a graph factory taking a ServerRuntime, which needs langgraph-sdk "
            "installed (pip install langgraph-sdk)"
        )
    return GraphFactory(
        fn,
        where,
        config_param=others[0] if others else None,
        runtime_param=runtime[0] if runtime else None,
    )
