"""The built-in scenarios: agent files in ``resources/scenarios/``, each defining ``agent``.

Listing them reads each file's module docstring with ``ast`` (nothing is executed), so the
scenario picker opens at once; its first line is the one-line description.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

__all__ = ["DEFAULT_SCENARIO", "Scenario", "builtin_scenarios", "find_scenario"]

DEFAULT_SCENARIO = "retry_todos"
"""Seed 000: retries and todos, offline on the scripted model."""


@dataclass(frozen=True)
class Scenario:
    name: str
    path: Path
    description: str

    @property
    def spec(self) -> str:
        return f"{self.path}:agent"


def _description(path: Path) -> str:
    try:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    except (OSError, SyntaxError, ValueError):
        return ""
    return doc.strip().splitlines()[0].strip() if doc.strip() else ""


def scenarios_dir() -> Path:
    return Path(str(resources.files("resources").joinpath("scenarios")))


def builtin_scenarios(folder: Path | None = None) -> list[Scenario]:
    """The scenarios, the default one first, then by name."""
    folder = folder or scenarios_dir()
    found = [
        Scenario(p.stem, p, _description(p))
        for p in sorted(folder.glob("*.py"))
        if not p.name.startswith("_")
    ]
    return sorted(found, key=lambda s: (s.name != DEFAULT_SCENARIO, s.name))


def find_scenario(name: str, folder: Path | None = None) -> Scenario | None:
    return next((s for s in builtin_scenarios(folder) if s.name == name), None)
