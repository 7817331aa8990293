"""``stepwise export -o`` never destroys what it writes to: devices and FIFOs are written
through, a symlink's target is written (the link stays), a regular file keeps its mode."""

from __future__ import annotations

import json
import os
import select
import stat
import threading
from pathlib import Path

import pytest

from tests.engine.cli.test_cli import AGENTS, run_cli


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("export") / "s.stepwise"
    code, _, err = run_cli(
        "run", f"{AGENTS}:agent", "--input", "hi", "--thread", "t1", "--session", str(path)
    )
    assert (code, err) == (0, "")
    return path


def _expected(session: Path) -> str:
    code, out, _ = run_cli("export", str(session), "--format", "jsonl")
    assert code == 0
    return out


def test_export_to_a_fifo_writes_through_it(session: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader is there before the writer
    result: list[tuple[int, str, str]] = []
    writer = threading.Thread(
        target=lambda: result.append(
            run_cli("export", str(session), "--format", "jsonl", "-o", str(fifo))
        )
    )
    writer.start()
    received = bytearray()
    try:
        while True:
            ready, _, _ = select.select([reader], [], [], 30)
            assert ready, "the export never wrote into the FIFO"
            chunk = os.read(reader, 65536)
            if not chunk and not writer.is_alive():
                break
            received += chunk
    finally:
        writer.join(30)
        os.close(reader)
    assert result and result[0][0] == 0, result
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert received.decode() == _expected(session)


def test_export_through_a_symlink_writes_its_target_and_keeps_the_link(
    session: Path, tmp_path: Path
) -> None:
    target = tmp_path / "real.jsonl"
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    code, _, err = run_cli("export", str(session), "--format", "jsonl", "-o", str(link))
    assert (code, err) == (0, "")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == _expected(session)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # not the temp file's 0600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.jsonl", "real.jsonl"]


def test_export_through_a_dangling_symlink_creates_its_target(
    session: Path, tmp_path: Path
) -> None:
    link = tmp_path / "link.jsonl"
    link.symlink_to(tmp_path / "new.jsonl")
    assert run_cli("export", str(session), "--format", "jsonl", "-o", str(link))[0] == 0
    assert link.is_symlink()
    assert json.loads((tmp_path / "new.jsonl").read_text().splitlines()[0])["kind"]


def test_a_new_export_file_gets_the_usual_mode(session: Path, tmp_path: Path) -> None:
    out = tmp_path / "new.jsonl"
    assert run_cli("export", str(session), "--format", "jsonl", "-o", str(out))[0] == 0
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~mask


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_export_to_a_character_device_of_our_own_writes_through(
    session: Path, tmp_path: Path
) -> None:
    node = tmp_path / "null"
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a second /dev/null, in tmp
    before = os.lstat(node)
    code, _, err = run_cli("export", str(session), "--format", "mermaid", "-o", str(node))
    assert (code, err) == (0, "")
    after = os.lstat(node)
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)


def test_export_to_dev_null_leaves_it_a_character_device(session: Path) -> None:
    before = os.stat("/dev/null")
    assert stat.S_ISCHR(before.st_mode)
    code, _, err = run_cli("export", str(session), "--format", "jsonl", "-o", "/dev/null")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_ino, after.st_rdev, after.st_mode) == (
        before.st_ino,
        before.st_rdev,
        before.st_mode,
    )
    assert (code, err) == (0, "")


def test_export_to_a_socket_is_refused_in_one_line(session: Path, tmp_path: Path) -> None:
    import socket

    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        code, out, err = run_cli("export", str(session), "--format", "jsonl", "-o", str(path))
        assert code == 2 and out == ""
        assert err == f"stepwise: cannot export to {path}: it is a socket; name a regular file\n"
        assert stat.S_ISSOCK(os.lstat(path).st_mode)
