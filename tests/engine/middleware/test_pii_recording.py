"""When an agent redacts personal data with ``PIIMiddleware``, the raw value never touches
disk or the terminal: the session file (input, state updates, tool results, model responses,
checkpoints, pending writes), replay, exports and the live tree show it redacted."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest

from engine.cli import main
from engine.recording import Session
from tests.engine.middleware import pii_agent
from tests.engine.middleware.pii_agent import CARD, EMAIL

AGENT = f"{Path(pii_agent.__file__)}:agent"
RAW = (EMAIL, CARD, CARD.replace(" ", ""))


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.StringIO(""), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _no_raw(text: str | bytes, where: str) -> None:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    for raw in RAW:
        assert raw not in text, f"{raw!r} reached {where}"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    session = tmp_path_factory.mktemp("pii") / "s.stepwise"
    code, out, err = run_cli("run", AGENT, "--thread", "t1", "--session", str(session))
    assert code == 0, err
    return session, out, err


def test_the_live_tree_shows_it_redacted(recorded: tuple[Path, str, str]) -> None:
    _, out, err = recorded
    _no_raw(out + err, "the terminal")
    assert "[REDACTED_EMAIL]" in out and "**** **** **** 1111" in out


def test_the_session_file_never_holds_the_raw_value(recorded: tuple[Path, str, str]) -> None:
    session, _, _ = recorded
    for part in session.parent.glob(session.name + "*"):  # the file, and any -wal / -shm
        _no_raw(part.read_bytes(), part.name)
    with sqlite3.connect(session) as conn:  # every table, every column, decoded
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for row in conn.execute(f"SELECT * FROM {table}"):
                _no_raw(" ".join(map(str, row)), table)
    with Session.open(session) as s:  # and what reading it back gives
        (run,) = s.runs()
        kinds = {ev.kind for ev in s.iter_events(run.run_id)}
        assert {"tool.finished", "model.response", "state.updated"} <= kinds
        state = s.checkpointer.get_tuple({"configurable": {"thread_id": "t1"}})
        assert state is not None
        messages = state.checkpoint["channel_values"]["messages"]
        _no_raw(str([m.content for m in messages]), "the last checkpoint")
        assert "[REDACTED_EMAIL]" in messages[0].content
        assert (
            messages[-1].content
            == "Done: receipts go to [REDACTED_EMAIL], card **** **** **** 1111."
        )


def test_replay_and_exports_show_it_redacted(recorded: tuple[Path, str, str]) -> None:
    session, _, _ = recorded
    for argv in (
        ["replay", str(session)],
        ["export", str(session), "--format", "jsonl"],
        ["export", str(session), "--format", "mermaid"],
    ):
        code, out, err = run_cli(*argv)
        assert code == 0, err
        _no_raw(out + err, " ".join(argv[:1]))
    assert "[REDACTED_EMAIL]" in run_cli("replay", str(session))[1]


def test_an_agent_without_pii_middleware_is_recorded_as_is(tmp_path: Path) -> None:
    from engine.middleware.pii import pii_text_filter
    from tests.engine.cli import agents

    assert pii_text_filter(agents.agent) is None
    assert pii_text_filter(pii_agent.agent) is not None


LANGCHAIN_APP = """
from langchain.agents import create_agent
from langchain.agents.middleware import PIIMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage


class Model(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self


agent = create_agent(
    Model(messages=iter([AIMessage("write to {email}")])),
    tools=[],
    middleware=[PIIMiddleware("email", apply_to_output=True)],
)
"""


def test_an_attached_langchain_agents_pii_middleware_is_honoured(tmp_path: Path) -> None:
    pytest.importorskip("langchain.agents.middleware")
    app = tmp_path / "app.py"
    app.write_text(LANGCHAIN_APP.format(email=EMAIL))
    session = tmp_path / "s.stepwise"
    code, out, err = run_cli(
        "run", f"{app}:agent", "--input", f"I am {EMAIL}", "--session", str(session)
    )
    assert code == 0, err
    _no_raw(out + err, "the terminal")
    for part in session.parent.glob(session.name + "*"):
        _no_raw(part.read_bytes(), part.name)
    assert "[REDACTED_EMAIL]" in run_cli("replay", str(session))[1]
