"""The generic resume dialog (``interrupt(value)``) and the static-pause dialog, on real graphs."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from typing import Annotated, Any, TypedDict

import pytest
from PySide6.QtWidgets import QDialog

from engine.checkpoint.memory import InMemorySaver
from engine.events import EventBase, InterruptRaised
from engine.graph import END, START, StateGraph, interrupt
from engine.types import Command
from studio.dialogs.resume import PauseDialog, ResumeValueDialog
from studio.models.hub import Hub
from studio.run.interrupts import (
    CONTINUE,
    answer_pending,
    dialog_opened,
    handle_interrupt,
    run_input,
)


class State(TypedDict, total=False):
    answers: Annotated[list[Any], operator.add]
    log: Annotated[list[str], operator.add]


LONG_NOTE = "x" * 9000  # longer than an event keeps


def asking_graph(parallel: bool = False) -> Any:
    def ask(state: State) -> dict[str, Any]:
        answer = interrupt({"question": "Ship to which address?", "note": LONG_NOTE})
        return {"answers": [answer]}

    def ask_again(state: State) -> dict[str, Any]:
        return {"answers": [interrupt("Gift wrap?")]}

    builder = StateGraph(State)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    if parallel:
        builder.add_node("ask_again", ask_again)
        builder.add_edge(START, "ask_again")
        builder.add_edge("ask_again", END)
    return builder.compile(checkpointer=InMemorySaver())


def static_graph() -> Any:
    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"log": ["a"]})
    builder.add_node("b", lambda s: {"log": ["b"]})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", END)
    return builder.compile(checkpointer=InMemorySaver(), interrupt_before=["b"])


@pytest.fixture
def app(qapp: Any, qloop: Any) -> Iterator[Any]:
    previous = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)
    yield qloop
    qapp.setQuitOnLastWindowClosed(previous)


class Session:
    def __init__(self, loop: Any, graph: Any) -> None:
        self.loop, self.graph = loop, graph
        self.hub = Hub()
        self.hub.set_graph(graph, graph.get_graph())
        graph.subscribe(self._on_event)

    def _on_event(self, event: EventBase) -> None:
        self.hub.add_events([event])

    def invoke(self, inp: Any) -> Any:
        return self.loop.run_until_complete(self.graph.ainvoke(inp, self.hub.config()))

    def raised(self) -> list[InterruptRaised]:
        return [e for e in self.hub.events if isinstance(e, InterruptRaised)]

    def answer(self, *acts: Callable[[Any], None], pending: bool = False) -> Any:
        queue = list(acts)

        def on_open(dialog: Any) -> None:
            queue.pop(0)(dialog)

        disconnect = dialog_opened.connect(on_open)
        try:
            if pending:
                result = self.loop.run_until_complete(answer_pending(self.hub))
            else:
                result = self.loop.run_until_complete(
                    handle_interrupt(self.hub, self.raised(), None)
                )
        finally:
            disconnect()
        assert not queue, "a dialog that should have opened did not"
        return result


def test_resume_value_is_validated_inline_and_resumes_the_node(app: Any) -> None:
    s = Session(app, asking_graph())
    s.invoke({"answers": []})
    seen: dict[str, Any] = {}

    def fill(dialog: ResumeValueDialog) -> None:
        assert isinstance(dialog, ResumeValueDialog)
        seen["shown"] = dialog.value_view.toPlainText()
        seen["initially"] = dialog.resume_button.isEnabled()
        dialog.editor.setPlainText("{'street': 1}")
        seen["bad"] = (dialog.resume_button.isEnabled(), dialog.error_label.text())
        dialog.editor.setPlainText('{"street": "Main St 1", "city": "Graz"}')
        seen["good"] = (dialog.resume_button.isEnabled(), dialog.error_label.isHidden())
        dialog.resume_button.click()
        seen["result"] = dialog.result()

    command = s.answer(fill)
    assert '"question": "Ship to which address?"' in seen["shown"]
    assert LONG_NOTE in seen["shown"]  # the exact value, not the event's shortened copy
    assert seen["initially"] is False
    assert seen["bad"][0] is False and seen["bad"][1].startswith("Not valid JSON")
    assert seen["good"] == (True, True)
    assert seen["result"] == QDialog.DialogCode.Accepted
    assert command == Command(resume={"street": "Main St 1", "city": "Graz"})
    out = s.invoke(command)
    assert out["answers"] == [{"street": "Main St 1", "city": "Graz"}]


def test_plain_text_resume_and_answer_later(app: Any) -> None:
    s = Session(app, asking_graph())
    s.invoke({"answers": []})
    assert s.answer(lambda d: d.cancel_button.click()) is None
    assert len(s.loop.run_until_complete(s.graph.aget_state(s.hub.config())).interrupts) == 1

    def text(dialog: ResumeValueDialog) -> None:
        dialog.editor.setPlainText("to the office")
        assert not dialog.resume_button.isEnabled()  # not JSON
        dialog.as_text_box.setChecked(True)
        assert dialog.resume_button.isEnabled()
        dialog.resume_button.click()

    command = s.answer(text, pending=True)
    assert command == Command(resume="to the office")
    assert s.invoke(command)["answers"] == ["to the office"]


def test_several_pending_interrupts_resume_by_id(app: Any) -> None:
    s = Session(app, asking_graph(parallel=True))
    s.invoke({"answers": []})
    ids = {e.node: e.interrupt_id for e in s.raised()}
    assert set(ids) == {"ask", "ask_again"}

    def reply(dialog: ResumeValueDialog) -> None:  # each dialog names the node that asked
        dialog.editor.setPlainText(f'"answer to {dialog.request.node}"')
        dialog.resume_button.click()

    order = [e.node for e in s.raised()]
    command = s.answer(reply, reply)
    assert command.resume == {ids[node]: f"answer to {node}" for node in order}
    out = s.invoke(command)
    assert sorted(out["answers"]) == ["answer to ask", "answer to ask_again"]


def test_several_interrupts_are_asked_in_the_threads_order(app: Any) -> None:
    """Parallel tasks raise in whatever order their threads reach ``interrupt()``; the dialogs
    follow the thread's pending order, so the same pause asks the same way every time."""
    s = Session(app, asking_graph(parallel=True))
    s.invoke({"answers": []})
    snapshot = s.loop.run_until_complete(s.graph.aget_state(s.hub.config()))
    pending = [i.id for i in snapshot.interrupts]
    asked: list[str] = []

    def note(dialog: ResumeValueDialog) -> None:
        asked.append(dialog.request.interrupt_id or "")
        dialog.editor.setPlainText('"ok"')
        dialog.resume_button.click()

    queue = [note, note]
    disconnect = dialog_opened.connect(lambda d: queue.pop(0)(d))
    try:  # the raised events handed over in reverse: the order must not follow them
        s.loop.run_until_complete(handle_interrupt(s.hub, list(reversed(s.raised())), None))
    finally:
        disconnect()
    assert asked == pending


