"""Attach mode on LangGraph's PostgreSQL saver: a throwaway server (``initdb`` + ``pg_ctl`` in a
temp dir, random port on 127.0.0.1) holds a thread that we open and fork.

Skipped when the PostgreSQL binaries, ``langgraph-checkpoint-postgres`` or ``psycopg`` are
missing.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("langgraph.checkpoint.postgres")
pytest.importorskip("psycopg")

from engine.attach import attach
from engine.attach.savers import open_saver
from engine.loader import load_agent
from engine.types import Command
from tests.engine.attach.test_attach_langgraph import collect, counter_graph


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    hits = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return hits[-1] if hits else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def postgres_url() -> Iterator[str]:
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) are not installed")
    prefix: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        runuser = shutil.which("runuser")
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            runuser = None
        if runuser is None:
            pytest.skip("running as root without a 'postgres' user to start the server as")
        prefix = [runuser, "-u", "postgres", "--"]
    tmp = Path(tempfile.mkdtemp(prefix="stepwise-pg-"))
    data = tmp / "data"
    if prefix:
        shutil.chown(tmp, "postgres")
    port = _free_port()
    run = lambda *args: subprocess.run(  # noqa: E731
        [*prefix, *args], capture_output=True, text=True, timeout=120, check=True
    )
    try:
        run(initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        run(
            pg_ctl, "-D", str(data), "-w", "-l", str(tmp / "log"), "start",
            "-o", f"-p {port} -h 127.0.0.1 -k {tmp}",
        )  # fmt: skip
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        pytest.skip(f"could not start a PostgreSQL server: {exc.stderr.strip()[:200]}")
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True, timeout=60,
        )  # fmt: skip
        shutil.rmtree(tmp, ignore_errors=True)


def test_a_thread_saved_in_postgres_is_opened_and_forked(postgres_url: str) -> None:
    cfg = {"configurable": {"thread_id": "pg-1"}}
    first = attach(counter_graph()).with_checkpointer(open_saver(postgres_url))
    collect(first, {"n": 1, "log": []}, cfg)
    collect(first, Command(resume="yes"), cfg)
    # a new process would open the same thread: a fresh saver on the same database
    again = attach(counter_graph()).with_checkpointer(open_saver(postgres_url))
    assert again.get_state(cfg).values["n"] == 4
    past = next(s for s in again.get_state_history(cfg) if s.next == ("ask",))
    fork = collect(again, None, past.config)
    assert fork[-1].__dict__["status"] == "interrupted"
    done = collect(again, Command(resume="no"), cfg)
    assert done[-1].__dict__["output"]["n"] == 2
    assert len(list(again.get_state_history(cfg))) > 4


def test_open_lists_a_thread_saved_in_postgres_without_a_display(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import textwrap

    from engine.cli import main
    from tests.engine.attach.apps import REVIEW_APP

    app = tmp_path / "app.py"
    app.write_text(textwrap.dedent(REVIEW_APP))
    production = attach(load_agent(f"{app}:graph")).with_checkpointer(open_saver(postgres_url))
    collect(production, {"n": 7}, {"configurable": {"thread_id": "pg-open"}})  # waits at review
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    out, err = io.StringIO(), io.StringIO()
    argv = ["open", f"{app}:graph", "--thread", "pg-open", "--checkpointer", postgres_url]
    assert main(argv, stdout=out, stderr=err) == 0
    assert out.getvalue().startswith("thread pg-open: 3 checkpoints, newest first")
    assert '{"n": 8}' in out.getvalue()
