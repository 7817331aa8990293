"""``stepwise`` in-process, with a fake stdin: run, breakpoints, HITL, exit codes, replay, export."""

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


def test_breakpoint_prompt_step_over_then_continue(tmp_path):
    session = tmp_path / "b.stepwise"
    code, out, _ = run_cli(
        "run",
        AGENTS,
        "--input",
        "hi",
        "--session",
        str(session),
        "--break",
        "act",
        stdin="state\nn\nbogus\nc\n",
    )
    assert code == 0
    lines = tree(out)
    first = lines.index("      ⏸ paused (breakpoint: before node act) at node.started")
    assert lines[first - 1] == "    ┌ node act"
    assert "      ▶ step_over" in lines
    second = lines.index("      ⏸ paused (step) at node.started")
    assert lines[second - 1] == "    ┌ node think" and second > first
    assert "      ▶ continue" in lines
    assert '  "n": 1' in out  # the `state` command printed the state at the first pause
    assert "unknown command 'bogus': c continue · s step into" in out
    assert out.count("(stepwise) [c/s/n/o/q/state] > ") == 4
    with Session.open(session) as s:
        paused = s.events(kinds=["debug.paused"])
        assert [(e.reason, e.at_kind) for e in paused] == [
            ("breakpoint", "node.started"),
            ("step", "node.started"),
        ]
        assert [e.command for e in s.events(kinds=["debug.resumed"])] == ["step_over", "continue"]


def test_breakpoint_step_into_out_and_end_of_input(tmp_path):
    code, out, _ = run_cli(
        "run", AGENTS, "--input", "hi", "--no-session", "--break-after", "think", stdin="s\no\n"
    )
    assert code == 0
    lines = tree(out)
    i = lines.index("    └ node think ✓")
    assert lines[i + 1 : i + 3] == [
        "      ⏸ paused (breakpoint: after node think) at node.finished",
        "      ▶ step_into",
    ]
    assert lines[i + 4 : i + 6] == [
        "    ⏸ paused (step) at state.updated",
        "    ▶ step_out",
    ]  # step into: next event
    assert lines[i + 7 : i + 9] == [
        "  └ superstep 1 ✓",
        "    ⏸ paused (step) at superstep.finished",
    ]  # out
    assert lines[i + 9] == "    ▶ continue"
    assert "(end of input: continuing)" in out
    assert "session:" not in out
    assert lines[-1] == "└ run loop ✓ done"


def test_quit_at_a_breakpoint_stops_the_run_cleanly(tmp_path):
    session = tmp_path / "q.stepwise"
    code, out, _ = run_cli(
        "run",
        AGENTS,
        "--input",
        "hi",
        "--thread",
        "tq",
        "--session",
        str(session),
        "--break",
        "act",
        stdin="q\n",
    )
    assert code == 0
    assert "stopped: the last checkpoint of thread tq is intact" in out
    with Session.open(session) as s:
        (run,) = s.runs()
        assert run.status == "cancelled"
        assert s.checkpoints("tq")[-1].next == ("act",)


def test_hitl_decisions_with_invalid_json_reprompt(tmp_path):
    session = tmp_path / "h.stepwise"
    answers = 'x\ne\n{bad json\n[1]\n{"path": "signup.tsx"}\nrespond\nr\nnot needed\n'
    code, out, _ = run_cli(
        "run",
        f"{AGENTS}:hitl",
        "--input",
        "go",
        "--thread",
        "h",
        "--session",
        str(session),
        stdin=answers,
    )
    assert code == 0
    assert (
        "── approval 1/2 ──\nCreate login.tsx?\n[a]pprove [e]dit [r]eject re[s]pond > x\nchoose one of:"
        in out
    )
    assert "invalid JSON: Expecting property name enclosed in double quotes" in out
    assert 'expected a JSON object like {"key": "value"}' in out
    assert (
        "── approval 2/2 ──\nDelete old.tsx?\n[a]pprove [r]eject > respond\nchoose one of: approve, reject"
        in out
    )
    with Session.open(session) as s:
        assert [r.status for r in s.runs()] == ["interrupted", "done"]
        decisions = json.loads(s.state("h")["messages"][-1].content)
    assert decisions == {
        "decisions": [
            {
                "type": "edit",
                "edited_action": {"name": "create_file", "args": {"path": "signup.tsx"}},
            },
            {"type": "reject", "message": "not needed"},
        ]
    }


