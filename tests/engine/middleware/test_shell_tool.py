"""ShellToolMiddleware: the persistent session, output shaping, redaction, events, an agent run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.agents import create_agent
from engine.checkpoint import InMemorySaver
from engine.events import EventBase
from engine.graph.runtime import Runtime
from engine.messages import AIMessage, HumanMessage, ToolMessage
from engine.middleware import (
    HostExecutionPolicy,
    RedactionRule,
    ShellToolMiddleware,
)
from engine.middleware.shell_session import ShellSession
from engine.models import ScriptedChatModel
from engine.tools import ToolException
from tests.engine.middleware.helpers import actions, captured_events


class Shell:
    """A started middleware session for one test (stopped at the end)."""

    def __init__(self, mw: ShellToolMiddleware) -> None:
        self.mw = mw
        self.state: dict[str, Any] = {"messages": []}
        update = mw.before_agent(self.state, Runtime())
        self.state.update(update or {})
        self.resources = self.state["shell_session_resources"]

    def run(self, command: str, call_id: str | None = None) -> Any:
        return self.mw._run_shell_tool(self.resources, {"command": command}, tool_call_id=call_id)

    def close(self) -> None:
        self.mw.after_agent(self.state, Runtime())


@pytest.fixture
def shell(tmp_path: Path) -> Any:
    opened: list[Shell] = []

    def make(**kw: Any) -> Shell:
        s = Shell(ShellToolMiddleware(workspace_root=tmp_path / "ws", **kw))
        opened.append(s)
        return s

    yield make
    for s in opened:
        s.close()


def test_directory_and_variables_persist_between_commands(shell: Any, tmp_path: Path) -> None:
    s = shell()
    s.run("mkdir -p notes && cd notes && export COLOR=teal")
    assert s.run("pwd").strip() == str(tmp_path / "ws" / "notes")
    assert s.run("echo $COLOR").strip() == "teal"


def test_restart_forgets_the_session(shell: Any) -> None:
    s = shell()
    s.run("export COLOR=teal")
    answer = s.mw._run_shell_tool(s.resources, {"restart": True}, tool_call_id="r1")
    assert isinstance(answer, ToolMessage) and answer.content == "Shell session restarted."
    assert s.run("echo ${COLOR:-gone}").strip() == "gone"


def test_output_shaping(shell: Any) -> None:
    s = shell(execution_policy=HostExecutionPolicy(max_output_lines=3))
    assert s.run("true") == "<no output>"
    assert "[stderr] oops" in s.run("echo oops >&2")
    long = s.run("for i in 1 2 3 4 5 6; do echo line$i; done")
    assert "line3" in long and "line4" not in long
    assert long.endswith("... Output truncated at 3 lines (observed 6).")
    failed = s.run("ls /no/such/dir", call_id="c9")
    assert isinstance(failed, ToolMessage)
    assert failed.status == "error" and failed.content.endswith("Exit code: 2")
    assert failed.artifact["exit_code"] == 2


def test_stderr_and_stdout_both_complete_before_the_answer(shell: Any) -> None:
    s = shell()
    out = s.run("echo one; echo two >&2; echo three")
    assert "one" in out and "[stderr] two" in out and "three" in out


def test_byte_limit(shell: Any) -> None:
    s = shell(execution_policy=HostExecutionPolicy(max_output_bytes=10))
    out = s.run("echo 0123456789abcdef")
    assert "Output truncated at 10 bytes (observed 17)." in out


def test_timeout_restarts_the_shell(shell: Any) -> None:
    s = shell(execution_policy=HostExecutionPolicy(command_timeout=0.3))
    answer = s.run("export KEEP=1; sleep 30", call_id="c1")
    assert answer.status == "error"
    assert answer.content == "Error: Command timed out after 0.3 seconds."
    assert answer.artifact == {"timed_out": True, "exit_code": None}
    assert s.run("echo ${KEEP:-fresh}").strip() == "fresh"


def test_exit_ends_the_shell_and_reports_its_status(tmp_path: Path) -> None:
    session = ShellSession(tmp_path, HostExecutionPolicy(), ("/bin/bash",), {})
    session.start()
    try:
        result = session.execute("echo bye; exit 7", timeout=5)
        assert result.exit_code == 7 and "bye" in result.output
        assert not session.running
    finally:
        session.stop(1)


def test_redaction_and_block(shell: Any) -> None:
    s = shell(redaction_rules=[RedactionRule("email")])
    message = s.run("echo mail ann@example.org now", call_id="c1")
    assert message.content == "mail [REDACTED_EMAIL] now\n"
    (match,) = message.artifact["redaction_matches"]["email"]
    assert "ann@example.org" not in str(match) and match["value"].startswith("<email_hash:")
    b = shell(redaction_rules=[RedactionRule("api_key", "block", detector=r"sk-[a-z0-9]{8}")])
    blocked = b.run("echo sk-abcdef12", call_id="c2")
    assert blocked.status == "error" and blocked.content == "Output blocked: detected api_key."
    assert "sk-abcdef12" not in str(blocked.artifact)


def test_command_events_never_carry_secrets(shell: Any) -> None:
    s = shell(redaction_rules=[RedactionRule("token", "block", detector=r"tok_[0-9]+")])
    with captured_events() as events:
        s.run("echo tok_12345 > /dev/null; false")
    (action,) = actions(events, "shell_command")
    assert action.detail["command"] == "echo [REDACTED_TOKEN] > /dev/null; false"
    assert action.detail["exit_code"] == 1 and action.detail["timed_out"] is False
    assert "tok_12345" not in str([e.model_dump() for e in events])


def test_startup_and_shutdown_commands(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    mw = ShellToolMiddleware(
        workspace_root=ws, startup_commands="echo up > up.txt", shutdown_commands=["rm up.txt"]
    )
    state: dict[str, Any] = {"messages": []}
    state.update(mw.before_agent(state, Runtime()) or {})
    assert (ws / "up.txt").read_text() == "up\n"
    mw.after_agent(state, Runtime())
    assert not (ws / "up.txt").exists()
    failing = ShellToolMiddleware(workspace_root=ws, startup_commands=["false"])
    with pytest.raises(RuntimeError, match="Startup command 'false' failed with exit code 1"):
        failing.before_agent({"messages": []}, Runtime())


def test_validation(shell: Any) -> None:
    with pytest.raises(ValueError, match="at least one argument"):
        ShellToolMiddleware(shell_command=())
    with pytest.raises(TypeError, match="must be strings"):
        ShellToolMiddleware(env={1: "x"})
    s = shell()
    with pytest.raises(ToolException, match="expects a 'command' string"):
        s.run("")
    mw = ShellToolMiddleware()
    schema = mw.tools[0].tool_call_schema
    assert schema["name"] == "shell"
    assert set(schema["parameters"]["properties"]) == {"command", "restart"}
    with pytest.raises(ValueError, match="only one"):
        mw.tools[0].validate_args({"command": "ls", "restart": True})


def test_temporary_workspace_is_removed(tmp_path: Path) -> None:
    mw = ShellToolMiddleware(env={"N": 3})
    state: dict[str, Any] = {"messages": []}
    state.update(mw.before_agent(state, Runtime()) or {})
    resources = state["shell_session_resources"]
    where = Path(mw._run_shell_tool(resources, {"command": "pwd"}, tool_call_id=None).strip())
    assert where.name.startswith("langchain-shell-") and where.is_dir()
    assert mw._run_shell_tool(resources, {"command": "echo $N"}, tool_call_id=None).strip() == "3"
    mw.after_agent(state, Runtime())
    assert not where.exists()


def test_agent_runs_shell_commands_with_a_checkpointer(tmp_path: Path) -> None:
    model = ScriptedChatModel(
        [
            AIMessage(
                content="",
                tool_calls=[{"name": "shell", "args": {"command": "echo hello"}, "id": "s1"}],
            ),
            AIMessage(content="done"),
        ]
    )
    agent = create_agent(
        model,
        middleware=[ShellToolMiddleware(workspace_root=tmp_path / "ws")],
        checkpointer=InMemorySaver(),
    )
    events: list[EventBase] = []
    with agent.subscribe(events.append):
        out = agent.invoke(
            {"messages": [HumanMessage(content="say hello")]},
            {"configurable": {"thread_id": "sh"}},
        )
    answer = next(m for m in out["messages"] if isinstance(m, ToolMessage))
    assert answer.content.strip() == "hello" and answer.status == "success"
    assert "shell_session_resources" not in out
    (ran,) = actions(events, "shell_command")
    assert ran.detail["command"] == "echo hello" and ran.detail["exit_code"] == 0


async def test_agent_keeps_one_session_across_tool_calls(tmp_path: Path) -> None:
    def call(command: str, call_id: str) -> AIMessage:
        return AIMessage(
            content="", tool_calls=[{"name": "shell", "args": {"command": command}, "id": call_id}]
        )

    model = ScriptedChatModel(
        [call("cd / && export ROUND=2", "a"), call("pwd; echo $ROUND", "b"), AIMessage("ok")]
    )
    agent = create_agent(model, middleware=[ShellToolMiddleware(workspace_root=tmp_path / "ws")])
    out = await agent.ainvoke({"messages": [HumanMessage(content="go")]})
    answers = [m.content for m in out["messages"] if isinstance(m, ToolMessage)]
    assert answers == ["<no output>", "/\n2\n"]


def test_a_shell_that_dies_at_start_is_reported(tmp_path: Path) -> None:
    # a launcher that fails at once, like `docker run` without a running docker engine
    mw = ShellToolMiddleware(
        workspace_root=tmp_path,
        shell_command=["/bin/sh", "-c", "echo 'engine unreachable' >&2; exit 125"],
    )
    state: dict[str, Any] = {"messages": []}
    state.update(mw.before_agent(state, Runtime()) or {})
    resources = state["shell_session_resources"]
    resources.session._process.wait()  # it has surely died before the first command
    first = mw._run_shell_tool(resources, {"command": "echo hi"}, tool_call_id="c1")
    assert first.content == "[stderr] engine unreachable\n\nExit code: 125"
    with pytest.raises(RuntimeError, match=r"not running \(the shell exited with status 125\)"):
        mw._run_shell_tool(resources, {"command": "echo hi"}, tool_call_id="c2")
    again = mw._run_shell_tool(resources, {"restart": True}, tool_call_id="c3")
    assert again.content == "Shell session restarted."
    mw.after_agent(state, Runtime())
