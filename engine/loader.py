"""Load an agent (a compiled graph) from ``path/to/file.py:attr`` or ``package.module:attr``.

Every failure is one ``AgentLoadError`` whose message is a single line that says where and
what, compiler style, never a traceback::

    agents/x.py: file not found
    agents/x.py:12: syntax error: invalid syntax
    agents/x.py:7: importing the file raised ValueError: boom
    agents/x.py: no attribute 'foo' (compiled graphs in the file: agent, other)
    agents/x.py:helper: is a function, not a compiled graph (it needs get_graph(), astream_events() and get_state())

A file's code runs only when it is loaded (``load_agent``, ``list_graphs``), each time afresh,
so an edited file is picked up by loading it again.  The file's directory is put on
``sys.path`` (as ``python file.py`` would) so it can import its sibling modules.  The module is
named as the app itself would import it (``file``, or ``pkg.sub.file`` inside a package, whose
root folder goes on ``sys.path`` too): the app's checkpointer then stores the types it defines
under names the app can read back, and relative imports work.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import itertools
import sys
import traceback
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from engine.errors import AgentLoadError, one_line
from engine.project import resolve_spec

if TYPE_CHECKING:
    from engine.attach.factory import GraphFactory

__all__ = [
    "DEFAULT_ATTR",
    "AgentLoadError",
    "LoadedAgent",
    "is_graph",
    "list_graphs",
    "load_agent",
    "load_target",
    "open_file",
    "parse_spec",
]

DEFAULT_ATTR = "agent"
_counter = itertools.count(1)
_ours: weakref.WeakValueDictionary[str, ModuleType] = weakref.WeakValueDictionary()
"""The modules this loader made, by name: loading their file again replaces them."""


def is_graph(obj: Any) -> bool:
    """Does ``obj`` look like a compiled graph (``get_graph``, ``astream_events`` and
    ``get_state``)?  Every LangChain runnable has the first two: a ``@tool`` or a chat model
    defined beside the graph is no graph to open."""
    return (
        not isinstance(obj, type)
        and callable(getattr(obj, "get_graph", None))
        and callable(getattr(obj, "astream_events", None))
        and callable(getattr(obj, "get_state", None))
    )


def parse_spec(spec: str) -> tuple[str, str | None, bool]:
    """Split ``spec`` into ``(target, attr or None, is_file)``."""
    spec = spec.strip()
    if not spec:
        raise AgentLoadError("no agent given: expected path/to/file.py:attr or package.module:attr")
    target, attr = spec, None
    head, sep, tail = spec.rpartition(":")
    # a colon that separates an attribute (not a Windows drive letter like C:\...)
    if sep and tail and "/" not in tail and "\\" not in tail and len(head) > 1:
        target, attr = head, tail
    elif sep and not tail:
        target = head
    if not target:
        raise AgentLoadError(f"{spec}: no file or module before ':'")
    is_file = target.endswith(".py") or "/" in target or "\\" in target or Path(target).is_file()
    if attr is not None and not attr.isidentifier():
        raise AgentLoadError(f"{target}: {attr!r} is not a valid attribute name")
    return target, attr, is_file


def _where_in(exc: BaseException, filename: str) -> int | None:
    """The line of ``filename`` deepest in the traceback of ``exc`` (None if not in it)."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename:
            line = frame.lineno
    return line


def _package_root(path: Path) -> tuple[list[str], Path]:
    """The dotted parts of the module ``path`` is in its package tree (``pkg.sub.file``, or
    just ``file`` outside a package) and the folder that tree hangs from."""
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    return parts, folder


def _module_name(path: Path) -> str:
    """The name the file at ``path`` is imported under: the one Python would give it from its
    package tree when nothing else answers to that name, so that the types it defines are
    stored by the app's checkpointer under the module the app itself imports them from (a
    state dataclass written as ``_stepwise_agent_x.Order`` could not be read back by the app)
    and relative imports inside a package work.  A name that is not an identifier, or that
    another module answers to (a module already imported from elsewhere, the standard
    library, an installed package, the same file imported by the app before us), gets a
    private one instead."""
    parts, root = _package_root(path)
    name = ".".join(parts)
    private = (
        f"_stepwise_agent_{''.join(c if c.isalnum() else '_' for c in path.stem)}_{next(_counter)}"
    )
    if not all(part.isidentifier() for part in parts) or path.name == "__init__.py":
        return private
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    loaded = sys.modules.get(name)
    if loaded is not None:  # ours from an earlier load is run afresh; anyone else's is left alone
        return name if loaded is _ours.get(name) else private
    importlib.invalidate_caches()  # a file written since its folder was last listed
    try:
        spec = importlib.util.find_spec(name)
    except Exception:  # a parent package that fails to import, a broken finder...
        return private
    return name if spec is not None and _origin(spec.origin) == path else private


