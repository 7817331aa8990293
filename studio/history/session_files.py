"""Where the studio records its sessions, and copying a live session file elsewhere.

Every run is recorded automatically into a ``.stepwise`` file in the studio's data folder
(``$STEPWISE_SESSION_DIR``, else ``$XDG_DATA_HOME/stepwise/sessions``, else
``~/.local/share/stepwise/sessions``); only the newest ``KEEP`` files are kept there.
"Save session as..." copies the file with SQLite's backup API, which is consistent even while
the recorder keeps writing (the file is in WAL mode: a plain file copy could miss the WAL).
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import time
from pathlib import Path

__all__ = ["KEEP", "copy_session", "new_session_path", "session_dir"]

KEEP = 40


def session_dir() -> Path:
    env = os.environ.get("STEPWISE_SESSION_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "stepwise" / "sessions"


def new_session_path(label: str, folder: Path | None = None) -> Path:
    """A fresh ``<time>-<label>.stepwise`` path in ``folder`` (created; old files pruned)."""
    folder = folder or session_dir()
    folder.mkdir(parents=True, exist_ok=True)
    _prune(folder)
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", label).strip("-.")[:40] or "session"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"{stamp}-{slug}.stepwise"
    n = 1
    while path.exists():
        n += 1
        path = folder / f"{stamp}-{slug}-{n}.stepwise"
    return path


def _prune(folder: Path) -> None:
    files = sorted(folder.glob("*.stepwise"), key=lambda p: p.stat().st_mtime)
    for old in files[: max(0, len(files) - KEEP)]:
        for extra in (old, old.with_name(old.name + "-wal"), old.with_name(old.name + "-shm")):
            with contextlib.suppress(OSError):
                extra.unlink()


def copy_session(source: Path, dest: Path) -> None:
    """Copy a (possibly live) session file to ``dest`` (overwritten), consistently."""
    if source.resolve() == dest.resolve():
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".partial")
    with contextlib.suppress(OSError):
        tmp.unlink()
    src = sqlite3.connect(str(source))
    try:
        out = sqlite3.connect(str(tmp))
        try:
            src.backup(out)
            out.execute("PRAGMA journal_mode=DELETE")
        finally:
            out.close()
    finally:
        src.close()
    os.replace(tmp, dest)
