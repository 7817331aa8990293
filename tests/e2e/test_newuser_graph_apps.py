"""A new user's own StateGraph and functional-API apps in the studio window, attached on the
real libraries (a numbers loop with a subgraph, an entrypoint of tasks with a human review, a
graph whose node fails): the problems found by driving them as a user does (see each test).
The agent apps are in ``test_newuser_apps``."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

from tests.e2e.attach_window import Studio
from tests.e2e.test_newuser_apps import CHAT_APP
from tests.fixtures.docs_apps import write_app

LOOP_APP = '''
"""Numbers in a loop, a subgraph as a node (typing.TypedDict, as users write it)."""
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    n: int
    total: int
    history: Annotated[list[int], operator.add]


class SubState(TypedDict):
    n: int
    total: int


def double(state: SubState):
    return {"total": state["total"] + state["n"] * 2}


sub = StateGraph(SubState)
sub.add_node("double", double)
sub.add_edge(START, "double")
sub.add_edge("double", END)


def step(state: State):
    return {"n": state["n"] + 1, "history": [state["n"]]}


def should_continue(state: State):
    return "step" if state["n"] < 4 else "finish"


def finish(state: State):
    return {"history": [-1]}


builder = StateGraph(State)
builder.add_node("step", step)
builder.add_node("accumulate", sub.compile())
builder.add_node("finish", finish)
builder.add_edge(START, "step")
builder.add_edge("step", "accumulate")
builder.add_conditional_edges("accumulate", should_continue, ["step", "finish"])
builder.add_edge("finish", END)
graph = builder.compile(checkpointer=InMemorySaver())
'''


def visits(studio: Studio) -> dict[str, int]:
    state = studio.window.graph_panel.state
    return {node: state.visits(node) for node in ("step", "accumulate", "finish")}


def test_back_to_live_while_paused_inside_a_subgraph_counts_the_live_branch(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """Paused inside a subgraph (its events carry the subgraph's own checkpoints), a look at a
    past checkpoint and back to Live drew the Graph dock from no branch at all: every visit
    count 0 (the live tip was taken from the subgraph's checkpoint).  The same happened when a
    fork's first events ended inside a subgraph."""
    app = write_app(tmp_path, LOOP_APP, "loop_app")
    studio = Studio(qtbot, qloop, tmp_path, app)
    try:
        studio.ctl.default_input = {"n": 0, "total": 0, "history": []}
        panel = studio.window.graph_panel
        panel.breakpoints.set_node("accumulate", True)
        assert studio.trigger("run") == "paused"
        assert studio.trigger("run") == "paused"  # the second visit of the subgraph
        assert studio.paused_at() == ("node.started", "accumulate")
        panel.breakpoints.set_node("accumulate", False)
        assert studio.trigger("step_into") == "paused"  # into the subgraph's own steps
        assert studio.ctl.debugger.current_event.ns
        live = visits(studio)
        assert live == {"step": 2, "accumulate": 2, "finish": 0}
        first = studio.checkpoints()[2]
        studio.select(first.checkpoint_id)
        assert visits(studio) == {"step": 1, "accumulate": 0, "finish": 0}
        studio.timeline.live_button.click()
        studio.until(lambda: studio.window.hub.selected_checkpoint is None)
        assert visits(studio) == live
        assert studio.trigger("run") == "done", studio.ctl.last_error
        assert visits(studio) == {"step": 4, "accumulate": 4, "finish": 1}
    finally:
        studio.close()


FUNC_APP = '''
"""Functional API: tasks and a human review."""
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.types import interrupt


@task
def write_essay(topic: str) -> str:
    return f"An essay about {topic}."


@task
def count_words(text: str) -> int:
    return len(text.split())


@entrypoint(checkpointer=InMemorySaver())
def workflow(topic: str) -> dict:
    essay = write_essay(topic).result()
    words = count_words(essay).result()
    review = interrupt({"essay": essay, "action": "Please review the essay"})
    return {"essay": essay, "words": words, "review": review}
'''


def test_nothing_resumes_or_reruns_from_a_checkpoint_where_the_run_ended(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """Resume from the last checkpoint of a finished run ran nothing and wrote an empty
    "fork" copy of it into the app's checkpointer (a new branch on the Timeline): both buttons
    and the context menu's entries now say why they cannot."""
    app = dataclasses.replace(write_app(tmp_path, FUNC_APP, "func_app"), attr="workflow")
    studio = Studio(qtbot, qloop, tmp_path, app)

    def answer(dialog: Any) -> None:
        dialog.editor.setPlainText('"fine"')
        dialog.resume_button.click()

    studio.answers.append(answer)
    try:
        studio.ctl.default_input = "cats"
        assert studio.trigger("run") == "done", studio.ctl.last_error
        first, last = studio.checkpoints()[0], studio.checkpoints()[-1]
        assert last.next == ()
        timeline = studio.timeline
        studio.select(last.checkpoint_id)
        assert not timeline.resume_button.isEnabled()
        assert timeline.resume_button.toolTip().startswith("Nothing runs after this checkpoint")
        studio.select(first.checkpoint_id)
        assert timeline.resume_button.isEnabled()
        real = studio.ctl.graph.real
        config = {"configurable": {"thread_id": studio.thread}}
        assert [s.metadata["source"] for s in real.get_state_history(config)] == ["loop", "input"]
    finally:
        studio.close()


def test_an_entrypoint_of_a_string_takes_its_input_typed_as_it_is(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """``workflow(topic: str)`` with no input given: Run opens the form, whose only tab said
    "not valid JSON: Expecting value" to ``cats`` (it wanted ``"cats"``, quotes included)."""
    from PySide6.QtCore import Qt

    app = dataclasses.replace(write_app(tmp_path, FUNC_APP, "func_app"), attr="workflow")
    studio = Studio(qtbot, qloop, tmp_path, app)

    def answer(dialog: Any) -> None:
        dialog.editor.setPlainText('"fine"')
        dialog.resume_button.click()

    studio.answers.append(answer)
    try:
        window = studio.window
        window.actions_.run.trigger()
        qtbot.waitUntil(lambda: getattr(window, "input_form_dialog", None) is not None)
        dialog = window.input_form_dialog
        qtbot.waitUntil(dialog.isVisible)
        assert dialog.tabs.tabText(0) == "Text" and dialog.json_edit.placeholderText()
        dialog.json_edit.setFocus()
        qtbot.keyClicks(dialog.json_edit, "cats")
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
        assert not dialog.error_label.isVisible(), dialog.error_label.text()
        assert studio.until_rest() == "done", studio.ctl.last_error
        values = studio.ctl.graph.real.get_state(
            {"configurable": {"thread_id": studio.thread}}
        ).values
        assert values["essay"] == "An essay about cats." and values["review"] == "fine"
    finally:
        studio.close()


def test_a_graph_without_messages_offers_no_chat_box(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """A StateGraph of numbers: the message box invited "Send a message to the agent on this
    thread..." and a message sent got "it takes no chat input".  The box now says so before,
    while New thread and Run stay."""
    app = write_app(tmp_path, LOOP_APP, "loop_app")
    studio = Studio(qtbot, qloop, tmp_path, app)
    try:
        bar = studio.window.input_bar
        assert not bar.message_edit.isEnabled() and not bar.send_button.isEnabled()
        assert bar.message_edit.placeholderText().startswith("This graph takes no chat message")
        assert bar.new_thread_button.isEnabled()
        assert studio.window.actions_.run.isEnabled()
        chat = write_app(tmp_path, CHAT_APP, "chat_app")
        assert studio.window.load_spec(chat.spec)
        qtbot.waitUntil(bar.message_edit.isEnabled)
        assert bar.send_button.isEnabled()
    finally:
        studio.close()


FAILING_APP = '''
"""A StateGraph whose second node fails (its service is down)."""
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


class State(TypedDict):
    n: int


def first(state: State):
    return {"n": state["n"] + 1}


def second(state: State):
    raise ConnectionError("the service is down")


builder = StateGraph(State)
builder.add_node("first", first)
builder.add_node("second", second)
builder.add_edge(START, "first")
builder.add_edge("first", "second")
graph = builder.compile(checkpointer=InMemorySaver())
'''


def test_the_superstep_a_node_failed_in_ends_with_the_run(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """Attached, a failed node's superstep stayed open after the run ended in error (the
    Events tree showed it "…", still running); the engine closes it as failed."""
    app = write_app(tmp_path, FAILING_APP, "failing_app")
    studio = Studio(qtbot, qloop, tmp_path, app)
    try:
        studio.ctl.default_input = {"n": 0}
        assert studio.trigger("run") == "error"
        assert "the service is down" in (studio.ctl.last_error or "")
        events = studio.window.docks["events"].widget()
        qtbot.waitUntil(lambda: any(r.kind == "run.started" and r.end for r in events.tree.rows))
        steps = [r for r in events.tree.rows if r.kind == "superstep.started"]
        assert len(steps) == 3 and all(r.end is not None for r in steps)
        assert steps[-1].end.__dict__["status"] == "error"
    finally:
        studio.close()


def test_run_after_a_failed_run_says_it_started_over_and_how_to_retry(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """F5 after a run failed starts the graph again on a new thread (as after any ended run):
    it did so without a word, the failed thread and its pending step out of sight, which
    reads as a retry that lost the conversation."""
    source = FAILING_APP.replace(
        '    raise ConnectionError("the service is down")',
        '    if state["n"] < 2:\n        raise ConnectionError("the service is down")\n'
        '    return {"n": state["n"] + 10}',
    )
    app = write_app(tmp_path, source, "failing_app")
    studio = Studio(qtbot, qloop, tmp_path, app)
    try:
        studio.ctl.default_input = {"n": 0}
        assert studio.trigger("run") == "error"
        failed = studio.thread
        assert studio.trigger("run") == "error"  # the same input again, on a new thread
        assert studio.thread != failed
        note = studio.window.status.message_label
        assert "the service is down" in note.text()  # a failure keeps its error in the bar
        studio.ctl.default_input = {"n": 5}
        assert studio.trigger("run") == "done", studio.ctl.last_error
        qtbot.waitUntil(lambda: "is kept" in note.text())
        assert note.text().startswith("A new run on a new thread; thread-2 is kept (to retry")
    finally:
        studio.close()
