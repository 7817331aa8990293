"""``stepwise run`` on a real LangGraph graph: auto-detected, langgraph savers, interrupts
answered at the prompt, breakpoints, clear errors."""

from __future__ import annotations

import io
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("langgraph.graph")

from engine.cli import main
from engine.recording import Session
from tests.engine.attach.apps import REVIEW_APP as APP


def run_cli(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def app(tmp_path: Path) -> str:
    path = tmp_path / "app.py"
    path.write_text(textwrap.dedent(APP))
    return f"{path}:graph"


def test_run_answers_the_interrupt_and_records_on_a_sqlite_saver(app: str, tmp_path: Path) -> None:
    pytest.importorskip("langgraph.checkpoint.sqlite")
    session = tmp_path / "s.stepwise"
    db = tmp_path / "cp.sqlite"
    args = ["run", app, "--input-json", '{"n": 1}', "--thread", "T", "--session", str(session)]
    code, out, err = run_cli(*args, "--checkpointer", f"sqlite:///{db}", stdin='"fine"\n')
    assert (code, err) == (0, "")
    assert "┌ node bump" in out and "interrupted" in out and "(resumed)" in out
    assert 'Δ state verdict = "fine"' in out
    with Session.open(session) as s:
        assert [r.status for r in s.runs()] == ["interrupted", "done"]
    # the thread lives in the app's own saver: a second process sees it
    from engine.attach import attach
    from engine.attach.savers import open_saver
    from engine.loader import load_agent

    graph = attach(load_agent(app)).with_checkpointer(open_saver(f"sqlite:///{db}"))
    assert graph.get_state({"configurable": {"thread_id": "T"}}).values == {
        "n": 2,
        "verdict": "fine",
    }


def test_a_breakpoint_before_a_node_prompts(app: str) -> None:
    code, out, err = run_cli(
        "run", app, "--input-json", '{"n": 1}', "--no-session", "--break", "bump",
        stdin='c\n"ok"\n',
    )  # fmt: skip
    assert (code, err) == (0, "")
    assert "⏸ paused (breakpoint: before node bump) at node.started" in out
    assert "▶ continue" in out


def test_clear_errors(app: str, monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = run_cli("run", app, "--input-json", "{}", "--runtime", "engine")
    assert code == 2 and "--runtime langgraph" in err
    monkeypatch.setitem(sys.modules, "langgraph.checkpoint.postgres", None)
    code, _, err = run_cli(
        "run", app, "--input-json", "{}", "--no-session", "--checkpointer", "postgres://x/y"
    )
    assert code == 2 and "langgraph-checkpoint-postgres" in err
    code, _, err = run_cli("run", app, "--input-json", "{}", "--checkpointer", "redis://x")
    assert code == 2 and "unknown checkpointer" in err


def test_a_stepwise_checkpoint_file_is_refused_as_a_langgraph_saver(
    app: str, tmp_path: Path
) -> None:
    """``--checkpointer sqlite:///x`` on the engine's own file: one line, and LangGraph's saver
    never adds its tables to it (it did, then failed every run on a missing column)."""
    import sqlite3

    from engine.checkpoint.sqlite import SqliteSaver

    db = tmp_path / "ours.db"
    SqliteSaver(db).conn.close()

    def tables() -> list[str]:
        with sqlite3.connect(db) as conn:
            return sorted(r[0] for r in conn.execute("SELECT name FROM sqlite_master"))

    before = tables()
    for url in (f"sqlite:///{db}", f"sqlite+aiosqlite:///{db}"):
        code, _, err = run_cli(
            "run", app, "--input-json", "{}", "--no-session", "--checkpointer", url
        )
        assert code == 2 and "is a Stepwise checkpoint file" in err, err
        assert err.count("\n") == 1
    assert tables() == before


HITL_APP = """
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

class Model(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

@tool
def delete(path: str) -> str:
    \"\"\"Delete a file.\"\"\"
    return f"deleted {path}"

call = {"name": "delete", "args": {"path": "/tmp/x"}, "id": "c1"}
agent = create_agent(
    Model(messages=iter([AIMessage("", tool_calls=[call]), AIMessage("all clean")])),
    tools=[delete],
    middleware=[HumanInTheLoopMiddleware(interrupt_on={"delete": True})],
)
"""


def test_human_in_the_loop_middleware_is_answered_at_the_prompt(tmp_path: Path) -> None:
    pytest.importorskip("langchain.agents")
    path = tmp_path / "hitl.py"
    path.write_text(textwrap.dedent(HITL_APP))
    code, out, err = run_cli(
        "run", f"{path}:agent", "--input", "clean up", "--no-session", stdin="a\n"
    )
    assert (code, err) == (0, "")
    assert "Tool: delete" in out and "(resumed)" in out
    assert "deleted /tmp/x" in out and '"all clean"' in out
    # the hook the run waits at says so, not ✓ (the same hook, resumed, ends ✓)
    first, _, resumed = out.partition("(resumed)")
    assert "└ HumanInTheLoopMiddleware.after_model ⏸ interrupted" in first
    assert "└ HumanInTheLoopMiddleware.after_model ✓ update messages" in resumed


def test_open_a_saved_thread_without_a_display_lists_it(
    app: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langgraph.checkpoint.sqlite")
    db = f"sqlite:///{tmp_path / 'cp.sqlite'}"
    # a run that stops at the interrupt (no answer typed): the thread waits in the database
    code, _, _ = run_cli(
        "run", app, "--input-json", '{"n": 4}', "--thread", "W", "--no-session",
        "--checkpointer", db,
    )  # fmt: skip
    assert code == 0
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    code, out, err = run_cli("open", app, "--thread", "W", "--checkpointer", db)
    assert code == 0 and "listing the thread instead" in err
    lines = out.splitlines()
    assert lines[0] == "thread W: 3 checkpoints, newest first"
    assert "next: review" in lines[1] and "state: n" in lines[1]
    assert "waiting for an answer (interrupt " in out and '{"n": 5}' in out
    code, _, err = run_cli(
        "open", app, "--thread", "W", "--checkpointer", "postgres://u:pw1234@127.0.0.1:1/x"
    )
    assert code == 2 and "cannot open postgres://127.0.0.1:1/x" in err and "pw1234" not in err


def test_run_gives_the_run_context_from_context_json(tmp_path: Path) -> None:
    from tests.fixtures.docs_app_sources import CONTEXT_APP
    from tests.fixtures.docs_apps import write_app

    spec = write_app(tmp_path, CONTEXT_APP).spec
    code, out, err = run_cli("run", spec, "--no-session", "--context-json", '{"user_name": "Ada"}')
    assert (code, err) == (0, "")
    assert 'tool get_user_name ✓ "Ada"' in out  # the docs' runtime example, attached
    code, _, err = run_cli("run", spec, "--no-session", "--context-json", "{nope")
    assert code == 2 and err.startswith("stepwise: --context-json is not valid JSON")


REPLIES_APP = """
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

class Model(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

@tool
def get_weather(city: str) -> str:
    \"\"\"Weather for a city.\"\"\"
    return f"sunny in {city}"

# the classic: a reply cut off at the token limit in the middle of a tool call's arguments
cut = {"name": "get_weather", "args": '{"city": "s', "id": "x1", "error": "bad json"}
agent = create_agent(
    Model(messages=iter([
        AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "la"}, "id": "x0"}]),
        AIMessage("", invalid_tool_calls=[cut], response_metadata={"finish_reason": "length"}),
    ])),
    tools=[get_weather],
)
"""


def test_why_a_reply_stopped_short_shows_on_the_real_libraries(tmp_path: Path) -> None:
    """A reply cut off at the token limit inside a tool call's arguments: LangChain's agent
    runs no tool for the call and ends; the tree says why (not an empty reply, not ✓ alone)."""
    pytest.importorskip("langchain.agents")
    path = tmp_path / "replies.py"
    path.write_text(textwrap.dedent(REPLIES_APP))
    code, out, err = run_cli("run", f"{path}:agent", "--input", "hi", "--no-session")
    assert (code, err) == (0, "")
    assert 'tool get_weather ✓ "sunny in la"' in out
    assert (
        '✓ → get_weather ✗ invalid call: "bad json" ⚠ cut off at its token limit'
        " (finish_reason: length)"
    ) in out
    assert "route model → END" in out
