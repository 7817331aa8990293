"""The Python grep of ``FilesystemFileSearchMiddleware``, run in a child process so a regex that
backtracks catastrophically (``(a+)+$`` on a long line) can be stopped at a deadline: Python's
``re`` holds the interpreter lock while it matches, so neither a thread nor a signal can.

Started as ``python -I -S grep_worker.py`` (standard library only: ``search_paths`` is loaded
from its file, no package is imported), it reads one JSON request on stdin
(``pattern``, ``base``, ``root``, ``include``, ``max_bytes``) and writes the hits as JSON
(``{virtual path: [[line number, line], ...]}``) on stdout.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["search"]


def _search_paths() -> ModuleType:
    """``engine.middleware.search_paths``, loaded from its file (importing the ``engine``
    package would take seconds)."""
    where = Path(__file__).with_name("search_paths.py")
    spec = importlib.util.spec_from_file_location("_stepwise_search_paths", where)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def search(
    pattern: str, base: str, root: str, include: str | None, max_bytes: int
) -> dict[str, list[tuple[int, str]]]:
    """Lines matching ``pattern`` in the files under ``base`` (within ``root``)."""
    paths = _search_paths()
    regex = re.compile(pattern)
    root_path = Path(root)
    hits: dict[str, list[tuple[int, str]]] = {}
    for folder, _dirs, names in os.walk(base, followlinks=False):
        for name in sorted(names):
            file = Path(folder) / name
            if not paths.is_within_root(file, root_path) or not file.is_file():
                continue
            if include and not paths.include_matches(name, include):
                continue
            if file.stat().st_size > max_bytes:
                continue
            try:
                text = file.read_text()
            except (UnicodeDecodeError, PermissionError):
                continue
            for number, line in enumerate(text.splitlines(), 1):
                if regex.search(line):
                    hits.setdefault(paths.virtual_path(file, root_path), []).append((number, line))
    return hits


def main() -> int:
    request: dict[str, Any] = json.load(sys.stdin)
    hits = search(
        request["pattern"],
        request["base"],
        request["root"],
        request.get("include"),
        int(request["max_bytes"]),
    )
    json.dump(hits, sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