def _origin(file: str | None) -> Path | None:
    try:
        return Path(file).resolve() if file else None
    except OSError:
        return None


def _import_file(target: str) -> tuple[ModuleType, str]:
    path = Path(target)
    if not path.exists():
        raise AgentLoadError(f"{target}: file not found")
    if path.is_dir():
        raise AgentLoadError(f"{target}: is a directory, not a Python file")
    resolved = path.resolve()
    folder = str(resolved.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = _module_name(resolved)
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise AgentLoadError(f"{target}: cannot be imported as Python (expected a .py file)")
    module = importlib.util.module_from_spec(spec)
    before = sys.modules.get(name)
    sys.modules[name] = module
    try:
        with _own_argv(str(resolved)):
            spec.loader.exec_module(module)
    except SyntaxError as exc:
        _restore(name, before)
        line = f":{exc.lineno}" if exc.lineno else ""
        raise AgentLoadError(f"{target}{line}: syntax error: {exc.msg}") from None
    except KeyboardInterrupt:  # Ctrl+C while the file loads: a stop, not a broken file
        _restore(name, before)
        raise
    except BaseException as exc:  # SystemExit, GeneratorExit, a BaseException subclass...
        _restore(name, before)
        line = _where_in(exc, str(resolved))
        where = f"{target}:{line}" if line else target
        raise AgentLoadError(f"{where}: importing the file raised {one_line(exc)}") from None
    _ours[name] = module
    parent, _, child = name.rpartition(".")
    if parent and parent in sys.modules:  # as an import would: ``pkg.sub`` is ``pkg``'s ``sub``
        setattr(sys.modules[parent], child, module)
    return module, target


@contextmanager
def _own_argv(program: str) -> Iterator[None]:
    """``sys.argv`` as ``python file.py`` gives it to the file while it is imported: a script
    that parses its options at import time reads none of Stepwise's own."""
    saved = sys.argv
    sys.argv = [program]
    try:
        yield
    finally:
        sys.argv = saved


def _restore(name: str, before: ModuleType | None) -> None:
    """Undo the registration of a module whose code failed (keep an earlier good load)."""
    if before is None:
        sys.modules.pop(name, None)
    else:
        sys.modules[name] = before


def _import_module(target: str) -> tuple[ModuleType, str]:
    if not all(part.isidentifier() for part in target.split(".")):
        raise AgentLoadError(
            f"{target}: not a file or a module name (expected path/to/file.py or package.module)"
        )
    try:
        with _own_argv(target):
            module = importlib.import_module(target)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (target == exc.name or target.startswith(exc.name + ".")):
            raise AgentLoadError(f"{target}: no module named {exc.name!r}") from None
        raise AgentLoadError(f"{target}: importing the module raised {one_line(exc)}") from None
    except SyntaxError as exc:
        line = f":{exc.lineno}" if exc.lineno else ""
        raise AgentLoadError(f"{exc.filename or target}{line}: syntax error: {exc.msg}") from None
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit, GeneratorExit, a BaseException subclass...
        origin = getattr(importlib.util.find_spec(target), "origin", None) if target else None
        line = _where_in(exc, origin) if origin else None
        where = f"{origin}:{line}" if origin and line else target
        raise AgentLoadError(f"{where}: importing the module raised {one_line(exc)}") from None
    return module, target


def _load_module(target: str, is_file: bool) -> tuple[ModuleType, str]:
    return _import_file(target) if is_file else _import_module(target)


def _graph_names(module: ModuleType) -> list[str]:
    return [k for k, v in vars(module).items() if not k.startswith("_") and is_graph(v)]


def _describe(obj: Any) -> str:
    if isinstance(obj, type):
        return f"the class {obj.__name__}"
    if callable(obj) and hasattr(obj, "__code__"):
        return "a function"
    if isinstance(obj, ModuleType):
        return "a module"
    name = type(obj).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _built(obj: Any, where: str, *, factories: bool) -> tuple[Any, GraphFactory | None]:
    """What may be named besides a compiled graph, made one as the LangGraph server makes it:
    a graph builder (``StateGraph``) is compiled, and, when a ``langgraph.json`` declares it
    as its graph (``factories``), a graph factory (``engine.attach.factory``: a function taking
    nothing, a ``config`` or a ``ServerRuntime``, sync or async, or a context manager) is
    opened and held open for the session; the factory comes back too, to be opened again for
    every run.  Anything else is returned as is."""
    if _is_builder(obj):
        try:
            return obj.compile(), None
        except Exception as exc:
            raise AgentLoadError(f"{where}: compiling the graph raised {one_line(exc)}") from None
    if not factories or is_graph(obj) or not inspect.isfunction(obj):
        return obj, None
    from engine.attach.factory import FactoryError, classify_factory

    try:
        factory = classify_factory(obj, where)
        return factory.hold(), factory
    except FactoryError as exc:
        raise AgentLoadError(str(exc)) from None


def _is_builder(obj: Any) -> bool:
    """An uncompiled graph: ``add_node`` and ``compile`` (a ``StateGraph``, ours or LangGraph's)."""
    return (
        not isinstance(obj, type | ModuleType)
        and not is_graph(obj)
        and callable(getattr(obj, "compile", None))
        and callable(getattr(obj, "add_node", None))
    )


@dataclass(frozen=True)
class LoadedAgent:
    """A loaded graph with the module that defined it (for optional extras like ``INPUT``)."""

    graph: Any
    module: ModuleType
    name: str
    where: str


def load_agent(spec: str) -> Any:
    """Load the compiled graph named by ``spec`` (``file.py:attr``, ``pkg.mod:attr``; the
    attribute defaults to ``agent``; or a LangGraph project: ``langgraph.json[:graph_id]`` or
    its folder, see ``engine.project``).  Raises ``AgentLoadError`` with a one-line message."""
    return load_target(spec).graph


def load_target(spec: str, module: ModuleType | None = None) -> LoadedAgent:
    """``load_agent``, also returning the module and the attribute name.

    ``module``: the module ``spec`` names, already imported (``open_file``): it is not run again.
    """
    project = resolve_spec(spec)  # a LangGraph project's langgraph.json: the graph it names
    target, attr, is_file = parse_spec(project.spec if project is not None else spec)
    if module is None:
        module, where = _load_module(target, is_file)
    else:
        where = target
    name = attr or DEFAULT_ATTR
    if not hasattr(module, name):
        graphs = _graph_names(module)
        found = (
            f"compiled graphs in the file: {', '.join(graphs)}"
            if graphs
            else "it defines no compiled graph"
        )
        if attr is None:
            hint = f"; pick one with {where}:NAME" if graphs else ""
            raise AgentLoadError(f"{where}: no attribute '{DEFAULT_ATTR}' ({found}{hint})")
        raise AgentLoadError(f"{where}: no attribute {name!r} ({found})")
    obj, factory = _built(getattr(module, name), f"{where}:{name}", factories=project is not None)
    if not is_graph(obj):
        raise AgentLoadError(
            f"{where}:{name}: is {_describe(obj)}, not a compiled graph (it needs get_graph(), astream_events() and get_state())"
        )
    from engine.attach import attach, is_langgraph

    if factory is not None and not is_langgraph(obj):  # our graph: made again for every run
        obj.remake = factory.for_runs()
        obj.made_saver = getattr(obj, "checkpointer", None)
    if is_langgraph(obj):  # a real langgraph graph: run it on langgraph, seen through our events
        label = project.graph_id if project is not None else name  # as the server names it
        obj = attach(
            obj,
            name=label if getattr(obj, "name", None) == "LangGraph" else None,
            factory=factory,
        )
    return LoadedAgent(obj, module, name, where)


def open_file(path: str) -> tuple[ModuleType, list[str]]:
    """Import a file (or module) once: the module and the names of the compiled graphs it
    defines, in definition order.  Pass the module to ``load_target`` to pick one without
    running the file again.  Runs the file's code; errors as in ``load_agent``."""
    project = resolve_spec(path)
    target, _attr, is_file = parse_spec(project.spec if project is not None else path)
    module, _ = _load_module(target, is_file)
    return module, _graph_names(module)


def list_graphs(path: str) -> list[str]:
    """Names of the compiled graphs a file (or module) defines (see ``open_file``)."""
    return open_file(path)[1]
