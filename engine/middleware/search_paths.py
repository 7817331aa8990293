"""Path safety and include-pattern helpers for ``FilesystemFileSearchMiddleware``.

Virtual paths (``/src/app.py``) are relative to a root directory. A path is only accepted when
it has no ``..`` or ``~`` and, once resolved (symlinks followed), lies inside the root; every
file a search reports is checked again the same way, so a symlink inside the root that points
outside is never listed or read.

Include patterns are ``fnmatch`` globs on the file's base name with brace alternatives
(``*.{py,pyi}``, nested braces allowed); an unbalanced or empty brace makes the pattern
invalid.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

__all__ = [
    "expand_braces",
    "include_matches",
    "is_valid_include",
    "is_within_root",
    "resolve_virtual",
    "virtual_path",
]


def is_within_root(candidate: Path, root: Path) -> bool:
    """True if ``candidate``, fully resolved, lies inside resolved ``root``."""
    try:
        return candidate.resolve().is_relative_to(root.resolve())
    except (OSError, ValueError):
        return False


def resolve_virtual(root: Path, path: str) -> Path:
    """The real directory/file for virtual ``path`` under ``root``; ValueError if unsafe."""
    if ".." in path or "~" in path:
        raise ValueError("Path traversal not allowed")
    full = (root / path.lstrip("/")).resolve()
    if not full.is_relative_to(root):
        raise ValueError(f"Path outside root directory: {path}")
    return full


def virtual_path(file: Path, root: Path) -> str:
    """``file`` (inside ``root``) as a virtual path starting with ``/``."""
    return "/" + file.relative_to(root).as_posix()


def expand_braces(pattern: str) -> list[str] | None:
    """The globs a brace pattern stands for (``a.{x,y}`` -> ``a.x``, ``a.y``); None if malformed."""
    if "}" in pattern and "{" not in pattern:
        return None
    open_at = pattern.find("{")
    if open_at == -1:
        return [pattern]
    close_at = pattern.find("}", open_at)
    if close_at == -1 or close_at == open_at + 1:
        return None
    head, body, tail = pattern[:open_at], pattern[open_at + 1 : close_at], pattern[close_at + 1 :]
    out: list[str] = []
    for option in body.split(","):
        rest = expand_braces(head + option + tail)
        if rest is None:
            return None
        out.extend(rest)
    return out


def is_valid_include(pattern: str) -> bool:
    """True if ``pattern`` is a usable include filter."""
    if not pattern or any(c in pattern for c in "\x00\n\r"):
        return False
    globs = expand_braces(pattern)
    if globs is None:
        return False
    try:
        for glob in globs:
            re.compile(fnmatch.translate(glob))
    except re.error:
        return False
    return True


def include_matches(basename: str, pattern: str) -> bool:
    """True if ``basename`` matches one of the globs of ``pattern``."""
    globs = expand_braces(pattern)
    return bool(globs) and any(fnmatch.fnmatch(basename, g) for g in globs or ())
