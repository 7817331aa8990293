"""How the shell tool's persistent shell is launched: the execution policies.

- ``HostExecutionPolicy``: the shell runs on this machine, in its own process group, with
  optional CPU-time / memory limits (``prlimit`` after the start on Linux, ``setrlimit`` in
  the child before ``exec`` elsewhere). No filesystem or network isolation.
- ``DockerExecutionPolicy``: ``docker run -i`` a container per session (no network by
  default; the workspace is mounted only when it is a real directory, not a session
  tempdir). Needs the ``docker`` CLI on PATH, else starting the session raises RuntimeError.
- ``CodexSandboxExecutionPolicy``: ``codex sandbox <platform> -- <shell>``. Needs the
  ``codex`` CLI on PATH, else starting the session raises RuntimeError.

Every policy carries the session limits: ``command_timeout``, ``startup_timeout``,
``termination_timeout`` (seconds), ``max_output_lines`` and ``max_output_bytes``.
"""

from __future__ import annotations

import abc
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

try:
    import resource

    _HAS_RESOURCE = True
except ImportError:  # pragma: no cover - not POSIX
    resource = None  # type: ignore[assignment]
    _HAS_RESOURCE = False

__all__ = [
    "SHELL_TEMP_PREFIX",
    "BaseExecutionPolicy",
    "CodexSandboxExecutionPolicy",
    "DockerExecutionPolicy",
    "HostExecutionPolicy",
]

SHELL_TEMP_PREFIX = "langchain-shell-"
"""Prefix of the temporary workspace a session makes when no workspace root is given."""


def _launch_subprocess(
    command: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    preexec_fn: Callable[[], None] | None,
    start_new_session: bool,
) -> subprocess.Popen[str]:
    """Start ``command`` with line-buffered text pipes on stdin, stdout and stderr."""
    return subprocess.Popen(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=dict(env),
        text=True,
        encoding="utf-8",
        errors="replace",
        bufsize=1,
        preexec_fn=preexec_fn,
        start_new_session=start_new_session,
    )


def _require_binary(binary: str, what: str) -> str:
    path = shutil.which(binary)
    if path is None:
        raise RuntimeError(
            f"{what} requires the '{binary}' CLI to be installed and available on PATH."
        )
    return path


@dataclass
class BaseExecutionPolicy(abc.ABC):
    """Limits shared by every policy; subclasses say how the shell process starts."""

    command_timeout: float = 30.0
    startup_timeout: float = 30.0
    termination_timeout: float = 10.0
    max_output_lines: int = 100
    max_output_bytes: int | None = None

    def __post_init__(self) -> None:
        if self.max_output_lines <= 0:
            raise ValueError("max_output_lines must be positive.")

    @abc.abstractmethod
    def spawn(
        self, *, workspace: Path, env: Mapping[str, str], command: Sequence[str]
    ) -> subprocess.Popen[str]:
        """Start the persistent shell (``command``) in ``workspace``."""


