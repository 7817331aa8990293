"""Driving the real studio window on a docs-style attached app, and the same steps on plain
LangGraph, for the attach-mode matrix (``test_attach_matrix``).

``Studio`` wraps a ``MainWindow`` (pytest-qt, offscreen, the app's qasync loop): it loads an app
file as ``stepwise open`` does, answers the dialogs the run opens by clicking them (approve /
edit / reject in the approval dialog, a value in the resume dialog), and clicks the toolbar, the
Timeline and the Edit state dialog.  ``Plain`` keeps the same steps as plain LangGraph calls on
a fresh import of the app, on another thread of the same database, so that after each step the
two threads can be compared with ``thread_digest``: the app's database must hold exactly what a
run without Stepwise holds.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from engine.attach.options import AttachOptions
from studio.run.interrupts import dialog_opened
from tests.fixtures.docs_apps import AppFile
from tests.fixtures.plain_langgraph import athread_digest, plain_module, reader, thread_digest
from tests.studio.app_agents import make_window, run_until

__all__ = ["EDITED_EMAIL", "Plain", "Studio", "decide"]

EDITED_EMAIL = {"to": "team@example.com", "subject": "sunny, all week"}


def decide(dialog: Any, kind: str) -> Any:
    """Answer an approval dialog by clicking: ``approve``, ``edit`` (new arguments typed into
    its editor) or ``reject`` (with a reason); returns the dialog."""
    card = dialog.cards[0]
    card.buttons[kind].click()
    if kind == "edit":
        card.editor.setPlainText(json.dumps(EDITED_EMAIL))
    elif kind == "reject":
        card.reason_edit.setText("not today")
    dialog.submit_button.click()
    return dialog


class Studio:
    """The real window on ``app`` (see module docstring)."""

    def __init__(self, qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp: Any, app: AppFile):
        self.qtbot, self.loop, self.app = qtbot, qloop, app
        self.window = make_window(qtbot, tmp)
        self.window.controller.attach = AttachOptions(
            checkpointer=app.checkpointer, stream_tokens=True
        )
        assert self.window.load_spec(app.spec)
        self.answers: list[Callable[[Any], Any]] = []
        self.dialogs: list[Any] = []
        self._disconnect = dialog_opened.connect(self._on_dialog)

    def close(self) -> None:
        self._disconnect()

    def _on_dialog(self, dialog: Any) -> None:
        """A dialog opened: answer it as a user does, once it is on screen."""
        from PySide6.QtCore import QTimer

        self.dialogs.append(dialog)
        if self.answers:
            answer = self.answers.pop(0)
            QTimer.singleShot(0, lambda: answer(dialog))

    # -- the toolbar -------------------------------------------------------------------------

    @property
    def ctl(self) -> Any:
        return self.window.controller

    @property
    def thread(self) -> str:
        return str(self.window.hub.thread_id)

    def until(self, predicate: Callable[[], bool], timeout: float = 60.0) -> None:
        run_until(self.loop, predicate, timeout)

    def until_rest(self) -> str:
        """Wait for the run to stop: paused, or ended (done, error, cancelled, interrupted
        with no dialog to answer)."""
        hub = self.window.hub

        def resting() -> bool:
            stopped = hub.status == "paused" or (not self.ctl.busy and hub.status != "running")
            return stopped and hub.snapshots.idle  # and the docks show where it stopped

        self.until(resting)
        return str(hub.status)

    def trigger(self, action: str) -> str:
        getattr(self.window.actions_, action).trigger()
        self.window.controller.batcher.flush()
        return self.until_rest()

    def paused_at(self) -> tuple[str, str | None]:
        ev = self.ctl.debugger.current_event
        assert ev is not None
        return ev.kind, ev.__dict__.get("node") or ev.__dict__.get("tool")

    # -- the timeline and the edit dialog ----------------------------------------------------

    @property
    def timeline(self) -> Any:
        return self.window.docks["timeline"].widget()

    def checkpoints(self) -> list[Any]:
        """The Timeline's checkpoints of the root graph, oldest first."""
        self.until(lambda: bool(self.timeline.timeline.ordered()))
        return [n for n in self.timeline.timeline.ordered()]

    def select(self, checkpoint_id: str) -> None:
        self.timeline.select(checkpoint_id)
        self.until(lambda: self.window.hub.selected_checkpoint == checkpoint_id)

    def select_written_by(self, writer: str) -> int:
        """Select the root graph's first checkpoint ``writer`` wrote; its index (oldest first,
        as ``Plain.call``'s ``checkpoint_index`` takes it)."""
        nodes = self.checkpoints()
        index = next(i for i, n in enumerate(nodes) if n.record.writers == (writer,))
        self.select(nodes[index].checkpoint_id)
        return index

    def select_first_waiting(self) -> int:
        """Select the root graph's first checkpoint with tasks still due (where "Resume from
        here" forks a run); its index, as ``select_written_by``."""
        nodes = self.checkpoints()
        index = next(i for i, n in enumerate(nodes) if n.next)
        self.select(nodes[index].checkpoint_id)
        return index

    def click(self, button: Any) -> str:
        assert button.isEnabled(), button.toolTip()
        button.click()
        self.until(lambda: self.ctl.busy or self.window.hub.status == "running", 10)
        return self.until_rest()

    def edit_last_message(self, content: str) -> tuple[dict[str, Any], str | None]:
        """Edit the newest message's text in the Edit state dialog (on the selected checkpoint),
        Apply; returns (the message as edited, the node the edit is attributed to)."""
        dialog = self.timeline.open_edit_dialog()
        last = dialog.message_list.count() - 1
        dialog.message_list.setCurrentRow(last)
        data = json.loads(dialog.message_edit.toPlainText())
        data["content"] = content
        dialog.message_edit.setPlainText(json.dumps(data))
        as_node = dialog.as_node_combo.currentData()
        assert dialog.apply_button.isEnabled(), [i.text() for i in dialog.issues()]
        dialog.apply_button.click()
        self.until(lambda: dialog.new_checkpoint_id is not None)
        return data, as_node

    def events(self, kind: str) -> list[Any]:
        return [e for e in self.window.hub.events if e.kind == kind]