def test_static_pause_continues_with_no_input(app: Any) -> None:
    s = Session(app, static_graph())
    s.invoke({"log": []})
    s.hub.set_status("interrupted")
    static = [e for e in s.raised() if e.static]
    assert [(e.static, e.node) for e in static] == [("before", "b")]
    seen: dict[str, Any] = {}

    def look(dialog: PauseDialog) -> None:
        assert isinstance(dialog, PauseDialog)
        seen["title"] = dialog.request.title
        seen["edit_hidden"] = dialog.edit_button.isHidden()
        dialog.cancel_button.click()

    assert s.answer(look) is None
    assert seen == {"title": "Paused before b", "edit_hidden": False}

    answer = s.answer(lambda d: d.continue_button.click(), pending=True)
    assert answer is CONTINUE
    assert run_input(answer) is None
    assert s.invoke(run_input(answer))["log"] == ["a", "b"]


def test_static_pause_edit_state_then_continue(app: Any) -> None:
    import json

    s = Session(app, static_graph())
    s.invoke({"log": []})
    s.hub.set_status("interrupted")
    steps: list[str] = []

    def edit(dialog: PauseDialog) -> None:
        assert not dialog.edit_button.isHidden()  # the studio has an Edit State dialog
        steps.append("pause")
        dialog.edit_button.click()

    def close_without_applying(dialog: Any) -> None:
        steps.append(type(dialog).__name__)
        dialog.reject()

    def edit_again(dialog: PauseDialog) -> None:
        steps.append("pause again")
        dialog.edit_button.click()

    def apply(dialog: Any) -> None:
        steps.append(type(dialog).__name__)
        values = json.loads(dialog.values_edit.toPlainText())
        values["log"] = [*values["log"], "edited"]
        dialog.values_edit.setPlainText(json.dumps(values))
        dialog.apply_button.click()

    answer = s.answer(edit, close_without_applying, edit_again, apply)
    assert steps == ["pause", "EditStateDialog", "pause again", "EditStateDialog"]
    assert answer is CONTINUE
    assert s.invoke(run_input(answer))["log"] == ["a", "edited", "b"]


def test_interrupts_without_ids_are_answered_by_their_tasks(app: Any) -> None:
    """An interrupt reported without its id (only its task: an attached app's LangGraph may not
    say) is answered as the interrupt its task waits on: two tasks interrupting at once each
    get their own answer, by the id the thread gives it."""
    s = Session(app, asking_graph(parallel=True))
    s.invoke({"answers": []})
    raised = s.raised()
    assert all(e.task_id for e in raised)
    ids = {e.node: e.interrupt_id for e in raised}
    anonymous = [e.model_copy(update={"interrupt_id": None}) for e in raised]

    def reply(dialog: ResumeValueDialog) -> None:
        dialog.editor.setPlainText(f'"answer to {dialog.request.node}"')
        dialog.resume_button.click()

    queue = [reply, reply]
    disconnect = dialog_opened.connect(lambda d: queue.pop(0)(d))
    try:
        command = s.loop.run_until_complete(handle_interrupt(s.hub, anonymous, None))
    finally:
        disconnect()
    assert command.resume == {ids[node]: f"answer to {node}" for node in ids}
    out = s.invoke(command)
    assert sorted(out["answers"]) == ["answer to ask", "answer to ask_again"]
