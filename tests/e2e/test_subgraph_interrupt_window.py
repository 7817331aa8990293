"""A subgraph's ``interrupt()`` in the studio's Events dock: one row, under the node that
called it (the parent's node that ran the subgraph shows it waits: interrupted), answered in
the resume dialog; the app's thread then holds what a run without Stepwise holds.  A session
recorded before, where the interrupt was told again at the parent's node, opens with one row
too."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")

from langgraph.types import Command as LGCommand

from tests.e2e.attach_window import Plain, Studio, studio_digest
from tests.fixtures.docs_app_sources import SUBGRAPH_INTERRUPT_APP
from tests.fixtures.docs_apps import write_app
from tests.studio.app_agents import make_window, run_until

pytestmark = pytest.mark.timeout(180)

PAUSED = "‖"
"""The mark of a span that ended interrupted."""


def event_rows(window: Any) -> list[tuple[int, str]]:
    """The Events dock's rows, (depth, text), every row expanded."""
    from PySide6.QtCore import QModelIndex

    dock = window.docks["events"].widget()
    dock.flush()
    model = dock.view.model()

    def walk(parent: QModelIndex, depth: int) -> list[tuple[int, str]]:
        if model.canFetchMore(parent):
            model.fetchMore(parent)
        out: list[tuple[int, str]] = []
        for r in range(model.rowCount(parent)):
            index = model.index(r, 0, parent)
            out.append((depth, str(index.data())))
            out.extend(walk(index, depth + 1))
        return out

    return walk(QModelIndex(), 0)


def enclosing(rows: list[tuple[int, str]], at: int) -> list[str]:
    """The texts of the rows row ``at`` is nested in, innermost first."""
    out: list[str] = []
    depth = rows[at][0]
    for d, text in reversed(rows[:at]):
        if d < depth:
            out.append(text)
            depth = d
    return out


def check_one_interrupt_row(rows: list[tuple[int, str]]) -> None:
    interrupts = [i for i, (_d, t) in enumerate(rows) if "interrupt" in t and "review" in t]
    interrupts = [i for i in interrupts if not rows[i][1].startswith(("node", "superstep"))]
    assert len(interrupts) == 1, rows
    outer = enclosing(rows, interrupts[0])
    assert outer[0].startswith("node review") and PAUSED in outer[0], outer
    writer = next(t for t in outer if t.startswith("node writer"))
    assert PAUSED in writer  # the parent's node shows it waits on its subgraph's interrupt


def test_a_subgraph_interrupt_is_one_row_and_is_answered(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    app = write_app(tmp_path, SUBGRAPH_INTERRUPT_APP)
    studio = Studio(qtbot, qloop, tmp_path, app)
    plain = Plain(app)
    seen: list[list[tuple[int, str]]] = []

    def answer(dialog: Any) -> None:
        seen.append(event_rows(studio.window))  # what the user sees when the dialog asks
        dialog.editor.setPlainText('"approved"')
        dialog.resume_button.click()

    try:
        studio.answers.append(answer)
        assert studio.trigger("run") == "done", studio.ctl.last_error
        assert [type(d).__name__ for d in studio.dialogs] == ["ResumeValueDialog"]
        check_one_interrupt_row(seen[0])
        plain.call(plain.module.INPUT)
        plain.call(LGCommand(resume="approved"))
        assert studio_digest(studio) == plain.digest()
        raised = studio.events("interrupt.raised")
        assert [(e.__dict__["node"], bool(e.ns)) for e in raised] == [("review", True)]
    finally:
        studio.close()


def _told_twice(tmp_path: Path) -> list[Any]:
    """The events of a run of the app stopped at its subgraph's interrupt, as sessions recorded
    them before it was told once: again at the parent's node, right after that node ended."""
    from engine.attach import attach
    from engine.events import InterruptRaised
    from tests.fixtures.plain_langgraph import plain_module

    app = write_app(tmp_path, SUBGRAPH_INTERRUPT_APP, "recorded")
    graph = attach(plain_module(app).graph)
    config = {"configurable": {"thread_id": "old"}}

    async def go() -> list[Any]:
        return [e async for e in graph.astream_events({"draft": "v1"}, config, version="stepwise")]

    events = asyncio.run(go())
    (intr,) = [e for e in events if isinstance(e, InterruptRaised)]
    at = next(
        i
        for i, e in enumerate(events)
        if e.kind == "node.finished" and e.__dict__["node"] == "writer"
    )
    writer = events[at]
    again = intr.model_copy(
        update={"ns": "", "node": "writer", "parent_span_id": writer.parent_span_id, "step": 1}
    )
    told = [*events[: at + 1], again, *events[at + 1 :]]
    return [e.model_copy(update={"seq": i}) for i, e in enumerate(told, 1)]


def test_a_session_recorded_with_the_interrupt_told_twice_opens_with_one_row(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    from engine.recording import SessionRecorder

    events = _told_twice(tmp_path)
    assert [e.__dict__["node"] for e in events if e.kind == "interrupt.raised"] == [
        "review",
        "writer",
    ]
    path = tmp_path / "old.stepwise"
    rec = SessionRecorder(path)
    for ev in events:
        rec.record(ev)
    rec.close()
    window = make_window(qtbot, tmp_path)
    assert window.open_session(str(path))
    run_until(qloop, lambda: len(window.hub.events) == len(events))
    check_one_interrupt_row(event_rows(window))
    waterfall = window.docks["waterfall"]
    waterfall.show()
    waterfall.raise_()
    model = waterfall.widget().model
    run_until(qloop, lambda: bool(model.runs))
    (lanes,) = model.runs.values()
    marks = [m for m in lanes.marks if m.kind == "interrupt.raised"]
    assert [m.event.__dict__["node"] for m in marks] == ["review"]  # one mark, on its node