@dataclass
class HostExecutionPolicy(BaseExecutionPolicy):
    """Run the shell directly on this machine (trusted environments only)."""

    cpu_time_seconds: int | None = None
    memory_bytes: int | None = None
    create_process_group: bool = True
    _limits_requested: bool = field(init=False, repr=False, default=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.cpu_time_seconds is not None and self.cpu_time_seconds <= 0:
            raise ValueError("cpu_time_seconds must be positive if provided.")
        if self.memory_bytes is not None and self.memory_bytes <= 0:
            raise ValueError("memory_bytes must be positive if provided.")
        self._limits_requested = self.cpu_time_seconds is not None or self.memory_bytes is not None
        if self._limits_requested and not _HAS_RESOURCE:
            raise RuntimeError(
                "HostExecutionPolicy cpu/memory limits require the Python 'resource' module. "
                "Either remove the limits or run on a POSIX platform."
            )

    def spawn(
        self, *, workspace: Path, env: Mapping[str, str], command: Sequence[str]
    ) -> subprocess.Popen[str]:
        after_start = self._limits_requested and self._can_use_prlimit()
        process = _launch_subprocess(
            command,
            env=env,
            cwd=workspace,
            preexec_fn=self._create_preexec_fn(),
            start_new_session=self.create_process_group,
        )
        if after_start:
            self._apply_post_spawn_limits(process)
        return process

    def _limits(self) -> list[tuple[int, tuple[int, int]]]:
        """``(RLIMIT_*, (soft, hard))`` for each limit asked for (memory: address space, or
        the data segment where there is no ``RLIMIT_AS``)."""
        res: Any = resource
        out: list[tuple[int, tuple[int, int]]] = []
        if self.cpu_time_seconds is not None:
            out.append((res.RLIMIT_CPU, (self.cpu_time_seconds, self.cpu_time_seconds)))
        if self.memory_bytes is not None:
            which = getattr(res, "RLIMIT_AS", None)
            if which is None:
                which = getattr(res, "RLIMIT_DATA", None)
            if which is not None:
                out.append((which, (self.memory_bytes, self.memory_bytes)))
        return out

    def _create_preexec_fn(self) -> Callable[[], None] | None:
        if not self._limits_requested or self._can_use_prlimit():
            return None

        def set_limits() -> None:  # runs in the child, before exec
            res: Any = resource
            for which, limit in self._limits():
                res.setrlimit(which, limit)

        return set_limits

    def _apply_post_spawn_limits(self, process: subprocess.Popen[str]) -> None:
        res: Any = resource
        try:
            for which, limit in self._limits():
                res.prlimit(process.pid, which, limit)
        except OSError as exc:  # pragma: no cover - platform dependent
            raise RuntimeError("Failed to apply resource limits via prlimit.") from exc

    @staticmethod
    def _can_use_prlimit() -> bool:
        return _HAS_RESOURCE and hasattr(resource, "prlimit") and sys.platform.startswith("linux")


@dataclass
class CodexSandboxExecutionPolicy(BaseExecutionPolicy):
    """Run the shell inside the Codex CLI sandbox (``codex sandbox``)."""

    binary: str = "codex"
    platform: Literal["auto", "macos", "linux"] = "auto"
    config_overrides: Mapping[str, Any] = field(default_factory=dict)

    def spawn(
        self, *, workspace: Path, env: Mapping[str, str], command: Sequence[str]
    ) -> subprocess.Popen[str]:
        return _launch_subprocess(
            self._build_command(command),
            env=env,
            cwd=workspace,
            preexec_fn=None,
            start_new_session=True,
        )

    def _build_command(self, command: Sequence[str]) -> list[str]:
        full = [self._resolve_binary(), "sandbox", self._determine_platform()]
        for key, value in sorted(dict(self.config_overrides).items()):
            full += ["-c", f"{key}={self._format_override(value)}"]
        return [*full, "--", *command]

    def _resolve_binary(self) -> str:
        return _require_binary(self.binary, "Codex sandbox policy")

    def _determine_platform(self) -> str:
        if self.platform != "auto":
            return self.platform
        if sys.platform.startswith("linux"):
            return "linux"
        if sys.platform == "darwin":
            return "macos"
        raise RuntimeError(
            "Codex sandbox policy could not determine a supported platform; "
            "set 'platform' explicitly."
        )

    @staticmethod
    def _format_override(value: Any) -> str:
        try:
            return json.dumps(value)
        except TypeError:
            return str(value)


@dataclass
class DockerExecutionPolicy(BaseExecutionPolicy):
    """Run the shell in a fresh Docker container per session."""

    binary: str = "docker"
    image: str = "python:3.12-alpine3.19"
    remove_container_on_exit: bool = True
    network_enabled: bool = False
    extra_run_args: Sequence[str] | None = None
    memory_bytes: int | None = None
    cpu_time_seconds: Any | None = None
    cpus: str | None = None
    read_only_rootfs: bool = False
    user: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.memory_bytes is not None and self.memory_bytes <= 0:
            raise ValueError("memory_bytes must be positive if provided.")
        if self.cpu_time_seconds is not None:
            raise RuntimeError(
                "DockerExecutionPolicy does not support cpu_time_seconds; configure CPU limits "
                "using Docker run options such as '--cpus'."
            )
        if self.cpus is not None and not self.cpus.strip():
            raise ValueError("cpus must be a non-empty string when provided.")
        if self.user is not None and not self.user.strip():
            raise ValueError("user must be a non-empty string when provided.")
        self.extra_run_args = tuple(self.extra_run_args or ())

    def spawn(
        self, *, workspace: Path, env: Mapping[str, str], command: Sequence[str]
    ) -> subprocess.Popen[str]:
        # the session's variables go into the container (-e); docker itself gets ours
        return _launch_subprocess(
            self._build_command(workspace, env, command),
            env=os.environ.copy(),
            cwd=workspace,
            preexec_fn=None,
            start_new_session=True,
        )

    def _build_command(
        self, workspace: Path, env: Mapping[str, str], command: Sequence[str]
    ) -> list[str]:
        full = [self._resolve_binary(), "run", "-i"]
        if self.remove_container_on_exit:
            full.append("--rm")
        if not self.network_enabled:
            full += ["--network", "none"]
        if self.memory_bytes is not None:
            full += ["--memory", str(self.memory_bytes)]
        if self._should_mount_workspace(workspace):
            full += ["-v", f"{workspace}:{workspace}", "-w", str(workspace)]
        else:
            full += ["-w", "/"]
        if self.read_only_rootfs:
            full.append("--read-only")
        for key, value in env.items():
            full += ["-e", f"{key}={value}"]
        if self.cpus is not None:
            full += ["--cpus", self.cpus]
        if self.user is not None:
            full += ["--user", self.user]
        full += list(self.extra_run_args or ())
        return [*full, self.image, *command]

    @staticmethod
    def _should_mount_workspace(workspace: Path) -> bool:
        return not workspace.name.startswith(SHELL_TEMP_PREFIX)

    def _resolve_binary(self) -> str:
        return _require_binary(self.binary, "Docker execution policy")
