"""``stepwise replay`` / ``export`` on bad input: one-line errors, nothing destroyed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from engine.recording import Session
from tests.engine.cli.test_cli import AGENTS, run_cli


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "s.stepwise"
    code, _, err = run_cli(
        "run", f"{AGENTS}:agent", "--input", "hi", "--thread", "t1", "--session", str(path)
    )
    assert (code, err) == (0, "")
    return path


def _damage_rows(path: Path, count: int) -> None:
    """Replace the data of ``count`` mid-run events with JSON no event model accepts."""
    with sqlite3.connect(path) as conn:
        ids = [r[0] for r in conn.execute("SELECT id FROM session_events ORDER BY id")]
        bad = json.dumps({"kind": "node.started", "ts": "not a time", "junk": "x" * 600})
        for row_id in ids[2 : 2 + count]:
            conn.execute("UPDATE session_events SET data=? WHERE id=?", (bad, row_id))


def test_export_onto_its_own_input_is_refused_and_the_session_survives(session: Path) -> None:
    before = session.read_bytes()
    code, _, err = run_cli("export", str(session), "--format", "jsonl", "-o", str(session))
    assert code == 2
    assert err.strip().count("\n") == 0 and "is the session being exported" in err
    assert session.read_bytes() == before
    with Session.open(session) as s:
        assert s.count() > 0


def test_export_writes_a_complete_file_and_no_leftovers(session: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("old contents\n")
    assert run_cli("export", str(session), "--format", "jsonl", "-o", str(target))[0] == 0
    lines = target.read_text().splitlines()
    assert json.loads(lines[0])["kind"] == "run.started"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl", "s.stepwise"]


@pytest.mark.parametrize("where", ["missing/out.jsonl", "."])
def test_export_to_a_bad_place_is_a_one_line_error(
    session: Path, tmp_path: Path, where: str
) -> None:
    code, _, err = run_cli("export", str(session), "--format", "jsonl", "-o", str(tmp_path / where))
    assert code == 2
    assert err.startswith("stepwise: ") and err.count("\n") == 1
    assert "Traceback" not in err


def test_mermaid_export_of_a_damaged_shape_is_a_one_line_error(session: Path) -> None:
    with sqlite3.connect(session) as conn:
        conn.execute("UPDATE session_shapes SET shape='{\"nodes\": 7}'")
    code, out, err = run_cli("export", str(session), "--format", "mermaid")
    assert code == 2 and out == ""
    assert err.startswith("stepwise: ") and err.count("\n") == 1
    assert "graph shape" in err


def test_replay_skips_and_counts_unreadable_rows(session: Path) -> None:
    with Session.open(session) as s:
        total = s.count()
    _damage_rows(session, 2)
    code, out, err = run_cli("replay", str(session))
    assert code == 0
    lines = out.splitlines()
    assert lines[-1] == f"1 run(s), {total - 2} event(s) from {session}"
    assert "2 unreadable event row(s) skipped" in err and err.count("\n") == 1
    assert len(err) < 200  # no validation essay


def test_export_jsonl_skips_and_reports_unreadable_rows(session: Path) -> None:
    with Session.open(session) as s:
        total = s.count()
    _damage_rows(session, 3)
    code, out, err = run_cli("export", str(session), "--format", "jsonl")
    assert code == 0
    assert len(out.splitlines()) == total - 3
    assert "3 unreadable event row(s) skipped" in err


def test_replay_of_a_run_killed_before_its_events_were_written(session: Path) -> None:
    with sqlite3.connect(session) as conn:  # what a kill -9 in the first 100 ms leaves
        conn.execute("DELETE FROM session_events")
        conn.execute("DELETE FROM session_runs")
    code, out, _ = run_cli("replay", str(session))
    assert code == 0
    lines = out.splitlines()
    assert "thread t1 has 5 checkpoint(s) but no recorded run" in lines[-2]
    assert "never finished" in lines[-2]
    assert lines[-1] == f"0 run(s), 0 event(s) from {session}"


def test_replay_of_a_run_killed_midway_says_it_never_finished(session: Path) -> None:
    with sqlite3.connect(session) as conn:
        conn.execute("DELETE FROM session_events WHERE kind='run.finished'")
        conn.execute("UPDATE session_runs SET status='running', finished=NULL")
        (run_id,) = conn.execute("SELECT run_id FROM session_runs").fetchone()
    code, out, _ = run_cli("replay", str(session))
    assert code == 0
    assert f"run {run_id} never finished" in out.splitlines()[-2]


def test_unlock_breaks_a_stale_lease(session: Path) -> None:
    from engine.checkpoint import SqliteSaver

    holder = SqliteSaver(session, heartbeat=False)
    holder.acquire_thread("t1", "run-old")
    holder.conn.execute("UPDATE thread_leases SET host='another-host'")
    holder.close()
    code, out, err = run_cli(
        "run", f"{AGENTS}:agent", "--input", "again", "--thread", "t1", "--session", str(session)
    )
    assert code != 0 and "stepwise unlock" in out + err
    code, out, err = run_cli("unlock", str(session), "--thread", "t1")
    assert (code, err) == (0, "")
    assert "unlocked thread t1 (run run-old, pid" in out and "another-host" in out
    assert run_cli("unlock", str(session))[1].strip() == f"no locked threads in {session}"
    code, _, err = run_cli(
        "run", f"{AGENTS}:agent", "--input", "again", "--thread", "t1", "--session", str(session)
    )
    assert (code, err) == (0, "")


def test_break_when_naming_an_unknown_variable_is_reported(tmp_path: Path) -> None:
    code, _, err = run_cli(
        "run",
        f"{AGENTS}:agent",
        "--input",
        "hi",
        "--no-session",
        "--break-when",
        "count > 1",
        "--break-when",
        "n >= 1 and any(m for m in messages)",
    )
    assert code == 0
    lines = err.splitlines()
    assert len(lines) == 1  # the second expression only uses state keys and its own names
    assert lines[0].startswith("stepwise: --break-when 'count > 1': 'count' is not a state key")
    assert "never fire" in lines[0]


def test_deeply_nested_rows_are_skipped_in_one_line(session: Path) -> None:
    with sqlite3.connect(session) as conn:
        ids = [r[0] for r in conn.execute("SELECT id FROM session_events ORDER BY id")]
        deep = '{"kind": "custom", "data": ' + "[" * 100_000 + "]" * 100_000 + "}"
        conn.execute("UPDATE session_events SET data=? WHERE id=?", (deep, ids[3]))
    for argv in (["replay", str(session)], ["export", str(session), "--format", "jsonl"]):
        code, _, err = run_cli(*argv)
        assert code == 0
        assert err == (
            "stepwise: 1 unreadable event row(s) skipped (first: an event cannot be read "
            "(nested too deeply))\n"
        )


def test_a_deeply_nested_run_row_or_shape_is_one_line(session: Path) -> None:
    with sqlite3.connect(session) as conn:
        conn.execute("UPDATE session_runs SET input=?", ("[" * 100_000 + "]" * 100_000,))
    for argv in (["replay", str(session)], ["export", str(session), "--format", "mermaid"]):
        code, out, err = run_cli(*argv)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and "has unreadable data (nested too deeply)" in err


@pytest.mark.parametrize(
    ("where", "says"),
    [
        ("{file}/inside.stepwise", "cannot record to {path}: Not a directory"),
        ("{file}/sub/inside.stepwise", "cannot create the folder {file}/sub"),
        ("/dev/null", "/dev/null is not a regular file"),
        ("/proc/self/new.stepwise", "cannot record to /proc/self/new.stepwise:"),
    ],
)
def test_an_unwritable_session_path_is_one_line(tmp_path: Path, where: str, says: str) -> None:
    file = tmp_path / "plain.txt"
    file.write_text("not a folder\n")
    path = where.format(file=file)
    code, out, err = run_cli("run", f"{AGENTS}:agent", "--input", "hi", "--session", path)
    assert code == 2 and out == ""
    assert err.startswith("stepwise: ") and err.count("\n") == 1 and "Traceback" not in err
    assert says.format(path=path, file=file) in err
    assert file.read_text() == "not a folder\n"


def test_leaving_a_run_interrupted_says_whether_it_can_be_resumed(tmp_path: Path) -> None:
    asker = ["run", f"{AGENTS}:asker", "--input-json", '{"n": 1}', "--thread", "q"]
    code, out, _ = run_cli(*asker, "--no-session")  # answered with end of input: leave it
    assert code == 0
    assert out.splitlines()[-1] == (
        "the run stays interrupted on thread q, but only in this process's memory: it is gone "
        "when stepwise exits (record a session, or give a persistent --checkpointer, to resume "
        "it later)"
    )
    session = tmp_path / "q.stepwise"
    code, out, _ = run_cli(*asker, "--session", str(session))
    assert "the run stays interrupted on thread q (resume it later from the session)" in out


def test_an_attached_app_on_langgraphs_memory_saver_is_not_offered_a_later_resume(
    tmp_path: Path,
) -> None:
    pytest.importorskip("langgraph.graph")
    import textwrap

    from tests.engine.attach.apps import REVIEW_APP

    app = tmp_path / "app.py"
    app.write_text(textwrap.dedent(REVIEW_APP))
    code, out, _ = run_cli(
        "run", f"{app}:graph", "--input-json", '{"n": 1}', "--thread", "r", "--no-session"
    )
    assert code == 0
    assert out.splitlines()[-1].startswith(
        "the run stays interrupted on thread r, but only in this process's memory"
    )
