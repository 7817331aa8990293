"""``stepwise run`` in-process answering its prompts from a fake stdin: at breakpoints (step
over, into, out, quit, on failure, on a loop) and at interrupts (the human-in-the-loop
decisions, a per-call approval, a generic interrupt's JSON).  The helpers are
``tests.engine.cli.test_cli``'s."""

from __future__ import annotations

import json
from pathlib import Path

from engine.recording import Session
from tests.engine.cli import agents
from tests.engine.cli.test_cli import AGENTS, run_cli, tree


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


def test_per_call_allowed_decisions_come_from_the_response_schema():
    from engine.cli.prompt import _allowed_by_schema

    two = {"oneOf": [{"$ref": "#/$defs/ApproveDecision"}, {"$ref": "#/$defs/RejectDecision"}]}
    assert _allowed_by_schema(two) == ["approve", "reject"]
    one = {"properties": {"type": {"const": "respond"}}}
    assert _allowed_by_schema(one) == ["respond"]
    assert _allowed_by_schema(None) == ["approve", "edit", "reject", "respond"]
