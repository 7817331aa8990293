"""``FilesystemFileSearchMiddleware``: ``glob_search`` and ``grep_search`` tools over a directory.

The agent sees the directory ``root_path`` as a virtual filesystem rooted at ``/``; paths with
``..`` or ``~``, absolute glob patterns and anything that resolves outside the root (symlinks
included) find nothing (see ``engine.middleware.search_paths``).

- ``glob_search(pattern, path="/")``: files matching the glob under ``path``, newest first,
  one virtual path a line, or ``No files found``.
- ``grep_search(pattern, path="/", include=None, output_mode="files_with_matches")``: lines
  matching the regex, in files whose name matches ``include`` (``*.py``, ``*.{ts,tsx}``), as
  file paths, ``path:line:text`` (``content``) or ``path:count`` (``count``), sorted by path;
  ``No matches found``, ``Invalid regex pattern: ...`` or ``Invalid include pattern``.
  Uses ``rg --json`` when ``use_ripgrep`` and ripgrep is installed (a linear-time engine),
  else a Python walk that skips files above ``max_file_size_mb``, undecodable files and
  symlinked directories.  The Python walk runs in a child process stopped after
  ``search_timeout_s``, so a pattern that backtracks catastrophically (``(a+)+$``) answers
  ``Search timed out ...`` instead of holding the agent (and the interpreter) for ever.

Each search is reported as ``middleware.action`` ``file_search`` (tool, pattern, path, backend
and how many files matched).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal

from engine.events import MiddlewareAction
from engine.middleware.search_paths import (
    is_valid_include,
    is_within_root,
    resolve_virtual,
    virtual_path,
)
from engine.middleware.types import AgentMiddleware
from engine.observe.bus import emit_sync
from engine.tools import tool

__all__ = ["FilesystemFileSearchMiddleware"]

Hits = dict[str, list[tuple[int, str]]]
"""Virtual path -> ``[(line number, line text)]``."""
OutputMode = Literal["files_with_matches", "content", "count"]

RIPGREP_TIMEOUT_S = 30
SEARCH_TIMEOUT_S = 20.0
"""The longest a Python grep may run (ripgrep's engine is linear-time, ours backtracks)."""
_WORKER = Path(__file__).with_name("grep_worker.py")


class SearchTimeout(Exception):
    """The Python grep did not finish before its deadline."""


class FilesystemFileSearchMiddleware(AgentMiddleware):
    """Give the agent glob and grep search over ``root_path``.

    Args:
        root_path: the directory the tools may search.
        use_ripgrep: use ``rg`` when available (the Python search is the fallback).
        max_file_size_mb: the Python search skips larger files.
        search_timeout_s: the Python search stops after this long (its regex engine
            backtracks: some patterns take exponential time).
    """

    def __init__(
        self,
        *,
        root_path: str,
        use_ripgrep: bool = True,
        max_file_size_mb: int = 10,
        search_timeout_s: float = SEARCH_TIMEOUT_S,
    ) -> None:
        self.root_path = Path(root_path).resolve()
        self.use_ripgrep = use_ripgrep
        self.max_file_size_bytes = max_file_size_mb * 1024 * 1024
        self.search_timeout_s = search_timeout_s
        owner = self

        @tool
        def glob_search(pattern: str, path: str = "/") -> str:
            """Fast file pattern matching tool that works with any codebase size.

            Supports glob patterns like `**/*.js` or `src/**/*.ts`.
            Returns matching file paths sorted by modification time (newest first).

            Args:
                pattern: The glob pattern to match files against.
                path: The directory to search in. If not specified, searches from root.
            """
            return owner.glob(pattern, path)

        @tool
        def grep_search(
            pattern: str,
            path: str = "/",
            include: str | None = None,
            output_mode: OutputMode = "files_with_matches",
        ) -> str:
            """Fast content search tool that works with any codebase size.

            Searches file contents using regular expressions. Supports full regex
            syntax and filters files by pattern with the include parameter.

            Args:
                pattern: The regular expression pattern to search for in file contents.
                path: The directory to search in. If not specified, searches from root.
                include: File pattern to filter (e.g., `*.js`, `*.{ts,tsx}`).
                output_mode: `files_with_matches` (file paths), `content` (`file:line:content`) or `count` (matches per file).
            """
            return owner.grep(pattern, path, include, output_mode)

        self.glob_search = glob_search
        self.grep_search = grep_search
        self.tools = [glob_search, grep_search]

    # -- glob ----------------------------------------------------------------------------

    def glob(self, pattern: str, path: str = "/") -> str:
        """The ``glob_search`` tool's answer."""
        found = self._glob(pattern, path)
        self._report("glob_search", pattern, path, "pathlib", len(found))
        return "\n".join(found) if found else "No files found"

    def _glob(self, pattern: str, path: str) -> list[str]:
        try:
            base = self._validate_and_resolve_path(path)
        except ValueError:
            return []
        if not base.is_dir():
            return []
        if pattern.startswith("/") or ".." in pattern.split("/"):
            return []
        try:
            candidates = list(base.glob(pattern))
        except (ValueError, OSError):
            return []
        dated: list[tuple[float, str]] = []
        for match in candidates:
            if match.is_file() and is_within_root(match, self.root_path):
                dated.append((match.stat().st_mtime, virtual_path(match, self.root_path)))
        dated.sort(key=lambda item: item[0], reverse=True)
        return [p for _, p in dated]

    # -- grep ----------------------------------------------------------------------------

    def grep(
        self,
        pattern: str,
        path: str = "/",
        include: str | None = None,
        output_mode: str = "files_with_matches",
    ) -> str:
        """The ``grep_search`` tool's answer."""
        try:
            re.compile(pattern)
        except re.error as exc:
            return f"Invalid regex pattern: {exc}"
        if include and not is_valid_include(include):
            return "Invalid include pattern"
        hits: Hits | None = None
        backend = "python"
        if self.use_ripgrep:
            try:
                hits = self._ripgrep_search(pattern, path, include)
                backend = "ripgrep"
            except (FileNotFoundError, subprocess.CalledProcessError, subprocess.TimeoutExpired):
                hits = None
        if hits is None:
            backend = "python"
            try:
                hits = self._python_search(pattern, path, include)
            except SearchTimeout:
                self._report(
                    "grep_search", pattern, path, backend, 0, include=include, timed_out=True
                )
                return (
                    f"Search timed out after {self.search_timeout_s:g} s: the pattern takes too "
                    "long on these files (nested repetition such as (a+)+ backtracks "
                    "exponentially); simplify it or narrow the path / include"
                )
        self._report("grep_search", pattern, path, backend, len(hits), include=include)
        if not hits:
            return "No matches found"
        return format_hits(hits, output_mode)

    def _validate_and_resolve_path(self, path: str) -> Path:
        return resolve_virtual(self.root_path, path)

    def _search_base(self, path: str) -> Path | None:
        """The real folder a search under ``path`` covers (None: outside the root, or absent)."""
        try:
            base = self._validate_and_resolve_path(path)
        except ValueError:
            return None
        return base if base.exists() else None

    def _ripgrep_search(self, pattern: str, path: str, include: str | None) -> Hits:
        """Search with ``rg --json`` (raises FileNotFoundError when ripgrep is missing)."""
        base = self._search_base(path)
        if base is None:
            return {}
        cmd = ["rg", "--json"]
        if include:
            cmd += ["--glob", include]
        cmd += ["--", pattern, str(base)]  # "--": a pattern is never read as an option
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=RIPGREP_TIMEOUT_S, check=False
        )
        hits: Hits = {}
        for line in (done.stdout or "").splitlines():
            try:
                record = json.loads(line)
                if record.get("type") != "match":
                    continue
                data = record["data"]
                file = Path(data["path"]["text"])
                number = int(data["line_number"])
                text = str(data["lines"]["text"]).rstrip("\n")
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                continue
            if not is_within_root(file, self.root_path):
                continue
            try:
                where = virtual_path(file, self.root_path)
            except ValueError:
                continue
            hits.setdefault(where, []).append((number, text))
        return hits

    def _python_search(self, pattern: str, path: str, include: str | None) -> Hits:
        """The Python grep, in a child process killed at ``search_timeout_s``."""
        base = self._search_base(path)
        if base is None:
            return {}
        request = {
            "pattern": pattern,
            "base": str(base),
            "root": str(self.root_path),
            "include": include,
            "max_bytes": self.max_file_size_bytes,
        }
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-S", str(_WORKER)],
                input=json.dumps(request),
                capture_output=True,
                text=True,
                encoding="utf-8",
                timeout=self.search_timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired:  # the child is killed by subprocess.run
            raise SearchTimeout(pattern) from None
        if done.returncode != 0:
            last = (done.stderr or "").strip().splitlines()[-1:] or ["no output"]
            raise RuntimeError(f"the file search failed: {last[0]}")
        return {
            p: [(int(n), str(t)) for n, t in lines] for p, lines in json.loads(done.stdout).items()
        }

    def _report(
        self, tool_name: str, pattern: str, path: str, backend: str, files: int, **extra: Any
    ) -> None:
        emit_sync(
            MiddlewareAction,
            middleware=self.name,
            action="file_search",
            detail={
                "tool": tool_name,
                "pattern": pattern,
                "path": path,
                "backend": backend,
                "files": files,
                **{k: v for k, v in extra.items() if v is not None},
            },
        )


def format_hits(hits: Hits, output_mode: str) -> str:
    """Grep hits as text: paths, ``path:line:text`` lines, or ``path:count`` lines."""
    paths = sorted(hits)
    if output_mode == "content":
        return "\n".join(f"{p}:{n}:{text}" for p in paths for n, text in hits[p])
    if output_mode == "count":
        return "\n".join(f"{p}:{len(hits[p])}" for p in paths)
    return "\n".join(paths)
