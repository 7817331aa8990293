"""File search without ripgrep: a regex that backtracks catastrophically answers promptly with
a clear message, instead of holding the agent (and, with Python's ``re``, the whole
interpreter) for ever.  The search runs in a child of a child here: if the deadline regressed,
this test would fail at its own timeout rather than hang the test run."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from engine.middleware import FilesystemFileSearchMiddleware

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = textwrap.dedent(
    """
    import sys, time
    from engine.middleware import FilesystemFileSearchMiddleware
    from tests.engine.middleware.helpers import actions, captured_events

    mw = FilesystemFileSearchMiddleware(
        root_path=sys.argv[1], use_ripgrep=False, search_timeout_s=1
    )
    with captured_events() as events:
        t0 = time.monotonic()
        answer = mw.grep("(a+)+$", "/", None, "content")
        took = time.monotonic() - t0
    (action,) = actions(events, "file_search")
    print(answer)
    print(f"timed_out={action.detail.get('timed_out')} took={took:.1f}")
    """
)


def test_a_catastrophic_pattern_times_out_with_a_clear_message(tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text("fine line\n" + "a" * 64 + "!\n")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answer, report = done.stdout.strip().splitlines()
    assert answer.startswith("Search timed out after 1 s: the pattern takes too long")
    assert report.startswith("timed_out=True")


def test_the_search_in_a_child_process_finds_what_it_did_before(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("import os\nx = 1\n")
    (tmp_path / "b.txt").write_text("nothing\nimport here too\n")
    mw = FilesystemFileSearchMiddleware(root_path=str(tmp_path), use_ripgrep=False)
    assert (
        mw.grep("^import", "/", None, "content")
        == "/b.txt:2:import here too\n/src/a.py:1:import os"
    )
    assert mw.grep("^import", "/", "*.py", "count") == "/src/a.py:1"
    assert mw.grep("(", "/", None, "content").startswith("Invalid regex pattern")
