"""``stepwise open app.py:graph --thread T --checkpointer sqlite:///...``: the studio opens a
thread a production app saved in its own database, waiting at an interrupt; the Timeline lists
its checkpoints, F5 opens the answer dialog and resuming finishes the thread in that database."""

from __future__ import annotations

import asyncio
import sqlite3
import textwrap
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langgraph.checkpoint.sqlite")

from engine.attach.options import AttachOptions
from studio.dialogs.resume import ResumeValueDialog
from studio.run.saved_threads import open_in_window
from tests.engine.attach.apps import REVIEW_APP
from tests.studio.app_agents import make_window, run_until


def production_thread(tmp_path: Path) -> tuple[Path, Path]:
    """The app file, and its database holding thread "prod-7" stopped at ``review``, saved by
    the real LangGraph (no Stepwise involved)."""
    app = tmp_path / "app.py"
    app.write_text(textwrap.dedent(REVIEW_APP))
    db = tmp_path / "prod.sqlite"
    from langgraph.checkpoint.sqlite import SqliteSaver

    from engine.loader import load_target

    real = load_target(f"{app}:graph").graph.real  # the loader attaches: take the real graph
    with sqlite3.connect(db, check_same_thread=False) as conn:
        graph = real.copy(update={"checkpointer": SqliteSaver(conn)})
        graph.invoke({"n": 41}, {"configurable": {"thread_id": "prod-7"}})
    return app, db


def window_on_the_production_database(qtbot: Any, tmp_path: Path) -> tuple[Any, Path, Path]:
    """A main window with the app loaded on its production database (``--checkpointer``)."""
    app, db = production_thread(tmp_path)
    window = make_window(qtbot, tmp_path)
    window.controller.attach = AttachOptions(checkpointer=f"sqlite:///{db}")
    assert window.load_spec(f"{app}:graph")
    return window, app, db


