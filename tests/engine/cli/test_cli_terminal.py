"""Terminal injection: whatever a model, a tool or a session file says, the CLI prints its
control characters as visible escapes (``run``, ``replay``, ``export`` to the terminal, the
headless ``open --thread`` listing), keeping only its own colour sequences."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from engine.cli.text import json_safe, terminal_safe
from tests.engine.cli import hostile_agent
from tests.engine.cli.hostile_agent import HOSTILE
from tests.engine.cli.test_cli import run_cli

AGENT = f"{Path(hostile_agent.__file__)}:agent"
RAW = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
OUR_COLOURS = re.compile(r"\x1b\[[0-9;]*m")


def _no_raw_controls(text: str, *, colours: bool = False) -> None:
    if colours:
        text = OUR_COLOURS.sub("", text)
    found = RAW.findall(text)
    assert not found, f"raw control characters reach the terminal: {found[:5]!r}"


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "s.stepwise"
    code, out, err = run_cli("run", AGENT, "--thread", f"t{HOSTILE}", "--session", str(path))
    _no_raw_controls(out + err)
    assert code == 0, err
    assert "\\x1b]52;c;ZXZpbA==\\x07" in out and "\\u202eevil" in out  # shown, escaped
    assert "made_up\\x1b]52" in out and "found \\u001b]52" in out
    return path


def test_run_prints_names_errors_and_ids_escaped(session: Path) -> None:
    code, out, err = run_cli("run", AGENT, "--color", "always", "--no-session")
    assert code == 0
    _no_raw_controls(out + err, colours=True)
    assert OUR_COLOURS.search(out)  # the tree's own colours stay


def test_replay_prints_escaped(session: Path) -> None:
    code, out, err = run_cli("replay", str(session))
    assert code == 0
    _no_raw_controls(out + err)
    assert f"thread t{terminal_safe(HOSTILE, one_line=True)}" in out


def test_export_to_the_terminal_is_escaped_and_jsonl_keeps_its_data(session: Path) -> None:
    code, out, err = run_cli("export", str(session), "--format", "jsonl")
    assert code == 0
    _no_raw_controls(out + err)
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[0]["thread_id"] == f"t{HOSTILE}"  # the same data, only escaped as JSON
    code, out, err = run_cli("export", str(session), "--format", "mermaid")
    assert code == 0
    _no_raw_controls(out + err)


def test_a_failed_run_and_a_bad_breakpoint_say_so_escaped(tmp_path: Path) -> None:
    app = tmp_path / "boom.py"
    app.write_text(
        textwrap.dedent(f"""
        from typing import TypedDict
        from engine import END, START, StateGraph

        class S(TypedDict):
            n: int

        def boom(state):
            raise RuntimeError({HOSTILE!r})

        agent = StateGraph(S).add_node("boom", boom).add_edge(START, "boom").add_edge("boom", END).compile()
        """)
    )
    code, out, err = run_cli("run", f"{app}:agent", "--input-json", '{"n": 1}', "--no-session")
    assert code == 3
    _no_raw_controls(out + err)
    assert "the run failed: RuntimeError: \\x1b]52" in err
    code, out, err = run_cli("run", f"{app}:agent", "--input-json", "{}", "--break", HOSTILE)
    assert code == 2
    _no_raw_controls(out + err)


def test_the_headless_thread_listing_is_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langgraph.checkpoint.sqlite")
    app = tmp_path / "app.py"
    app.write_text(
        textwrap.dedent(f"""
        from typing import TypedDict
        from langgraph.graph import StateGraph, START, END
        from langgraph.types import interrupt

        class State(TypedDict):
            n: int

        def ask(state):
            return {{"n": interrupt({{"question": {HOSTILE!r}}})}}

        graph = StateGraph(State).add_node({("ask" + HOSTILE)!r}, ask)
        graph = graph.add_edge(START, {("ask" + HOSTILE)!r}).add_edge({("ask" + HOSTILE)!r}, END).compile()
        """)
    )
    db = f"sqlite:///{tmp_path / 'cp.sqlite'}"
    thread = f"T{HOSTILE}"
    code, out, err = run_cli(
        "run", f"{app}:graph", "--input-json", '{"n": 0}', "--thread", thread,
        "--checkpointer", db, "--no-session",
    )  # fmt: skip
    assert code == 0, err
    _no_raw_controls(out + err)
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(var, raising=False)
    code, out, err = run_cli("open", f"{app}:graph", "--thread", thread, "--checkpointer", db)
    assert code == 0, err
    _no_raw_controls(out + err)
    assert "waiting for an answer" in out and "\\x1b]52" in out


def test_terminal_safe_and_json_safe() -> None:
    assert terminal_safe("a\x1b[2Jb\r\u202ec\n") == "a\\x1b[2Jb\\x0d\\u202ec\n"
    assert terminal_safe("a\nb\tc", one_line=True) == "a\\x0ab\\x09c"
    assert terminal_safe("plain text, emoji 👩‍💻, 中文") == "plain text, emoji 👩‍💻, 中文"
    data = {"k": f"x{HOSTILE}"}
    text = json_safe(json.dumps(data, ensure_ascii=False))
    assert not RAW.search(text) and json.loads(text) == data
