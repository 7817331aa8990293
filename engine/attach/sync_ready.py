"""Can an attached app run on LangGraph's sync ``stream``?  Told from the compiled graph.

Attach runs an app on the sync ``stream`` (a worker thread) when nothing in it needs the async
API: LangGraph's sync loop runs a lone task on the stream's own thread, as the app's own
``invoke`` does, where ``astream`` hops to the event loop and back for every node and callback
(issue 26: the same run costs about a fifth less).  Whatever can only run async keeps the run
on ``astream`` (today's behaviour), and so does whatever this module cannot judge:

- a node, a branch or a step whose runnable has no sync function (an ``async def`` node, hook,
  route, tool, a ``RunnableLambda`` of a coroutine function), or a runnable of a kind not
  known here;
- a ``ToolNode`` with an async ``awrap_tool_call`` and no sync one (its sync path would skip it);
- a chat model or a tool whose sync method only raises ``NotImplementedError``;
- a checkpointer, store or cache whose sync methods are missing, only raise, or hand the call
  to an event loop (``AsyncSqliteSaver``, ``AsyncPostgresSaver``: they fail when called from
  their own loop's thread, and block it otherwise).

A sync function runs on a worker thread either way (``astream`` hands it to an executor), so
it is not looked into.
"""

from __future__ import annotations

import types
from typing import Any

__all__ = ["async_handlers", "async_only_parts"]

_DEPTH = 12
"""How deep nested runnables are followed before giving up (unsure: async)."""

_SAVER_METHODS = ("get_tuple", "list", "put", "put_writes")
_STORE_METHODS = ("batch",)
_CACHE_METHODS = ("get", "set")


def async_only_parts(graph: Any) -> list[str]:
    """What in the compiled ``graph`` (a LangGraph ``Pregel``) needs the async API or cannot
    be judged, one short phrase each; empty when the graph can run on the sync ``stream``."""
    found: list[str] = []
    _Walk(found).graph(graph, "", 0)
    return found


def _only_raises(method: Any) -> bool:
    """Does ``method`` do nothing but raise ``NotImplementedError`` (a base class's stub)?"""
    code = getattr(getattr(method, "__func__", method), "__code__", None)
    if code is None:
        return False
    names = set(code.co_names)
    return "NotImplementedError" in names and len(names) <= 2


def _bridged(method: Any) -> bool:
    """Does ``method`` hand the call to an event loop (``run_coroutine_threadsafe``)?"""
    code = getattr(getattr(method, "__func__", method), "__code__", None)
    return code is not None and "run_coroutine_threadsafe" in code.co_names


def _class_names(obj: Any) -> set[str]:
    return {c.__name__ for c in type(obj).__mro__}


def _sync_service(obj: Any, methods: tuple[str, ...]) -> bool:
    """Do ``obj``'s sync ``methods`` run in the calling thread (implemented, not a stub, not
    handed to an event loop)?"""
    for name in methods:
        method = getattr(type(obj), name, None)
        if method is None or _only_raises(method) or _bridged(method):
            return False
    return True


