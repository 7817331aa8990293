"""A LangGraph project (its ``langgraph.json``) opened as an agent spec.

``stepwise open path/to/langgraph.json`` (or the folder that holds it, or ``...json:GRAPH_ID``)
opens the graph the project's configuration names, as ``langgraph dev`` would serve it: its
``graphs`` entry (``"./src/agent/graph.py:graph"``, ``"agent.graph:graph"`` or
``{"path": ...}``) resolved against the configuration's folder, with the project's
``env`` (a ``.env`` file or a mapping) in the environment.  Variables already set win; their
values are never logged or shown, only their names.

``resolve_spec`` passes any other spec through unchanged, so every loader entry point can call
it first.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from engine.errors import AgentLoadError

__all__ = [
    "CONFIG_NAME",
    "ProjectGraph",
    "project_config",
    "project_graph_ids",
    "project_spec",
    "read_env_file",
    "resolve_spec",
]

CONFIG_NAME = "langgraph.json"
_log = logging.getLogger("stepwise.project")


@dataclass(frozen=True)
class ProjectGraph:
    """The graph a project spec names."""

    spec: str
    """``/abs/path/file.py:attr`` or ``package.module:attr``: what the loader imports."""
    graph_id: str
    config: Path
    env_names: tuple[str, ...] = ()
    """The variables the project's ``env`` put in the environment (names only)."""

    @property
    def label(self) -> str:
        return f"{self.graph_id} ({self.config.parent.name}/{CONFIG_NAME})"


def project_config(target: str) -> Path | None:
    """The ``langgraph.json`` a spec's target names (the file, or a folder holding one)."""
    path = Path(target)
    if path.name.endswith(".json"):
        return path
    if path.is_dir() and (path / CONFIG_NAME).is_file():
        return path / CONFIG_NAME
    return None


def _split(spec: str) -> tuple[str, str | None]:
    """(target, graph id) of ``path[:graph_id]`` (a Windows drive's colon is not a split)."""
    head, sep, tail = spec.strip().rpartition(":")
    if sep and tail and "/" not in tail and "\\" not in tail and len(head) > 1:
        return head, tail
    return spec.strip().rstrip(":"), None


def resolve_spec(spec: str) -> ProjectGraph | None:
    """The graph a project spec names (None: ``spec`` is not a project spec).  Puts the
    project's folder, its local ``dependencies`` and its ``env`` in place; raises
    ``AgentLoadError`` with one line for a missing or malformed configuration."""
    named = _named_graph(spec)
    if named is None:
        return None
    config, data, graph_id, ref = named
    root = config.parent.resolve()
    _on_path(root, data.get("dependencies"))
    names = _load_env(root, data.get("env"), str(config))
    return ProjectGraph(ref, graph_id, config, names)


def project_spec(spec: str) -> str | None:
    """The ``file.py:attr`` (or ``module:attr``) a project spec names, None when ``spec`` is
    not a project spec; nothing is put in place (see ``resolve_spec``)."""
    named = _named_graph(spec)
    return None if named is None else named[3]


def _named_graph(spec: str) -> tuple[Path, Mapping[str, object], str, str] | None:
    """A project spec's configuration file, its contents, the graph id and the graph's
    reference (a file made absolute); None when ``spec`` is not a project spec."""
    target, graph_id = _split(spec)
    config = project_config(target)
    if config is None:
        return None
    where = str(config)
    data, graphs = _read_config(config)
    ids = ", ".join(str(k) for k in graphs)
    if graph_id is None:
        if len(graphs) > 1:
            raise AgentLoadError(
                f"{where}: it names several graphs ({ids}); pick one with {where}:ID"
            )
        graph_id = str(next(iter(graphs)))
    entry = graphs.get(graph_id)
    if entry is None:
        raise AgentLoadError(f"{where}: no graph {graph_id!r} (graphs: {ids})")
    ref = entry.get("path") if isinstance(entry, Mapping) else entry
    if not isinstance(ref, str) or ":" not in ref:
        raise AgentLoadError(
            f"{where}: graph {graph_id!r} is not a 'file.py:attr' or 'module:attr' reference"
        )
    file, _, attr = ref.rpartition(":")
    if file.endswith(".py") or "/" in file or "\\" in file:
        file = str((config.parent.resolve() / file).resolve())
    return config, data, graph_id, f"{file}:{attr}"


def project_graph_ids(config: Path) -> list[str]:
    """The graph ids a ``langgraph.json`` names, in its order (``AgentLoadError`` if it is
    missing or malformed)."""
    return [str(k) for k in _read_config(config)[1]]


def _read_config(config: Path) -> tuple[Mapping[str, object], Mapping[str, object]]:
    """The configuration and its ``graphs`` (at least one)."""
    where = str(config)
    if not config.is_file():
        raise AgentLoadError(f"{where}: file not found")
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise AgentLoadError(f"{where}: cannot be read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise AgentLoadError(f"{where}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    graphs = data.get("graphs") if isinstance(data, Mapping) else None
    if not isinstance(graphs, Mapping) or not graphs:
        raise AgentLoadError(
            f'{where}: it names no graphs (expected "graphs": {{"id": "file.py:attr"}})'
        )
    return data, graphs


def _on_path(root: Path, dependencies: object) -> None:
    """The project's folder and its local dependencies (``"."``, ``"./my_agent"``), with the
    ``src/`` of each that has one, on ``sys.path``: what installing them, as the server's image
    does, would make importable."""
    folders = [root]
    if isinstance(dependencies, list):
        for dep in dependencies:
            if isinstance(dep, str) and dep.startswith("."):
                folders.append((root / dep).resolve())
    # a dependency in the src layout installs the packages under its src/
    folders += [f / "src" for f in folders if (f / "src").is_dir()]
    for folder in reversed(folders):
        if folder.is_dir() and str(folder) not in sys.path:
            sys.path.insert(0, str(folder))


def _load_env(root: Path, env: object, where: str) -> tuple[str, ...]:
    if env is None:
        return ()
    if isinstance(env, Mapping):
        pairs = {str(k): str(v) for k, v in env.items()}
    elif isinstance(env, str):
        path = root / env
        if not path.is_file():
            _log.warning("%s: its env file %s does not exist; going on without it", where, env)
            return ()
        try:
            pairs = read_env_file(path)
        except (OSError, UnicodeDecodeError) as exc:
            raise AgentLoadError(f"{where}: its env file {env} cannot be read ({exc})") from None
    else:
        raise AgentLoadError(f'{where}: "env" must be a file name or a mapping')
    added = tuple(k for k in pairs if k not in os.environ)
    for name in added:
        os.environ[name] = pairs[name]
    return added


def read_env_file(path: Path) -> dict[str, str]:
    """``KEY=value`` lines of a dotenv file (``export`` prefixes, comments, blank lines and
    single or double quotes as dotenv writes them; no interpolation)."""
    out: dict[str, str] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key.replace("_", "").isalnum():
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        out[key] = value
    return out
