"""How a shell session ends its process: its own group when it has one, else the shell alone."""

from __future__ import annotations

import logging
import os
import signal
from pathlib import Path

import pytest

from engine.middleware import HostExecutionPolicy
from engine.middleware.shell_session import ShellSession


class _Proc:
    """A stand-in for the shell's Popen: records kills, may fail them."""

    def __init__(self, pid: int, kill_error: OSError | None = None) -> None:
        self.pid = pid
        self.kills = 0
        self.kill_error = kill_error

    def kill(self) -> None:
        self.kills += 1
        if self.kill_error is not None:
            raise self.kill_error

    def poll(self) -> int | None:
        return None


def _session(tmp_path: Path, proc: _Proc) -> ShellSession:
    s = ShellSession(tmp_path, HostExecutionPolicy(), ("/bin/bash",), {})
    s._process = proc
    return s


def _groups(
    monkeypatch: pytest.MonkeyPatch, child: int | Exception, ours: int
) -> list[tuple[int, int]]:
    calls: list[tuple[int, int]] = []

    def getpgid(pid: int) -> int:
        if isinstance(child, Exception):
            raise child
        return child

    monkeypatch.setattr(os, "killpg", lambda g, sig: calls.append((g, sig)), raising=False)
    monkeypatch.setattr(os, "getpgid", getpgid, raising=False)
    monkeypatch.setattr(os, "getpgrp", lambda: ours, raising=False)
    return calls


def test_a_shell_in_our_own_group_is_killed_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proc = _Proc(10)
    calls = _groups(monkeypatch, child=1000, ours=1000)
    _session(tmp_path, proc)._kill_process()
    assert calls == [] and proc.kills == 1


def test_a_shell_leading_its_group_loses_the_whole_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proc = _Proc(11)
    calls = _groups(monkeypatch, child=2000, ours=1000)
    _session(tmp_path, proc)._kill_process()
    assert calls == [(2000, signal.SIGKILL)] and proc.kills == 0


def test_a_shell_already_gone_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proc = _Proc(12)
    calls = _groups(monkeypatch, child=ProcessLookupError(), ours=1000)
    _session(tmp_path, proc)._kill_process()
    assert calls == [] and proc.kills == 0


def test_a_refused_group_kill_falls_back_to_the_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    proc = _Proc(13)
    _groups(monkeypatch, child=2000, ours=1000)

    def refuse(g: int, sig: int) -> None:
        raise PermissionError("no")

    monkeypatch.setattr(os, "killpg", refuse)
    with caplog.at_level(logging.WARNING):
        _session(tmp_path, proc)._kill_process()
    assert proc.kills == 1
    assert "falling back to direct kill" in caplog.text.lower()


def test_a_failed_direct_kill_is_logged_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    proc = _Proc(14, kill_error=PermissionError("no"))
    _groups(monkeypatch, child=1000, ours=1000)
    with caplog.at_level(logging.WARNING):
        _session(tmp_path, proc)._kill_process()
    assert "direct kill failed" in caplog.text.lower()


def test_without_killpg_the_shell_is_killed_directly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proc = _Proc(15)
    monkeypatch.delattr(os, "killpg", raising=False)
    _session(tmp_path, proc)._kill_process()
    assert proc.kills == 1
