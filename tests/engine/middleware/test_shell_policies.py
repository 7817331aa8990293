"""Execution policies of the shell tool: validation, command lines, resource limits, redaction."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.middleware import shell_execution
from engine.middleware.redaction import (
    PIIDetectionError,
    RedactionRule,
    apply_strategy,
    detect_credit_card,
    detect_url,
)
from engine.middleware.shell_execution import (
    CodexSandboxExecutionPolicy,
    DockerExecutionPolicy,
    HostExecutionPolicy,
)


class Launched:
    """Stands in for ``_launch_subprocess``: records the call, returns a fake process."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, command: Any, **kw: Any) -> Any:
        self.calls.append({"command": list(command), **kw})
        return type("Proc", (), {"pid": 4242})()


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> Launched:
    fake = Launched()
    monkeypatch.setattr(shell_execution, "_launch_subprocess", fake)
    return fake


def test_validation() -> None:
    with pytest.raises(ValueError, match="max_output_lines must be positive"):
        HostExecutionPolicy(max_output_lines=-1)
    with pytest.raises(ValueError, match="cpu_time_seconds must be positive"):
        HostExecutionPolicy(cpu_time_seconds=-5)
    with pytest.raises(RuntimeError, match="does not support cpu_time_seconds"):
        DockerExecutionPolicy(cpu_time_seconds=3)
    with pytest.raises(ValueError, match="user must be a non-empty string"):
        DockerExecutionPolicy(user="")


def test_missing_binaries_fail_clearly(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    with pytest.raises(RuntimeError, match="requires the 'docker' CLI"):
        DockerExecutionPolicy().spawn(workspace=tmp_path, env={}, command=("/bin/sh",))
    with pytest.raises(RuntimeError, match="requires the 'codex' CLI"):
        CodexSandboxExecutionPolicy().spawn(workspace=tmp_path, env={}, command=("/bin/sh",))


def test_docker_command_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, launched: Launched
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: f"/opt/bin/{name}")
    policy = DockerExecutionPolicy(
        image="alpine:3", network_enabled=True, memory_bytes=1024, extra_run_args=["--init"]
    )
    policy.spawn(workspace=tmp_path, env={"A": "1"}, command=("/bin/sh",))
    cmd = launched.calls[0]["command"]
    assert cmd[:4] == ["/opt/bin/docker", "run", "-i", "--rm"]
    assert "--network" not in cmd
    assert cmd[cmd.index("-v") + 1] == f"{tmp_path}:{tmp_path}"
    assert cmd[cmd.index("-e") + 1] == "A=1"
    assert cmd[-3:] == ["--init", "alpine:3", "/bin/sh"]
    temp = tmp_path / "langchain-shell-x"
    temp.mkdir()
    policy.spawn(workspace=temp, env={}, command=("/bin/sh",))
    second = launched.calls[1]["command"]
    assert "-v" not in second and second[second.index("-w") + 1] == "/"


def test_codex_command_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, launched: Launched
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: f"/opt/bin/{name}")
    policy = CodexSandboxExecutionPolicy(platform="macos", config_overrides={"z": [1], "a": "x"})
    policy.spawn(workspace=tmp_path, env={}, command=("/bin/zsh",))
    assert launched.calls[0]["command"] == [
        "/opt/bin/codex", "sandbox", "macos", "-c", 'a="x"', "-c", "z=[1]", "--", "/bin/zsh",
    ]  # fmt: skip
    monkeypatch.setattr(sys, "platform", "sunos")
    with pytest.raises(RuntimeError, match="set 'platform' explicitly"):
        CodexSandboxExecutionPolicy()._determine_platform()


class SetrlimitOnly:
    """A ``resource`` module without ``prlimit`` (as on macOS)."""

    RLIMIT_CPU = 10
    RLIMIT_AS = 11

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def setrlimit(self, *args: Any) -> None:
        self.calls.append(("setrlimit", *args))


class WithPrlimit(SetrlimitOnly):
    def prlimit(self, *args: Any) -> None:
        self.calls.append(("prlimit", *args))


def test_host_limits_after_start(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, launched: Launched
) -> None:
    fake = WithPrlimit()
    monkeypatch.setattr(shell_execution, "resource", fake)
    monkeypatch.setattr(sys, "platform", "linux")
    HostExecutionPolicy(cpu_time_seconds=3, memory_bytes=99).spawn(
        workspace=tmp_path, env={}, command=("/bin/sh",)
    )
    assert fake.calls == [("prlimit", 4242, 10, (3, 3)), ("prlimit", 4242, 11, (99, 99))]
    assert launched.calls[0]["preexec_fn"] is None
    assert launched.calls[0]["start_new_session"] is True


def test_host_limits_in_the_child(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, launched: Launched
) -> None:
    fake = SetrlimitOnly()
    monkeypatch.setattr(shell_execution, "resource", fake)
    HostExecutionPolicy(cpu_time_seconds=3, create_process_group=False).spawn(
        workspace=tmp_path, env={}, command=("/bin/sh",)
    )
    assert launched.calls[0]["start_new_session"] is False
    assert fake.calls == []
    launched.calls[0]["preexec_fn"]()
    assert fake.calls == [("setrlimit", 10, (3, 3))]


def test_redaction_strategies() -> None:
    card = "card 4111-1111-1111-1111 and 4111-1111-1111-1112"
    matches = detect_credit_card(card)
    assert [m["value"] for m in matches] == ["4111-1111-1111-1111"]  # Luhn rejects the second
    assert (
        apply_strategy(card, matches, "mask") == "card ****-****-****-1111 and 4111-1111-1111-1112"
    )
    assert apply_strategy(card, matches, "redact").startswith("card [REDACTED_CREDIT_CARD] and")
    assert apply_strategy(card, matches, "hash").startswith("card <credit_card_hash:")
    with pytest.raises(PIIDetectionError, match="Detected 1 instance"):
        apply_strategy(card, matches, "block")
    assert [m["value"] for m in detect_url("see www.example.org or example.org/a b.com")] == [
        "www.example.org",
        "example.org/a",
    ]
    custom = RedactionRule("ticket", detector=lambda s: [{"text": "T-1", "start": 0, "end": 3}])
    assert custom.resolve().apply("T-1 open") == (
        "[REDACTED_TICKET] open",
        [{"type": "ticket", "value": "T-1", "start": 0, "end": 3}],
    )
    with pytest.raises(ValueError, match="Unknown PII type: passport"):
        RedactionRule("passport").resolve()
