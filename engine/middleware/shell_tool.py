"""``ShellToolMiddleware``: give the agent a persistent shell as a tool (``shell``).

One shell session per agent run: ``before_agent`` starts it (in ``workspace_root``, or a
temporary directory removed afterwards) and runs the ``startup_commands``; ``after_agent``
runs the ``shutdown_commands`` and ends it. The session lives in the private, untracked
state key ``shell_session_resources`` (never checkpointed), so a run resumed after an
interrupt keeps its shell. The tool takes ``command`` (run it) or ``restart=True``.

The answer is a ``ToolMessage``: the output (stderr lines prefixed ``[stderr]``, empty
output as ``<no output>``, truncation and a non-zero ``Exit code: N`` noted at the end;
status ``error`` for a non-zero exit or a timeout) after the ``redaction_rules`` ran over it.
Its ``artifact`` holds ``exit_code``, ``timed_out``, truncation counts and the redactions
made (each match's value as a short hash, never the value itself).

Events: every command is a ``middleware.action`` ``shell_command`` (the command with the
redaction rules applied, exit code, timing out, truncation, duration), a restart is
``shell_restart`` and blocked output ``shell_output_blocked``; the output itself is in the
tool call's ``tool.finished`` event, already redacted.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import tempfile
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, NotRequired

from pydantic import BaseModel, model_validator

from engine.events import MiddlewareAction
from engine.graph.channels import UntrackedValue
from engine.graph.runtime import Runtime
from engine.graph.state import PrivateStateAttr
from engine.messages import ToolMessage
from engine.middleware.redaction import (
    PIIDetectionError,
    PIIMatch,
    RedactionRule,
    ResolvedRedactionRule,
)
from engine.middleware.shell_execution import (
    SHELL_TEMP_PREFIX,
    BaseExecutionPolicy,
    CodexSandboxExecutionPolicy,
    DockerExecutionPolicy,
    HostExecutionPolicy,
)
from engine.middleware.shell_output import MAX_KEPT_BYTES, CommandExecutionResult
from engine.middleware.shell_session import ShellSession
from engine.middleware.types import AgentMiddleware, AgentState
from engine.observe.bus import emit_sync
from engine.tools import ToolException, ToolRuntime, tool

__all__ = [
    "CodexSandboxExecutionPolicy",
    "DockerExecutionPolicy",
    "HostExecutionPolicy",
    "RedactionRule",
    "ShellSession",
    "ShellToolMiddleware",
    "ShellToolState",
]

LOGGER = logging.getLogger(__name__)
SHELL_TOOL_NAME = "shell"
DEFAULT_TOOL_DESCRIPTION = (
    "Run a shell command in a persistent shell session (the working directory and exported "
    "variables carry over between calls). Check where you are (`pwd`, `ls`) before acting, "
    "make sure parent directories exist, prefer absolute paths and quote paths that contain "
    "spaces. Chain commands with `&&` or `;` rather than newlines and avoid needless `cd`. "
    "Very long output is truncated, and a command that runs past its timeout is stopped. "
    "Pass restart=true (and no command) to start a fresh session."
)


def _release(
    session: ShellSession, tempdir: tempfile.TemporaryDirectory[str] | None, timeout: float
) -> None:
    with contextlib.suppress(Exception):
        session.stop(timeout)
    if tempdir is not None:
        with contextlib.suppress(Exception):
            tempdir.cleanup()


@dataclass
class _SessionResources:
    """A run's shell and its temporary workspace; released when dropped or finalized."""

    session: ShellSession
    tempdir: tempfile.TemporaryDirectory[str] | None
    policy: BaseExecutionPolicy
    finalizer: weakref.finalize[Any, Any] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.finalizer = weakref.finalize(
            self, _release, self.session, self.tempdir, self.policy.termination_timeout
        )


class ShellToolState(AgentState):
    """The agent state plus the run's shell session (private, never checkpointed)."""

    shell_session_resources: NotRequired[
        Annotated[_SessionResources | None, UntrackedValue, PrivateStateAttr]
    ]