class Plain:
    """The same steps without Stepwise, on a fresh import of the app (see module docstring)."""

    def __init__(self, app: AppFile, thread: str = "plain") -> None:
        self.app = app
        self.thread = thread
        self.module = plain_module(app)
        self.steps: list[Callable[[Any, dict[str, Any]], Any]] = []

    @property
    def config(self) -> dict[str, Any]:
        return {"configurable": {"thread_id": self.thread}}

    def graph(self) -> Any:
        if self.app.saver == "aiosqlite":
            return None  # opened per call, on the loop that runs it
        return self.module.graph

    def call(self, inp: Any, checkpoint_index: int | None = None) -> None:
        """Invoke (``checkpoint_index``: from the thread's checkpoint at that index of its
        history, oldest first: a fork)."""
        config = self._at(checkpoint_index)
        self._run(lambda g, _cfg: _invoke(g, inp, config, self.app))

    def _at(self, index: int | None) -> dict[str, Any]:
        if index is None:
            return self.config
        plain = reader(self.app, self.module.graph)
        history = list(reversed(list(plain.get_state_history(self.config))))
        return dict(history[index].config)

    def update(self, values_at: Callable[[Any, dict[str, Any]], Any], as_node: str | None) -> None:
        """``update_state`` with the values ``values_at(graph, config)`` gives."""
        self._run(lambda g, cfg: _update(g, cfg, values_at(g, cfg), as_node, self.app))

    def _run(self, step: Callable[[Any, dict[str, Any]], Any]) -> None:
        if self.app.saver != "aiosqlite":
            result = step(self.module.graph, self.config)
            if asyncio.iscoroutine(result):
                _off_the_window(result)
            return

        async def go() -> None:
            from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

            assert self.app.db is not None
            async with AsyncSqliteSaver.from_conn_string(self.app.db) as saver:
                graph = self.module.graph.copy(update={"checkpointer": saver})
                result = step(graph, self.config)
                if asyncio.iscoroutine(result):
                    await result

        _off_the_window(go())

    def digest(self) -> list[dict[str, Any]]:
        return thread_digest(reader(self.app, self.module.graph), self.thread)


def _invoke(graph: Any, inp: Any, config: dict[str, Any], app: AppFile) -> Any:
    if app.is_async:
        return graph.ainvoke(inp, config)
    return graph.invoke(inp, config)


def _update(
    graph: Any, config: dict[str, Any], values: Any, as_node: str | None, app: AppFile
) -> Any:
    if app.is_async:
        return graph.aupdate_state(config, values, as_node=as_node)
    return graph.update_state(config, values, as_node=as_node)


def _off_the_window(coro: Any) -> Any:
    """Run ``coro`` to its end on a loop of its own, on another thread (the window's thread
    keeps its qasync loop as the current one)."""
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def studio_digest(studio: Studio) -> list[dict[str, Any]]:
    """The studio's thread, read back through plain LangGraph."""
    app = studio.app
    real = studio.ctl.graph.real
    return thread_digest(reader(app, real), studio.thread)


def resume_fork_like_plain(studio: Studio, plain: Plain, writer: str) -> None:
    """Fork from the checkpoint ``writer`` wrote first (Timeline, Resume) and check the app's
    thread then holds what plain LangGraph holds after the same fork."""
    index = studio.select_written_by(writer)
    assert studio.click(studio.timeline.resume_button) == "done", studio.ctl.last_error
    plain.call(None, checkpoint_index=index)
    assert studio_digest(studio) == plain.digest()


def saver_url(request: Any, saver: str) -> str | None:
    """The throwaway PostgreSQL database's URL for a test parametrized with ``saver``
    ("postgres"), None for the other savers."""
    return request.getfixturevalue("postgres_url") if saver == "postgres" else None  # type: ignore[no-any-return]


__all__ += ["athread_digest", "resume_fork_like_plain", "saver_url", "studio_digest"]
