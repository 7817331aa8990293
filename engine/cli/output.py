"""Where ``stepwise export -o FILE`` writes, without ever destroying what ``FILE`` is.

A regular file (or a name not taken yet) is written to a temporary file in the same folder and
renamed into place only once complete, so a failed export leaves the old file untouched; the
replaced file keeps its permission bits.  A symlink is followed: its target is the file written
(the link stays a link).  A character device (``/dev/null``, a terminal) or a FIFO is written
through, never replaced.  Anything else (a block device, a socket) is refused in one line.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from engine.recording import SessionError

__all__ = ["output_file"]


def _kind(mode: int) -> str:
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def _default_mode() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def output_file(output: Path) -> Iterator[TextIO]:
    """A text stream whose contents end up in ``output`` (see the module doc)."""
    try:
        st: os.stat_result | None = os.stat(output)  # follows symlinks
    except FileNotFoundError:
        st = None  # a new name, or a symlink to a name not taken yet
    except OSError as exc:
        raise SessionError(f"cannot export to {output}: {exc.strerror or exc}") from exc
    if st is not None and (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        with _write_through(output) as out:
            yield out
        return
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise SessionError(
            f"cannot export to {output}: it is {_kind(st.st_mode)}; name a regular file"
        )
    target = Path(os.path.realpath(output)) if output.is_symlink() else output
    with _replace(target, output, st) as out:
        yield out


@contextlib.contextmanager
def _write_through(output: Path) -> Iterator[TextIO]:
    """Write into the device or FIFO itself (no create, no rename: it stays what it is)."""
    try:
        fd = os.open(output, os.O_WRONLY)
    except OSError as exc:
        raise SessionError(f"cannot export to {output}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            yield out
    except OSError as exc:
        raise SessionError(f"cannot export to {output}: {exc.strerror or exc}") from exc


@contextlib.contextmanager
def _replace(target: Path, named: Path, st: os.stat_result | None) -> Iterator[TextIO]:
    """Write a temporary file next to ``target`` and rename it over ``target`` when complete."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise SessionError(f"cannot export to {named}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            yield out
            os.chmod(out.fileno(), stat.S_IMODE(st.st_mode) if st else _default_mode())
            if st is not None:
                with contextlib.suppress(OSError):  # only root may give a file away
                    os.chown(out.fileno(), st.st_uid, st.st_gid)
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise SessionError(f"cannot export to {named}: {exc.strerror or exc}") from exc
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