class _Walk:
    def __init__(self, found: list[str]) -> None:
        self.found = found
        self.seen: set[int] = set()

    def no(self, what: str) -> None:
        if what not in self.found:
            self.found.append(what)

    def graph(self, graph: Any, where: str, depth: int) -> None:
        saver = getattr(graph, "checkpointer", None)
        if saver not in (None, True, False) and not _sync_service(saver, _SAVER_METHODS):
            self.no(f"{where or 'the graph'}'s checkpointer {type(saver).__name__} (async only)")
        store = getattr(graph, "store", None)
        if store is not None and not _sync_service(store, _STORE_METHODS):
            self.no(f"{where or 'the graph'}'s store {type(store).__name__} (async only)")
        cache = getattr(graph, "cache", None)
        if cache is not None and not _sync_service(cache, _CACHE_METHODS):
            self.no(f"{where or 'the graph'}'s cache {type(cache).__name__} (async only)")
        for name, node in dict(getattr(graph, "nodes", None) or {}).items():
            at = f"{where}{name}"
            self.runnable(getattr(node, "bound", None), at, depth + 1)
            for writer in getattr(node, "writers", None) or ():
                self.runnable(writer, at, depth + 1)

    def runnable(self, obj: Any, where: str, depth: int) -> None:
        if obj is None or id(obj) in self.seen:
            return
        self.seen.add(id(obj))
        if depth > _DEPTH:
            self.no(f"node {where!r}: nested too deep to judge")
            return
        names = _class_names(obj)
        if "Pregel" in names and not isinstance(obj, type):
            self.graph(obj, f"{where}/", depth)
        elif "ToolNode" in names:
            self.tool_node(obj, where)
        elif "RunnableCallable" in names:
            self.callable(obj, where, depth)
        elif "ChannelWrite" in names or "ChannelRead" in names:
            return  # LangGraph's own channel plumbing: sync
        elif "RunnableLambda" in names:
            if not hasattr(obj, "func"):
                self.no(f"node {where!r}: an async-only RunnableLambda")
        elif "BaseChatModel" in names or "BaseLLM" in names:
            self.model(obj, where)
        elif "BaseTool" in names:
            self.tool(obj, where)
        elif "RunnableBinding" in names:
            self.runnable(getattr(obj, "bound", None), where, depth + 1)
        elif names & {"RunnableSequence", "RunnableSeq"}:
            for step in getattr(obj, "steps", None) or ():
                self.runnable(step, where, depth + 1)
        elif "RunnableParallel" in names:
            for step in (getattr(obj, "steps__", None) or {}).values():
                self.runnable(step, where, depth + 1)
        elif "RunnableWithFallbacks" in names:
            self.runnable(getattr(obj, "runnable", None), where, depth + 1)
            for step in getattr(obj, "fallbacks", None) or ():
                self.runnable(step, where, depth + 1)
        elif "RunnablePassthrough" in names:
            if getattr(obj, "func", None) is None and getattr(obj, "afunc", None) is not None:
                self.no(f"node {where!r}: an async-only RunnablePassthrough")
        elif names & {"BasePromptTemplate", "BaseOutputParser"}:
            return  # prompts and parsers: sync
        else:
            self.no(f"node {where!r}: a {type(obj).__name__} (cannot tell whether it runs sync)")

    def callable(self, obj: Any, where: str, depth: int) -> None:
        func = getattr(obj, "func", None)
        if func is None:
            self.no(f"node {where!r} (async only)")
            return
        owner = getattr(func, "__self__", None)
        if owner is not None and "BranchSpec" in _class_names(owner):
            self.runnable(getattr(owner, "path", None), f"{where} (its route)", depth + 1)
            return
        if isinstance(func, types.FunctionType) and func.__closure__:
            cells = dict(zip(func.__code__.co_freevars, func.__closure__, strict=True))
            model = _contents(cells.get("model"))
            if model is not None and not isinstance(model, str):
                self.runnable(model, where, depth + 1)  # a create_agent model node's model

    def tool_node(self, node: Any, where: str) -> None:
        if getattr(node, "_wrap_tool_call", None) is None and (
            getattr(node, "_awrap_tool_call", None) is not None
        ):
            self.no(f"node {where!r}: an async-only wrap_tool_call")
        tools = getattr(node, "tools_by_name", None)
        if tools is None:
            tools = getattr(node, "_tools_by_name", None) or {}
        for tool in tools.values():
            self.tool(tool, where)

    def tool(self, tool: Any, where: str) -> None:
        name = getattr(tool, "name", type(tool).__name__)
        names = _class_names(tool)
        if names & {"StructuredTool", "Tool"}:
            if getattr(tool, "func", None) is None:
                self.no(f"tool {name!r} of node {where!r} (async only)")
        elif _only_raises(getattr(type(tool), "_run", None)):
            self.no(f"tool {name!r} of node {where!r} (async only)")

    def model(self, model: Any, where: str) -> None:
        if any(_only_raises(getattr(type(model), m, None)) for m in ("_generate", "_call")):
            self.no(f"the model {type(model).__name__} of node {where!r} (async only)")


def _contents(cell: types.CellType | None) -> Any:
    if cell is None:
        return None
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def async_handlers(callbacks: Any) -> bool:
    """Does a run's ``callbacks`` (a list of handlers or a callback manager) hold an async
    handler?  LangChain runs those from a sync run on a loop of its own, not the app's."""
    handlers = getattr(callbacks, "handlers", callbacks)
    if not isinstance(handlers, (list, tuple)):
        return False
    return any("AsyncCallbackHandler" in _class_names(h) for h in handlers)
