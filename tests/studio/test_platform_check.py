"""Item 1 of the first-use report: a display without Qt's X11 libraries gives one install line.

The checker runs before any Qt object exists; the libraries are "loaded" through an injected
function so the tests do not depend on what this machine has installed.
"""

from __future__ import annotations

import sys

import pytest

from engine.cli import command as cli
from studio.app import entry as app
from studio.app.platform_check import (
    X11_LIBRARIES,
    QtUnavailable,
    check_can_open_window,
    missing_x11_packages,
    uses_xcb,
)

MISSING = {"libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxcb-cursor.so.0"}


def loader(missing: set[str]):
    return lambda soname: soname not in missing


def test_missing_libraries_become_one_apt_line_naming_their_packages():
    assert missing_x11_packages(loader(MISSING)) == [
        "libxcb-cursor0",
        "libxcb-icccm4",
        "libxcb-keysyms1",
    ]
    with pytest.raises(QtUnavailable) as caught:
        check_can_open_window({"DISPLAY": ":0"}, loader(MISSING), platform="linux")
    message = str(caught.value)
    assert "sudo apt-get install -y libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1" in message
    assert message.count("apt-get") == 1


def test_nothing_is_said_when_every_library_loads_or_xcb_is_not_used():
    check_can_open_window({"DISPLAY": ":0"}, loader(set()), platform="linux")
    everything = set(X11_LIBRARIES)
    for env in ({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"}, {"WAYLAND_DISPLAY": "w-0"}, {}):
        check_can_open_window(env, loader(everything), platform="linux")
    check_can_open_window({"DISPLAY": ":0"}, loader(everything), platform="darwin")


def test_which_platform_qt_will_pick():
    assert uses_xcb({"DISPLAY": ":1"}, "linux")
    assert uses_xcb({"QT_QPA_PLATFORM": "xcb"}, "linux")
    assert not uses_xcb({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":1"}, "linux")
    assert not uses_xcb({"DISPLAY": ":1", "WAYLAND_DISPLAY": "wayland-0"}, "linux")
    assert not uses_xcb({}, "linux")


def test_stepwise_demo_prints_the_line_and_runs_headless(monkeypatch, tmp_path, capsys):
    """The real studio entry point refuses before creating Qt objects; the command falls back."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "has_display", lambda: True)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr("studio.app.platform_check._can_load", loader(MISSING))
    with pytest.raises(QtUnavailable):
        app.main(["demo"])
    code = cli.main(["demo"])
    err = capsys.readouterr().err
    assert code == 0
    assert "sudo apt-get install -y libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1" in err
    assert "the studio cannot open a window: running the default scenario headless" in err
