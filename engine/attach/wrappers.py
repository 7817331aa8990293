"""See the ``wrap_model_call`` / ``wrap_tool_call`` middleware of a real create_agent without
changing the user's code or the user's graph.

LangChain composes the middleware's wrap methods into one handler when the agent is built
(first middleware outermost) and hides it in the model node's closure and in the ``ToolNode``;
callbacks never see the layers.  ``instrument(graph)`` returns a copy of the compiled graph
whose model and tool nodes run the *same* composition, LangChain's own composing closures
included, with each middleware's method swapped for a ``Layer`` that emits our wrapper and
attempt events around it and then calls the method unchanged.  Only the copy is run; the
user's graph, nodes and middleware objects are never modified.  When the agent was built by a
LangChain whose composition we do not recognise, the node is left as it is (its calls still
show, directly under the node) and ``instrument`` says which nodes it could not see into.
"""

from __future__ import annotations

import copy
import inspect
import types
from dataclasses import dataclass, field
from typing import Any

from engine.attach.layers import LayerSpec, WrapperKind

__all__ = ["Instrumented", "instrument"]

_METHODS: dict[str, tuple[WrapperKind, bool]] = {
    "wrap_model_call": ("wrap_model_call", False),
    "awrap_model_call": ("wrap_model_call", True),
    "wrap_tool_call": ("wrap_tool_call", False),
    "awrap_tool_call": ("wrap_tool_call", True),
}
_MODEL_CELLS = ("wrap_model_call_handler", "awrap_model_call_handler")


@dataclass
class Instrumented:
    """What ``instrument`` made of a graph."""

    graph: Any
    """The copy to run (the graph itself when it has no middleware layers)."""
    blind: list[str] = field(default_factory=list)
    """Nodes whose layers could not be instrumented (their calls show directly under them)."""
    sync_only: list[str] = field(default_factory=list)
    """Middleware with only the sync ``wrap_*`` methods: the agent can only run synchronously."""
    async_only: list[str] = field(default_factory=list)
    """Middleware with only the async ``awrap_*`` methods: it can only run asynchronously."""
    reached: list[str] = field(default_factory=list)
    """Agent model and tool nodes with Stepwise's innermost layer (faults, replay)."""
    wrappers: dict[str, list[str]] = field(default_factory=dict)
    """Node (``sub/node`` inside a subgraph node) -> its middleware layers, outermost first."""

    def _found(self, middleware: Any, method: str) -> None:
        name = str(getattr(middleware, "name", None) or type(middleware).__name__)
        other = method[1:] if method.startswith("a") else f"a{method}"
        implemented = getattr(type(middleware), other, None)
        if not str(getattr(implemented, "__qualname__", "")).startswith("AgentMiddleware."):
            return
        into = self.async_only if method.startswith("a") else self.sync_only
        if name not in into:
            into.append(name)


def instrument(graph: Any) -> Instrumented:
    """A copy of ``graph`` whose create_agent middleware layers emit events (see the module
    docstring), with what was learnt of its middleware on the way."""
    out = Instrumented(graph)
    out.graph = _instrument_graph(graph, out, "")
    return out


def _instrument_graph(graph: Any, out: Instrumented, prefix: str) -> Any:
    nodes = dict(getattr(graph, "nodes", None) or {})
    changed: dict[str, Any] = {}
    for name, node in nodes.items():
        new = _instrument_runnable(getattr(node, "bound", None), out, f"{prefix}{name}")
        if new is not None:
            changed[name] = node.copy({"bound": new})
    if not changed:
        return graph
    return graph.copy(update={"nodes": {**nodes, **changed}})


def _instrument_runnable(bound: Any, out: Instrumented, where: str) -> Any | None:
    if bound is None:
        return None
    if _is_pregel(bound):  # a compiled subgraph added as a node
        new = _instrument_graph(bound, out, f"{where}/")
        return new if new is not bound else None
    if hasattr(bound, "_wrap_tool_call") and hasattr(bound, "tools_by_name"):
        return _instrument_tool_node(bound, out, where)
    func, afunc = getattr(bound, "func", None), getattr(bound, "afunc", None)
    if not any(_cell_of(f, name) is not None for f in (func, afunc) for name in _MODEL_CELLS):
        return None  # not an agent's model node
    from engine.attach.innermost import model_layers

    sync_handler = _handler_in(func, "wrap_model_call_handler")
    async_handler = _handler_in(afunc, "awrap_model_call_handler")
    sync_new = None if sync_handler is None else _rebuild(sync_handler, _Walk(out, where))
    async_new = None if async_handler is None else _rebuild(async_handler, _Walk(out, where))
    if (sync_handler is not None and sync_new is None) or (
        async_handler is not None and async_new is None
    ):
        out.blind.append(where)  # its middleware cannot be seen into: leave it as it is
        return None
    inner_sync, inner_async = model_layers(sync_new, async_new)
    out.reached.append(where)
    clone = copy.copy(bound)
    clone.func = _with_cell(func, "wrap_model_call_handler", inner_sync) or func
    clone.afunc = _with_cell(afunc, "awrap_model_call_handler", inner_async) or afunc
    return clone


