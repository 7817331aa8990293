"""``stepwise`` in-process, with a fake stdin: run, exit codes, replay, export, the studio
commands.  Its prompts at breakpoints and interrupts are ``test_cli_prompts``; ``run_cli``,
``tree`` and ``AGENTS`` here serve the other CLI tests too."""

from __future__ import annotations

import io
import json
import re
import sys
import types
from pathlib import Path

import pytest

from engine.cli import command as cli
from engine.cli import main
from engine.recording import Session
from tests.engine.cli import agents

AGENTS = str(Path(agents.__file__))
TIMES = re.compile(r"  \d+(\.\d+)? m?s$", re.M)


def run_cli(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def tree(text: str) -> list[str]:
    """The event-tree lines of an output, without durations."""
    return [TIMES.sub("", line) for line in text.splitlines() if line[:1] in " ┌└"]


def test_run_prints_the_tree_and_records_the_session(tmp_path):
    session = tmp_path / "s.stepwise"
    code, out, err = run_cli(
        "run",
        f"{AGENTS}:agent",
        "--input",
        "hi",
        "--thread",
        "t1",
        "--session",
        str(session),
        "--headless",
    )
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == '┌ run loop  thread t1  input "hi"'
    assert "      → route think → act (conditional)" in lines
    assert TIMES.sub("", lines[-2]) == "└ run loop ✓ done"
    assert lines[-1] == f"session: {session}  (stepwise replay {session})"
    assert "\x1b[" not in out  # not a terminal: no colours
    with Session.open(session) as s:
        (run,) = s.runs()
        assert (run.graph, run.thread_id, run.status) == ("loop", "t1", "done")
        assert s.state("t1")["n"] == 2  # checkpoints went to the session file too
        assert len(s.checkpoints("t1")) == 5


def test_default_session_path_and_colour_always(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli(
        "run", f"{AGENTS}:counter", "--input-json", '{"n": 5}', "--color", "always"
    )
    assert code == 0
    assert "\x1b[32m✓\x1b[0m" in out
    (path,) = (tmp_path / ".stepwise" / "sessions").glob("*.stepwise")
    assert re.fullmatch(r"\d{8}-\d{6}\.stepwise", path.name)
    with Session.open(path) as s:
        (run,) = s.runs()
        assert run.output == {"n": 6}
        assert len(s.checkpoints(run.thread_id)) == 3  # its InMemorySaver gave way to the session


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "missing_agent.py"], "stepwise: missing_agent.py: file not found\n"),
        (
            ["run", f"{AGENTS}:not_a_graph"],
            f"stepwise: {AGENTS}:not_a_graph: is an int, not a compiled graph",
        ),
        (
            ["run", AGENTS, "--input", "x", "--break", "nowhere"],
            "stepwise: --break: the graph has no node 'nowhere' (nodes: think, act)\n",
        ),
        (
            ["run", f"{AGENTS}:counter", "--input", "x"],
            "stepwise: this graph has no 'messages' key: give its input as JSON with --input-json\n",
        ),
        (
            ["run", f"{AGENTS}:counter", "--input-json", "{n: 1}"],
            "stepwise: --input-json is not valid JSON: Expecting property name",
        ),
        (
            ["run", AGENTS, "--input", "a", "--input-json", "{}"],
            "stepwise: give either --input or --input-json, not both\n",
        ),
        (
            ["run", AGENTS],
            "stepwise: no input: give the first message with --input TEXT (or JSON with --input-json)\n",
        ),
        (
            ["run", AGENTS, "--input", "x", "--break-when", "n >"],
            "stepwise: --break-when 'n >': invalid syntax\n",
        ),
        (["run"], "stepwise run: the following arguments are required: agent\n"),
        (["frobnicate"], "stepwise: argument command: invalid choice: 'frobnicate'"),
        (
            ["export", "x.stepwise"],
            "stepwise export: the following arguments are required: --format\n",
        ),
        (["replay", "no_such.stepwise"], "stepwise: no_such.stepwise: no such session file\n"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(*argv)
    assert code == 2 and "┌ run" not in out
    assert err.startswith(message) and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / ".stepwise").exists()  # nothing recorded for a run that never started


def test_run_error_exits_3(tmp_path):
    session = tmp_path / "e.stepwise"
    code, out, err = run_cli(
        "run", f"{AGENTS}:broken", "--input-json", '{"n": 0}', "--session", str(session)
    )
    assert code == 3
    assert err == "stepwise: the run failed: ValueError: boom\n"
    assert "    └ node explode ✗ ValueError: boom" in tree(out)
    assert "└ run broken ✗ error ValueError: boom" in tree(out)
    with Session.open(session) as s:
        assert s.runs()[0].status == "error"


def test_replay_prints_the_same_tree_and_export(tmp_path):
    session = tmp_path / "r.stepwise"
    _, live, _ = run_cli(
        "run",
        f"{AGENTS}:hitl",
        "--input",
        "go",
        "--thread",
        "r",
        "--session",
        str(session),
        stdin="a\na\n",
    )
    code, replay, _ = run_cli("replay", str(session), "--color", "never")
    assert code == 0
    assert tree(replay) == tree(live)
    with Session.open(session) as s:
        first = s.runs()[0].run_id
        count_first, total = s.count(first), s.count()
    assert replay.splitlines()[-1] == f"2 run(s), {total} event(s) from {session}"
    _, one, _ = run_cli("replay", str(session), "--run", first)
    assert one.splitlines()[-1].startswith(f"1 run(s), {count_first} event(s)")

    code, jsonl, _ = run_cli("export", str(session), "--format", "jsonl")
    assert code == 0
    rows = [json.loads(line) for line in jsonl.splitlines()]
    assert len(rows) == total
    assert rows[0]["kind"] == "run.started" and rows[-1]["kind"] == "run.finished"

    code, mermaid, _ = run_cli("export", str(session), "--format", "mermaid")
    assert code == 0 and mermaid == agents.hitl.get_graph().draw_mermaid()
    target = tmp_path / "graph.mmd"
    assert run_cli("export", str(session), "--format", "mermaid", "-o", str(target))[0] == 0
    assert target.read_text() == mermaid
    code, _, err = run_cli("export", str(session), "--format", "jsonl", "--run", "nope")
    assert code == 2 and "has no run 'nope'" in err