class _ShellToolInput(BaseModel):
    """The shell tool's arguments: exactly one of ``command`` and ``restart``."""

    command: str | None = None
    """The shell command to run."""
    restart: bool | None = None
    """Start a fresh shell session."""

    @model_validator(mode="after")
    def _one_of(self) -> _ShellToolInput:
        if self.command is None and not self.restart:
            raise ValueError("Shell tool requires either 'command' or 'restart'.")
        if self.command is not None and self.restart:
            raise ValueError("Specify only one of 'command' or 'restart'.")
        return self


class ShellToolMiddleware(AgentMiddleware):
    """Register a persistent shell tool.

    Args:
        workspace_root: the session's working directory (created if missing); None uses a
            temporary directory removed when the run ends.
        startup_commands / shutdown_commands: run after the shell starts / before it ends
            (a failing startup command fails the run; shutdown failures are only logged).
        execution_policy: how the shell runs and its limits (default ``HostExecutionPolicy``).
        redaction_rules: applied to every command's output before the model sees it (they do
            not stop a command from reading or sending secrets).
        tool_description, tool_name: the tool as the model sees it (name ``"shell"``).
        shell_command: the shell to launch (default ``/bin/bash``).
        env: the session's environment (values made strings); None inherits ours.
    """

    state_schema = ShellToolState

    def __init__(
        self,
        workspace_root: str | Path | None = None,
        *,
        startup_commands: Sequence[str] | str | None = None,
        shutdown_commands: Sequence[str] | str | None = None,
        execution_policy: BaseExecutionPolicy | None = None,
        redaction_rules: Sequence[RedactionRule] | None = None,
        tool_description: str | None = None,
        tool_name: str = SHELL_TOOL_NAME,
        shell_command: Sequence[str] | str | None = None,
        env: Mapping[str, Any] | None = None,
    ) -> None:
        self._workspace_root = Path(workspace_root) if workspace_root else None
        self._tool_name = tool_name
        self._shell_command = self._normalize_shell_command(shell_command)
        self._environment = self._normalize_env(env)
        self._execution_policy = execution_policy or HostExecutionPolicy()
        self._redaction_rules: tuple[ResolvedRedactionRule, ...] = tuple(
            rule.resolve() for rule in redaction_rules or ()
        )
        self._startup_commands = self._normalize_commands(startup_commands)
        self._shutdown_commands = self._normalize_commands(shutdown_commands)

        @tool(
            tool_name,
            args_schema=_ShellToolInput,
            description=tool_description or DEFAULT_TOOL_DESCRIPTION,
        )
        def shell(
            *, runtime: ToolRuntime, command: str | None = None, restart: bool | None = False
        ) -> ToolMessage | str:
            resources = self._get_or_create_resources(runtime.state)
            return self._run_shell_tool(
                resources,
                {"command": command, "restart": restart},
                tool_call_id=runtime.tool_call_id,
            )

        self._shell_tool = shell
        self.tools = [shell]

    @property
    def execution_policy(self) -> BaseExecutionPolicy:
        return self._execution_policy

    # -- configuration --------------------------------------------------------------------

    @staticmethod
    def _normalize_commands(commands: Sequence[str] | str | None) -> tuple[str, ...]:
        if commands is None:
            return ()
        return (commands,) if isinstance(commands, str) else tuple(commands)

    @staticmethod
    def _normalize_shell_command(shell_command: Sequence[str] | str | None) -> tuple[str, ...]:
        if shell_command is None:
            return ("/bin/bash",)
        argv = (shell_command,) if isinstance(shell_command, str) else tuple(shell_command)
        if not argv:
            raise ValueError("Shell command must contain at least one argument.")
        return argv

    @staticmethod
    def _normalize_env(env: Mapping[Any, Any] | None) -> dict[str, str] | None:
        if env is None:
            return None
        out: dict[str, str] = {}
        for key, value in env.items():
            if not isinstance(key, str):
                raise TypeError("Environment variable names must be strings.")
            out[key] = str(value)
        return out

    # -- lifecycle ------------------------------------------------------------------------

    def before_agent(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Start the shell (or keep the one a resumed run already has)."""
        return {"shell_session_resources": self._get_or_create_resources(state)}

    async def abefore_agent(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.before_agent, state, runtime)

    def after_agent(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Run the shutdown commands and release the shell and its workspace."""
        resources = state.get("shell_session_resources")
        if not isinstance(resources, _SessionResources):
            return None
        try:
            self._run_shutdown_commands(resources.session)
        finally:
            resources.finalizer()
        return None

    async def aafter_agent(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.after_agent, state, runtime)

    def _get_or_create_resources(self, state: Any) -> _SessionResources:
        """The session in ``state``, or a new one (also stored into ``state``)."""
        existing = state.get("shell_session_resources") if state is not None else None
        if isinstance(existing, _SessionResources):
            return existing
        created = self._create_resources()
        if isinstance(state, dict):
            state["shell_session_resources"] = created
        return created

    def _create_resources(self) -> _SessionResources:
        tempdir: tempfile.TemporaryDirectory[str] | None = None
        if self._workspace_root is None:
            tempdir = tempfile.TemporaryDirectory(prefix=SHELL_TEMP_PREFIX)
            workspace = Path(tempdir.name)
        else:
            workspace = self._workspace_root
            workspace.mkdir(parents=True, exist_ok=True)
        session = ShellSession(
            workspace, self._execution_policy, self._shell_command, self._environment or {}
        )
        try:
            session.start()
            LOGGER.info("Started shell session in %s", workspace)
            self._run_startup_commands(session)
        except BaseException:
            session.stop(self._execution_policy.termination_timeout)
            if tempdir is not None:
                tempdir.cleanup()
            raise
        return _SessionResources(session=session, tempdir=tempdir, policy=self._execution_policy)

    def _run_startup_commands(self, session: ShellSession) -> None:
        for command in self._startup_commands:
            t0 = time.perf_counter()
            result = session.execute(command, timeout=self._execution_policy.startup_timeout)
            self._report_command(command, result, _ms_since(t0), phase="startup")
            if result.timed_out or result.exit_code not in (0, None):
                raise RuntimeError(
                    f"Startup command '{command}' failed with exit code {result.exit_code}"
                )

    def _run_shutdown_commands(self, session: ShellSession) -> None:
        for command in self._shutdown_commands:
            t0 = time.perf_counter()
            try:
                result = session.execute(command, timeout=self._execution_policy.command_timeout)
            except (RuntimeError, ToolException, OSError) as exc:
                LOGGER.warning("Failed to run shutdown command '%s': %s", command, exc)
                continue
            self._report_command(command, result, _ms_since(t0), phase="shutdown")
            if result.timed_out:
                LOGGER.warning("Shutdown command '%s' timed out.", command)
            elif result.exit_code not in (0, None):
                LOGGER.warning("Shutdown command '%s' exited with %s.", command, result.exit_code)

    # -- the tool ---------------------------------------------------------------------------

    def _apply_redactions(self, content: str) -> tuple[str, dict[str, list[PIIMatch]]]:
        """``content`` after every rule, and the matches per type (``block`` raises)."""
        found: dict[str, list[PIIMatch]] = {}
        for rule in self._redaction_rules:
            content, matches = rule.apply(content)
            if matches:
                found.setdefault(rule.pii_type, []).extend(matches)
        return content, found

    def _scrub(self, text: str) -> str:
        """``text`` with every rule's matches replaced (for events: never raises, never leaks)."""
        for rule in self._redaction_rules:
            matches = rule.detector(text)
            for m in sorted(matches, key=lambda x: x["start"], reverse=True):
                text = f"{text[: m['start']]}[REDACTED_{m['type'].upper()}]{text[m['end'] :]}"
        return text

    def _report_command(
        self, command: str, result: CommandExecutionResult, duration_ms: float, *, phase: str
    ) -> None:
        emit_sync(
            MiddlewareAction,
            middleware=self.name,
            action="shell_command",
            detail={  # command and exit code first: the studio's one-line summary shows them
                "command": self._scrub(command),
                "exit_code": result.exit_code,
                "timed_out": result.timed_out,
                "truncated": result.truncated_by_lines or result.truncated_by_bytes,
                "total_lines": result.total_lines,
                "total_bytes": result.total_bytes,
                "duration_ms": round(duration_ms, 3),
                "phase": phase,
            },
        )

    def _run_shell_tool(
        self, resources: _SessionResources, payload: dict[str, Any], *, tool_call_id: str | None
    ) -> ToolMessage | str:
        """Run one tool call; a ToolMessage when ``tool_call_id`` is given, else the text."""
        session = resources.session
        policy = self._execution_policy
        if payload.get("restart"):
            try:
                session.restart()
                self._run_startup_commands(session)
            except BaseException as err:
                raise ToolException("Failed to restart shell session.") from err
            emit_sync(MiddlewareAction, middleware=self.name, action="shell_restart", detail={})
            return self._format_tool_message(
                "Shell session restarted.", tool_call_id, status="success"
            )

        command = payload.get("command")
        if not command or not isinstance(command, str):
            raise ToolException(
                "Shell tool expects a 'command' string when restart is not requested."
            )
        t0 = time.perf_counter()
        result = session.execute(command, timeout=policy.command_timeout)
        self._report_command(command, result, _ms_since(t0), phase="tool")

        if result.timed_out:
            return self._format_tool_message(
                f"Error: Command timed out after {policy.command_timeout:.1f} seconds.",
                tool_call_id,
                status="error",
                artifact={"timed_out": True, "exit_code": None},
            )
        try:
            text, matches = self._apply_redactions(result.output)
        except PIIDetectionError as blocked:
            emit_sync(
                MiddlewareAction,
                middleware=self.name,
                action="shell_output_blocked",
                detail={"pii_type": blocked.pii_type, "count": len(blocked.matches)},
            )
            return self._format_tool_message(
                f"Output blocked: detected {blocked.pii_type}.",
                tool_call_id,
                status="error",
                artifact={
                    "timed_out": False,
                    "exit_code": result.exit_code,
                    "matches": {blocked.pii_type: _hidden(blocked.matches)},
                },
            )

        text = text or "<no output>"
        if result.truncated_by_lines:
            text = (
                f"{text.rstrip()}\n\n... Output truncated at {policy.max_output_lines} lines "
                f"(observed {result.total_lines})."
            )
        if result.truncated_by_bytes:
            limit = (
                policy.max_output_bytes if policy.max_output_bytes is not None else MAX_KEPT_BYTES
            )
            text = (
                f"{text.rstrip()}\n\n... Output truncated at {limit} bytes "
                f"(observed {result.total_bytes})."
            )
        status: Literal["success", "error"] = "success"
        if result.exit_code not in (0, None):
            text = f"{text.rstrip()}\n\nExit code: {result.exit_code}"
            status = "error"
        return self._format_tool_message(
            text,
            tool_call_id,
            status=status,
            artifact={
                "timed_out": False,
                "exit_code": result.exit_code,
                "truncated_by_lines": result.truncated_by_lines,
                "truncated_by_bytes": result.truncated_by_bytes,
                "total_lines": result.total_lines,
                "total_bytes": result.total_bytes,
                "redaction_matches": {k: _hidden(v) for k, v in matches.items()},
            },
        )

    def _format_tool_message(
        self,
        content: str,
        tool_call_id: str | None,
        *,
        status: Literal["success", "error"],
        artifact: dict[str, Any] | None = None,
    ) -> ToolMessage | str:
        if tool_call_id is None:
            return content
        return ToolMessage(
            content=content,
            tool_call_id=tool_call_id,
            name=self._tool_name,
            status=status,
            artifact=artifact or {},
        )


def _ms_since(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def _hidden(matches: Sequence[PIIMatch]) -> list[PIIMatch]:
    """The matches with each value replaced by a short hash (where they were, not what)."""
    return [
        PIIMatch(
            type=m["type"],
            value=f"<{m['type']}_hash:{hashlib.sha256(m['value'].encode()).hexdigest()[:8]}>",
            start=m["start"],
            end=m["end"],
        )
        for m in matches
    ]