def _instrument_tool_node(node: Any, out: Instrumented, where: str) -> Any | None:
    from engine.attach.innermost import tool_layers
    from engine.attach.tool_execution import layer_executions

    sync, asyn = node._wrap_tool_call, node._awrap_tool_call
    new_sync = _rebuild(sync, _Walk(out, where)) if sync is not None else None
    new_async = _rebuild(asyn, _Walk(out, where)) if asyn is not None else None
    if (sync is not None or asyn is not None) and new_sync is None and new_async is None:
        out.blind.append(where)
        return None
    out.reached.append(where)
    clone = copy.copy(node)
    for attr in ("func", "afunc"):  # RunnableCallable keeps bound methods of the original
        method = getattr(node, attr, None)
        if inspect.ismethod(method) and method.__self__ is node:
            setattr(clone, attr, getattr(clone, method.__func__.__name__))
    if sync is None and asyn is None and layer_executions(clone):
        return clone  # no wrapper of ours: the node's own error handling stays as it is
    new_sync, new_async = tool_layers(new_sync or sync, new_async or asyn)
    clone._wrap_tool_call = new_sync
    clone._awrap_tool_call = new_async
    return clone


# -- the composition ---------------------------------------------------------------------------


class _Walk:
    """One walk down a composed chain: the next layer's depth, and where to report layers."""

    def __init__(self, out: Instrumented, where: str) -> None:
        self.out = out
        self.where = where
        self.depth = 0

    def found(self, middleware: Any, method: str) -> int:
        """Report a layer; returns its depth."""
        self.out._found(middleware, method)
        name = str(getattr(middleware, "name", None) or type(middleware).__name__)
        names = self.out.wrappers.setdefault(self.where, [])
        if self.depth >= len(names):
            names.append(name)
        self.depth += 1
        return self.depth - 1


def _rebuild(fn: Any, walk: _Walk) -> Any | None:
    """``fn`` (a composed handler, or one middleware's method) with every middleware method in
    it replaced by an instrumented layer; None when its shape is not one we know."""
    found = _middleware_method(fn)
    if found is not None:
        middleware, method = found
        wrapper, is_async = _METHODS[method]
        spec = LayerSpec(middleware, wrapper, walk.found(middleware, method))
        return _async_layer(fn, spec) if is_async else _sync_layer(fn, spec)
    if not isinstance(fn, types.FunctionType) or not fn.__closure__:
        return None
    names = fn.__code__.co_freevars
    if "outer" in names and "inner" in names:  # compose_two: outer wraps inner
        parts = ["outer", "inner"]
    elif "single_handler" in names:
        parts = ["single_handler"]
    else:
        return None
    closure = list(fn.__closure__)
    for part in parts:
        i = names.index(part)
        new = _rebuild(closure[i].cell_contents, walk)
        if new is None:
            return None
        closure[i] = types.CellType(new)
    return _copy_function(fn, tuple(closure))


def _middleware_method(fn: Any) -> tuple[Any, str] | None:
    """(middleware, method name) when ``fn`` is (a decoration of) a middleware's wrap method."""
    seen = 0
    while fn is not None and seen < 10:
        if inspect.ismethod(fn):
            owner = fn.__self__
            if any(c.__name__ == "AgentMiddleware" for c in type(owner).__mro__):
                for method in _METHODS:  # by identity: decorators name their functions freely
                    if getattr(type(owner), method, None) is fn.__func__:
                        return owner, method
        fn = getattr(fn, "__wrapped__", None)
        seen += 1
    return None


def _cell_of(fn: Any, name: str) -> types.CellType | None:
    if not isinstance(fn, types.FunctionType) or not fn.__closure__:
        return None
    names = fn.__code__.co_freevars
    return fn.__closure__[names.index(name)] if name in names else None


def _handler_in(fn: Any, name: str) -> Any | None:
    """The composed handler the model-node function ``fn`` keeps in its cell ``name``."""
    cell = _cell_of(fn, name)
    try:
        return None if cell is None else cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _with_cell(fn: Any, name: str, value: Any) -> Any | None:
    """A copy of ``fn`` whose closure cell ``name`` holds ``value`` (None: no such cell)."""
    cell = _cell_of(fn, name)
    if cell is None:
        return None
    assert fn.__closure__ is not None
    closure = tuple(types.CellType(value) if c is cell else c for c in fn.__closure__)
    return _copy_function(fn, closure)


def _copy_function(fn: types.FunctionType, closure: tuple[types.CellType, ...]) -> Any:
    new = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    new.__annotations__ = fn.__annotations__
    new.__doc__ = fn.__doc__
    new.__module__ = fn.__module__
    new.__dict__.update(fn.__dict__)
    return new


def _is_pregel(obj: Any) -> bool:
    return any(c.__name__ == "Pregel" for c in type(obj).__mro__) and not isinstance(obj, type)


# -- the layers -------------------------------------------------------------------------------


def _async_layer(method: Any, spec: LayerSpec) -> Any:
    async def layer(request: Any, handler: Any) -> Any:
        entry = spec.enter(request)
        if entry is None:
            return await method(request, handler)

        async def call(req: Any) -> Any:
            await entry.aemit(entry.before_call(req))
            try:
                out = await handler(req)
            except BaseException as exc:
                await entry.aemit(entry.after_call(exc))
                raise
            await entry.aemit(entry.after_call(None))
            return out

        await entry.aemit(entry.start())
        try:
            result = await method(request, call)
        except BaseException as exc:
            await entry.aemit(entry.finish(exc))
            raise
        await entry.aemit(entry.finish(None))
        return result

    return layer


def _sync_layer(method: Any, spec: LayerSpec) -> Any:
    def layer(request: Any, handler: Any) -> Any:
        entry = spec.enter(request)
        if entry is None:
            return method(request, handler)

        def call(req: Any) -> Any:
            entry.emit(entry.before_call(req))
            try:
                out = handler(req)
            except BaseException as exc:
                entry.emit(entry.after_call(exc))
                raise
            entry.emit(entry.after_call(None))
            return out

        entry.emit(entry.start())
        try:
            result = method(request, call)
        except BaseException as exc:
            entry.emit(entry.finish(exc))
            raise
        entry.emit(entry.finish(None))
        return result

    return layer