def test_studio_commands_open_the_studio_when_there_is_one(monkeypatch):
    calls: list[list[str]] = []
    fake = types.ModuleType("studio.app.entry")
    fake.main = lambda argv: calls.append(argv) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "studio.app.entry", fake)
    monkeypatch.setattr(cli, "has_display", lambda: True)
    assert run_cli()[0] == 0
    assert run_cli("demo")[0] == 0
    assert run_cli("open", "x.py:agent")[0] == 0
    assert calls == [[], ["demo"], ["open", "x.py:agent"]]


def test_studio_commands_without_a_studio_or_display_run_headless(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "studio.app.entry", None)  # importing it raises ImportError
    monkeypatch.setattr(cli, "has_display", lambda: True)
    code, out, err = run_cli("open", f"{AGENTS}:counter")
    assert code == 0
    assert (
        err
        == f"stepwise: the studio is not available yet (no studio.app.entry): running {AGENTS}:counter headless\n"
    )
    assert tree(out)[-1] == "└ run counter ✓ done"
    monkeypatch.setattr(cli, "has_display", lambda: False)
    code, out, err = run_cli("demo")
    if cli.default_scenario().exists():
        assert code == 0 and err.startswith(
            "stepwise: no display found: running the default scenario headless\n"
        )
    else:
        assert code == 2
        assert err == (
            "stepwise: no display found, and the default scenario resources/scenarios/retry_todos.py "
            "is missing (not written yet?)\n"
        )


def test_has_display(monkeypatch):
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    assert not cli.has_display()
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert cli.has_display()


@pytest.mark.skipif(
    not cli.default_scenario().exists(), reason="the default scenario is not written yet"
)
def test_default_scenario_shows_both_retries_as_attempts(tmp_path):
    code, out, err = run_cli(
        "run",
        f"{cli.default_scenario()}:agent",
        "--headless",
        "--session",
        str(tmp_path / "d.stepwise"),
    )
    assert code == 0, err
    lines = [line.strip() for line in tree(out)]
    model_retry = [
        line
        for line in lines
        if line.startswith("└ ModelRetryMiddleware attempt 1/3 ✗ TimeoutError")
    ]
    tool_retry = [
        line
        for line in lines
        if line.startswith("└ ToolRetryMiddleware attempt 1/2 ✗ OSError: Disk full")
    ]
    assert len(model_retry) == 1 and ", retrying in " in model_retry[0]
    assert len(tool_retry) == 1 and ", retrying in " in tool_retry[0]
    assert (
        "└ ModelRetryMiddleware attempt 2/3 ✓" in lines
        and "└ ToolRetryMiddleware attempt 2/2 ✓" in lines
    )
    assert lines[-1] == "└ run retry_todos ✓ done"


def test_a_files_string_input_reaches_an_entrypoint_of_str_as_is(tmp_path: Path) -> None:
    path = tmp_path / "essay.py"
    path.write_text(
        "from engine import entrypoint\n"
        "from engine.checkpoint import InMemorySaver\n\n"
        "@entrypoint(checkpointer=InMemorySaver())\n"
        "def workflow(topic: str) -> str:\n"
        "    assert isinstance(topic, str), topic\n"
        "    return f'An essay about {topic}'\n\n"
        "INPUT = 'cats'\n"
    )
    session = tmp_path / "s.stepwise"
    code, out, err = run_cli("run", f"{path}:workflow", "--session", str(session), "--headless")
    assert code == 0, err
    assert "An essay about cats" in out


CONFIGURED = (
    "from typing_extensions import TypedDict\n"
    "from engine import START, StateGraph\n"
    "from engine.checkpoint import InMemorySaver\n\n"
    "class S(TypedDict, total=False):\n"
    "    greeting: str\n\n"
    "def greet(state: S, config) -> dict:\n"
    "    return {'greeting': 'hello ' + config['configurable']['user_id']}\n\n"
    "graph = StateGraph(S).add_node('greet', greet).add_edge(START, 'greet').compile()\n"
    "INPUT = {}\n"
)


def test_configurable_json_gives_the_apps_own_configurable_keys(tmp_path: Path) -> None:
    path = tmp_path / "configured.py"
    path.write_text(CONFIGURED)
    spec = f"{path}:graph"
    code, out, err = run_cli(
        "run", spec, "--configurable-json", '{"user_id": "ada"}', "--no-session"
    )
    assert code == 0, err
    assert 'greeting = "hello ada"' in out
    for given, said in [
        ('{"thread_id": "x"}', "--configurable-json: thread_id is set by Stepwise, not here"),
        ("[1]", '--configurable-json: a JSON object of keys, as {"user_id": "u1"}'),
        ("{user", "--configurable-json is not valid JSON: "),
    ]:
        code, _out, err = run_cli("run", spec, "--configurable-json", given, "--no-session")
        assert code == 2 and err.startswith(f"stepwise: {said}"), err
