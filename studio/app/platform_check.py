"""Can Qt open a window here?  Checked before the first Qt object, with no Qt import.

On Linux under X11, Qt's ``xcb`` platform plugin loads a dozen system libraries that PyPI's
PySide6 wheels do not ship.  When one is missing, Qt prints a plugin message and aborts the
process, which tells a new user nothing about what to install.  ``missing_x11_packages`` tries
each library by its soname (``ctypes`` loading is harmless) and returns the Debian/Ubuntu
packages that provide the missing ones, so the studio can print one ``apt-get install`` line.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Mapping

__all__ = [
    "X11_LIBRARIES",
    "QtUnavailable",
    "apt_line",
    "check_can_open_window",
    "missing_x11_packages",
    "uses_xcb",
]

X11_LIBRARIES: dict[str, str] = {
    # soname -> Debian package (what libqxcb.so and libQt6XcbQpa.so.6 link against)
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libfontconfig.so.1": "libfontconfig1",
    "libGL.so.1": "libgl1",
    "libEGL.so.1": "libegl1",
    "libdbus-1.so.3": "libdbus-1-3",
}


class QtUnavailable(RuntimeError):
    """Qt cannot open a window on this machine; the message says what to install.

    ``headless_fallback`` tells the ``stepwise`` command (which never imports the studio) that
    running the scenario in the terminal instead is the right answer."""

    headless_fallback = True


def _can_load(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def uses_xcb(environ: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Will Qt pick its X11 (xcb) plugin?  Linux with DISPLAY, no Wayland, no other platform."""
    env = os.environ if environ is None else environ
    if (platform or sys.platform) != "linux":
        return False
    chosen = env.get("QT_QPA_PLATFORM", "").split(":")[0].strip()
    if chosen:
        return chosen == "xcb"
    return bool(env.get("DISPLAY")) and not env.get("WAYLAND_DISPLAY")


def missing_x11_packages(can_load: Callable[[str], bool] | None = None) -> list[str]:
    """The packages (in table order, no repeats) whose libraries cannot be loaded."""
    can_load = can_load or _can_load
    out: list[str] = []
    for soname, package in X11_LIBRARIES.items():
        if package not in out and not can_load(soname):
            out.append(package)
    return out


def apt_line(packages: list[str]) -> str:
    return "sudo apt-get install -y " + " ".join(packages)


def check_can_open_window(
    environ: Mapping[str, str] | None = None,
    can_load: Callable[[str], bool] | None = None,
    platform: str | None = None,
) -> None:
    """Raise ``QtUnavailable`` with an install line when the xcb plugin would abort."""
    if not uses_xcb(environ, platform):
        return
    missing = missing_x11_packages(can_load)
    if missing:
        raise QtUnavailable(
            "Qt cannot open a window: system libraries for its X11 plugin are missing "
            f"({', '.join(missing)}). Install them with:\n    {apt_line(missing)}"
        )
