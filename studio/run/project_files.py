"""Which files make up the user's agent: the agent file and the modules it imported from its
own folder (plain Python, no Qt).

``project_modules(agent_file)`` lists the modules in ``sys.modules`` whose source lies in the
agent file's folder or below, never Stepwise's own packages, the standard library or installed
packages (an agent file inside a checkout of Stepwise must not make the studio reload itself).
``forget(modules)`` drops them from ``sys.modules`` (and their bytecode caches) so the next
import of the agent file imports them afresh, as a restarted ``langgraph dev`` would.
``forget_shadowed(agent_file)`` drops modules another project imported under a name this
folder also has (two projects' ``tools.py``): the agent file then imports its own.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

__all__ = ["forget", "forget_shadowed", "project_modules", "source_signature", "spec_file"]


def spec_file(spec: str) -> Path | None:
    """The agent file ``spec`` (``path/file.py:attr``, or a LangGraph project: the file its
    ``langgraph.json`` names) names, absolute; None for a module."""
    from engine.loader import parse_spec
    from engine.project import project_spec

    try:
        target, _attr, is_file = parse_spec(project_spec(spec) or spec)
    except Exception:
        return None
    return Path(target).resolve() if is_file else None


def _protected() -> list[Path]:
    """Folders whose modules are never the user's project."""
    roots = {Path(p).resolve() for p in sysconfig.get_paths().values() if p}
    for name in ("engine", "studio", "resources"):  # Stepwise itself
        module = sys.modules.get(name)
        for folder in getattr(module, "__path__", None) or ():
            roots.add(Path(folder).resolve())
    return sorted(roots)


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def project_modules(agent_file: Path) -> dict[str, Path]:
    """``{module name: source file}`` of the modules imported from ``agent_file``'s folder
    (or below), the agent file's own module(s) included."""
    folder = agent_file.parent
    protected = _protected()
    found: dict[str, Path] = {}
    for name, module in list(sys.modules.items()):
        origin = getattr(module, "__file__", None)
        if not origin or not origin.endswith(".py"):
            continue
        path = Path(origin).resolve()
        if not _inside(path, folder) or any(_inside(path, p) for p in protected):
            continue
        found[name] = path
    return found


def forget_shadowed(agent_file: Path) -> None:
    """Forget modules imported from elsewhere whose names this folder's files would take."""
    folder = agent_file.parent
    protected = _protected()
    stale: dict[str, Path] = {}
    for name, module in list(sys.modules.items()):
        top = name.partition(".")[0]
        if not ((folder / f"{top}.py").is_file() or (folder / top / "__init__.py").is_file()):
            continue
        origin = getattr(module, "__file__", None)
        path = Path(origin).resolve() if origin else None
        if path is None or _inside(path, folder) or any(_inside(path, p) for p in protected):
            continue
        stale[name] = path
    if stale:
        forget(stale)


def forget(modules: dict[str, Path]) -> None:
    """Drop ``modules`` so they import afresh; their cached bytecode goes too (an edit made
    in the same second as the last import, keeping the size, would otherwise look unchanged)."""
    for name, path in modules.items():
        sys.modules.pop(name, None)
        try:
            Path(importlib.util.cache_from_source(str(path))).unlink(missing_ok=True)
        except (OSError, ValueError, NotImplementedError):
            pass
    importlib.invalidate_caches()


def source_signature(paths: Iterable[Path]) -> dict[Path, tuple[int, int] | None]:
    """``(mtime ns, size)`` of each file (None: missing): what "changed on disk" compares."""
    out: dict[Path, tuple[int, int] | None] = {}
    for path in paths:
        try:
            st = path.stat()
        except OSError:
            out[path] = None
            continue
        out[path] = (st.st_mtime_ns, st.st_size)
    return out