def test_hitl_approve_respond_and_end_of_input(tmp_path):
    session = tmp_path / "h2.stepwise"
    code, out, _ = run_cli(
        "run",
        f"{AGENTS}:hitl",
        "--input",
        "go",
        "--thread",
        "h2",
        "--session",
        str(session),
        stdin="s\nuse signup.tsx\na\n",
    )
    assert code == 0
    with Session.open(session) as s:
        decisions = json.loads(s.state("h2")["messages"][-1].content)
    assert decisions == {
        "decisions": [{"type": "respond", "message": "use signup.tsx"}, {"type": "approve"}]
    }
    code, out, _ = run_cli(
        "run",
        f"{AGENTS}:hitl",
        "--input",
        "go",
        "--thread",
        "h3",
        "--session",
        str(session),
        stdin="a\n",
    )
    assert code == 0
    assert "the run stays interrupted on thread h3" in out


def test_per_call_tool_approval_asks_for_one_decision(tmp_path):
    session = tmp_path / "pc.stepwise"
    code, out, _ = run_cli(
        "run",
        f"{AGENTS}:per_call",
        "--input",
        "go",
        "--thread",
        "pc",
        "--session",
        str(session),
        stdin="r\nnot today\n",
    )
    assert code == 0
    assert "Send the mail to bob?\n[a]pprove [e]dit [r]eject re[s]pond > " in out
    with Session.open(session) as s:
        decision = json.loads(s.state("pc")["messages"][-1].content)
    assert decision == {"type": "reject", "message": "not today"}


def test_generic_interrupt_asks_for_json(tmp_path):
    session = tmp_path / "g.stepwise"
    code, out, _ = run_cli(
        "run",
        f"{AGENTS}:asker",
        "--input-json",
        '{"n": 1}',
        "--thread",
        "g",
        "--session",
        str(session),
        stdin='nope\n{"more": 41}\n',
    )
    assert code == 0
    assert 'interrupt in ask: {\n  "question": "how many?"\n}' in out
    assert "invalid JSON: Expecting value: line 1 column 1 (char 0)" in out
    assert '▶ resume ask with {"more": 41}' in out
    with Session.open(session) as s:
        assert s.runs()[-1].output == {"n": 42}


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


def test_break_on_failure_pauses_at_the_failed_node(tmp_path):
    code, out, _ = run_cli(
        "run",
        f"{AGENTS}:broken",
        "--input-json",
        '{"n": 0}',
        "--no-session",
        "--break-on-failure",
        stdin="c\nc\n",
    )
    assert code == 3
    assert "⏸ paused (breakpoint: any failure) at node.finished" in out


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


def test_per_call_allowed_decisions_come_from_the_response_schema():
    from engine.cli.prompt import _allowed_by_schema

    two = {"oneOf": [{"$ref": "#/$defs/ApproveDecision"}, {"$ref": "#/$defs/RejectDecision"}]}
    assert _allowed_by_schema(two) == ["approve", "reject"]
    one = {"properties": {"type": {"const": "respond"}}}
    assert _allowed_by_schema(one) == ["respond"]
    assert _allowed_by_schema(None) == ["approve", "edit", "reject", "respond"]


def test_a_loop_is_printed_and_break_on_loop_stops_there(tmp_path):
    code, out, _ = run_cli(
        "run",
        f"{Path(agents.__file__).with_name('loop_agent.py')}:looper",
        "--input",
        "find it",
        "--no-session",
        "--break-on-loop",
        stdin="q\n",
    )
    assert code == 0
    lines = tree(out)
    loop = next(i for i, line in enumerate(lines) if "⟳ loop detected in model" in line)
    assert "the model's last 3 answers were only tool calls that failed" in lines[loop]
    assert "⏸ paused (breakpoint: loop detected) at loop.detected" in out
    assert sum("┌ model" in line and "model.request" not in line for line in lines) <= 4
    assert "stopped:" in out


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
