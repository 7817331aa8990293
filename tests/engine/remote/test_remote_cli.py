"""``stepwise run --server`` / ``stepwise open --server`` headless, against a real server."""

from __future__ import annotations

import io

import pytest

from engine.cli import command as cli
from engine.recording import Session
from tests.engine.remote.helpers import another_client
from tests.fixtures.langgraph_server import FULL_KEY

pytestmark = pytest.mark.timeout(180)


def _run(args: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(args, stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("LANGGRAPH_API_KEY", FULL_KEY)
    monkeypatch.delenv("LANGSMITH_API_KEY", raising=False)
    return FULL_KEY


def test_run_prints_the_tree_pauses_and_answers_the_interrupt(
    langgraph_server, api_key, tmp_path
) -> None:
    session = tmp_path / "cli.stepwise"
    code, out, err = _run(
        [
            "run",
            "--server",
            langgraph_server.url,
            "--assistant",
            "probe",
            "--input",
            "hi",
            "--break",
            "think",
            "--session",
            str(session),
            "--headless",
        ],
        stdin='c\n"ship it"\n',
    )
    assert code == 0, err
    assert "node plan" in out and "node think" in out and "node review" in out
    assert "(stepwise) [c/s/n/o/q/state] >" in out  # paused before think
    assert "resume value (JSON) >" in out and "ship it" in out
    assert out.index("┌ node think") < out.index("(stepwise)") < out.index("┌ model")
    assert f"session: {session}" in out
    assert api_key not in out + err + session.read_bytes().decode("utf-8", "replace")
    with Session.open(session) as s:
        assert [r.status for r in s.runs()] == ["interrupted", "done"]


def test_run_without_a_key_is_one_line(langgraph_server, monkeypatch) -> None:
    for var in ("LANGGRAPH_API_KEY", "LANGSMITH_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    code, _, err = _run(["run", "--server", langgraph_server.url, "--assistant", "probe"])
    assert code == 2
    assert err.count("\n") == 1 and "(401)" in err and "LANGGRAPH_API_KEY" in err


def test_run_refuses_what_a_server_cannot_do(langgraph_server, api_key) -> None:
    code, _, err = _run(
        ["run", "--server", langgraph_server.url, "--assistant", "probe", "--break-tool", "x"]
    )
    assert code == 2 and "--break-tool: not with --server" in err
    code, _, err = _run(
        ["run", "--server", langgraph_server.url, "--assistant", "probe", "--input", "hi",
         "--break", "work:inner"]
    )  # fmt: skip
    assert code == 2 and "root graph" in err
    code, _, err = _run(["run", "--server", langgraph_server.url, "--assistant", "nope"])
    assert code == 2 and "no assistant 'nope'" in err and "probe" in err


def test_run_a_failing_graph_exits_3(langgraph_server, api_key, tmp_path) -> None:
    code, out, err = _run(
        ["run", "--server", langgraph_server.url, "--assistant", "bad", "--input-json", "{}",
         "--no-session"]
    )  # fmt: skip
    assert code == 3
    assert "ValueError: the boom node failed on purpose" in err
    assert "node boom" in out


async def test_join_watches_another_clients_run(langgraph_server, api_key) -> None:
    import asyncio

    client = another_client(langgraph_server)
    thread = (await client.threads.create())["thread_id"]
    await client.runs.create(
        thread, "slow", input={"ticks": 5}, stream_mode=["debug", "events", "custom"],
        stream_resumable=True,
    )  # fmt: skip
    code, out, err = await asyncio.to_thread(
        _run,
        ["run", "--server", langgraph_server.url, "--assistant", "slow", "--thread", thread,
         "--join", "--no-session"],
    )  # fmt: skip
    assert code == 0, err
    assert "node tick" in out and out.count("custom") >= 5


def test_open_without_a_display_lists_threads(langgraph_server, api_key, monkeypatch) -> None:
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(var, raising=False)
    code, out, err = _run(["open", "--server", langgraph_server.url, "--assistant", "probe"])
    assert code == 0, err
    assert "probe on http://127.0.0.1" in out


def test_run_passes_the_context_and_the_configurable_keys(langgraph_server, api_key) -> None:
    code, out, err = _run(
        [
            "run", "--server", langgraph_server.url, "--assistant", "contextual",
            "--input-json", "{}", "--context-json", '{"user": "ada"}', "--headless",
        ]
    )  # fmt: skip
    assert code == 0, err
    assert "hello ada" in out
    code, out, err = _run(
        [
            "run", "--server", langgraph_server.url, "--assistant", "configured",
            "--input-json", "{}", "--configurable-json", '{"user_id": "u7"}', "--headless",
        ]
    )  # fmt: skip
    assert code == 0, err
    assert "hello u7" in out


async def test_an_interrupted_thread_is_answered_later_with_thread(
    langgraph_server, api_key
) -> None:
    """The interrupt is left unanswered (no answer typed): the thread waits on the server, and
    the command printed (``--thread``, no input) prompts for it there and resumes the run."""
    import asyncio
    import re

    base = ["run", "--server", langgraph_server.url, "--assistant", "probe", "--no-session"]
    code, out, err = await asyncio.to_thread(_run, [*base, "--input", "hi"], "")
    assert code == 0, err
    assert "only in this process's memory" not in out
    found = re.search(r"on the server \(answer it later: (stepwise run .* --thread (\S+))\)", out)
    assert found is not None, out
    thread = found.group(2)
    client = another_client(langgraph_server)
    assert (await client.threads.get_state(thread))["next"] == ["review"]
    code, out, err = await asyncio.to_thread(
        _run, [*base, "--thread", thread], '"ship it"\n'
    )  # no input: the waiting run is continued, not started over
    assert code == 0, err
    assert "resume value (JSON) >" in out and "node review" in out
    state = await client.threads.get_state(thread)
    assert state["values"]["approved"] == "ship it" and state["next"] == []
    history = await client.threads.get_history(thread, limit=50)
    assert [h["metadata"]["source"] for h in history].count("input") == 1