def test_a_production_thread_is_opened_answered_and_finished(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    from studio.run.interrupts import dialog_opened

    window, _app, db = window_on_the_production_database(qtbot, tmp_path)
    summary = qloop.run_until_complete(open_in_window(window, "prod-7"))
    assert summary is not None and summary.interrupts
    assert window.hub.thread_id == "prod-7" and window.hub.status == "interrupted"
    assert "prod-7 waits for an answer at step 1" in window.status.message_label.full_text()
    timeline = window.docks["timeline"].widget().timeline
    run_until(qloop, lambda: len(timeline.ordered()) == 3)  # input, before bump, before review
    assert window.actions_.run.text() == "Continue"
    moment = window.graph_panel.state.moment  # the Graph dock: "review" waits (amber)
    assert moment is not None and moment.next == ("review",) and "review" in moment.interrupts

    opened: list[Any] = []
    disconnect = dialog_opened.connect(opened.append)
    try:
        window.actions_.run.trigger()  # F5: answer the interrupt the app left pending
        run_until(qloop, lambda: len(opened) == 1)
        dialog = opened[0]
        assert isinstance(dialog, ResumeValueDialog)
        assert '"n": 42' in dialog.value_view.toPlainText()
        dialog.editor.setPlainText('"looks right"')
        dialog.resume_button.click()
        run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    finally:
        disconnect()
    # the answer went into the production database, on the same thread
    from langgraph.checkpoint.sqlite import SqliteSaver

    with sqlite3.connect(db, check_same_thread=False) as conn:
        saved = SqliteSaver(conn).get_tuple({"configurable": {"thread_id": "prod-7"}})
    assert saved is not None
    assert saved.checkpoint["channel_values"]["verdict"] == "looks right"


def test_an_unknown_thread_says_so_and_a_bad_database_url_is_one_line(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    window, app, _db = window_on_the_production_database(qtbot, tmp_path)
    summary = qloop.run_until_complete(open_in_window(window, "nobody"))
    assert summary is not None and not summary.checkpoints
    assert "no checkpoints yet" in window.status.message_label.full_text()
    assert window.hub.status == "idle"

    other = make_window(qtbot, tmp_path)
    other.controller.attach = AttachOptions(
        checkpointer="postgresql://app:s3cret-pw@127.0.0.1:1/prod"
    )
    assert not other.load_spec(f"{app}:graph")
    shown = other.error_dialog.message_label.text()
    assert "cannot open postgresql://127.0.0.1:1/prod" in shown
    assert "s3cret-pw" not in shown


def test_file_open_saved_thread_lists_a_databases_threads_and_opens_one(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    from studio.dialogs.saved_thread import OpenThreadDialog

    app, db = production_thread(tmp_path)
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(f"{app}:graph")  # on LangGraph's in-memory saver so far
    window.menus.open_thread_action.trigger()
    dialog = window.menus.thread_dialog
    assert isinstance(dialog, OpenThreadDialog) and dialog.isVisible()
    assert not dialog.open_button.isEnabled()  # no thread yet
    # a database that is not there: one line, and the password is not in it
    dialog.url_edit.setText("postgresql://app:hunter22@127.0.0.1:1/prod")
    dialog.list_button.click()
    run_until(qloop, lambda: dialog.listing is not None and dialog.listing.done())
    assert dialog.error_label.isVisible() and "hunter22" not in dialog.error_label.text()
    assert "127.0.0.1:1/prod" in dialog.error_label.text()
    # the production database: its thread is listed, picked and opened
    dialog.url_edit.setText(f"sqlite:///{db}")
    dialog.list_button.click()
    run_until(qloop, lambda: dialog.thread_list.count() == 1)
    assert not dialog.error_label.isVisible()
    dialog.thread_list.setCurrentRow(0)
    assert dialog.thread_edit.text() == "prod-7" and dialog.open_button.isEnabled()
    dialog.open_button.click()
    run_until(
        qloop, lambda: window.hub.thread_id == "prod-7" and window.hub.status == "interrupted"
    )
    assert window.controller.attach.checkpointer == f"sqlite:///{db}"
    assert "waits for an answer" in window.status.message_label.full_text()


BREAKPOINT_APP = """
import sqlite3
from typing import TypedDict
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

class State(TypedDict):
    n: int

graph = (
    StateGraph(State)
    .add_node("bump", lambda s: {"n": s["n"] + 1})
    .add_node("tools", lambda s: {"n": s["n"] * 10})
    .add_edge(START, "bump")
    .add_edge("bump", "tools")
    .add_edge("tools", END)
    .compile(
        checkpointer=SqliteSaver(sqlite3.connect(DB, check_same_thread=False)),
        interrupt_before=["tools"],
    )
)
"""


def test_continue_on_a_saved_thread_stopped_at_a_static_breakpoint_resumes_that_thread(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    db = tmp_path / "app.sqlite"
    app = tmp_path / "app.py"
    app.write_text(textwrap.dedent(BREAKPOINT_APP).replace("DB", repr(str(db))))
    from tests.fixtures.docs_apps import AppFile
    from tests.fixtures.plain_langgraph import plain_module

    plain = plain_module(AppFile(app))  # the app ran in production and stopped before tools
    plain.graph.invoke({"n": 1}, {"configurable": {"thread_id": "T"}})
    window = make_window(qtbot, tmp_path)
    window.controller.attach = AttachOptions(checkpointer=f"sqlite:///{db}")
    assert window.load_spec(f"{app}:graph")
    summary = qloop.run_until_complete(open_in_window(window, "T"))
    assert summary is not None and summary.next == ("tools",) and not summary.interrupts
    assert window.hub.status == "interrupted"
    assert window.actions_.run.text() == "Continue"
    window.actions_.run.trigger()  # F5
    run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    assert window.hub.thread_id == "T"  # the same thread, not a new empty one
    state = plain.graph.get_state({"configurable": {"thread_id": "T"}})
    assert state.values == {"n": 20} and state.next == ()
