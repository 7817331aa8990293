"""A new user's own apps in the studio window, attached on the real libraries: the problems
found by driving them as a user does (see each test)."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

from tests.e2e.attach_window import Studio
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


AGENT_FILE = '''
"""A docs-style agent file: its tools and its model sit beside the agent, as users write it."""
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool


class FakeModel(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


@tool
def lookup_order(order_id: str) -> str:
    """Look up an order by id."""
    return f"Order {order_id}: shipped."


model = FakeModel(messages=iter([AIMessage("Hello!")]))
support = create_agent(model, tools=[lookup_order])
'''


def test_open_a_file_offers_its_graph_not_its_tools_and_model(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """File > Open on an agent file asked "defines 3 compiled graphs: lookup_order, model,
    support": a ``@tool`` and a chat model are LangChain runnables (``get_graph``,
    ``astream_events``) but no graph, and picking one loaded it as the agent."""
    from tests.studio.app_agents import make_window

    path = tmp_path / "support.py"
    path.write_text(AGENT_FILE.lstrip())
    window = make_window(qtbot, tmp_path)
    assert qloop.run_until_complete(window.open_agent_file(str(path))) is True
    assert getattr(window, "graph_picker", None) is None  # one graph: no question
    assert window.hub.source_label == "support.py:support"
    assert not window.load_spec(f"{path}:lookup_order")  # named anyway: a one-line refusal
    assert window.hub.source_label == "support.py:support"  # the agent loaded stays


NESTED_APP = '''
"""A chat graph whose first node runs a researcher agent (create_agent) inside it, then a
model and a ToolNode of its own."""
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition


class FakeModel(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


@tool
def notes(topic: str) -> str:
    """Read my notes on a topic."""
    return f"notes on {topic}: cats sleep 16h a day"


@tool
def search(query: str) -> str:
    """Search."""
    return f"results for {query}"


researcher = create_agent(
    FakeModel(messages=iter([
        AIMessage("", tool_calls=[{"name": "notes", "args": {"topic": "cats"}, "id": "n1"}]),
        AIMessage("Cats sleep a lot."),
    ])),
    tools=[notes],
)
chat_model = FakeModel(messages=iter([
    AIMessage("", tool_calls=[{"name": "search", "args": {"query": "cats"}, "id": "s1"}]),
    AIMessage("Found it."),
]))


def research(state: MessagesState):
    out = researcher.invoke({"messages": [state["messages"][-1]]})
    return {"messages": [AIMessage(f"Research: {out['messages'][-1].content}")]}


def chatbot(state: MessagesState):
    return {"messages": [chat_model.invoke(state["messages"])]}


builder = StateGraph(MessagesState)
builder.add_node("research", research)
builder.add_node("chatbot", chatbot)
builder.add_node("tools", ToolNode([search]))
builder.add_edge(START, "research")
builder.add_edge("research", "chatbot")
builder.add_conditional_edges("chatbot", tools_condition)
builder.add_edge("tools", "chatbot")
graph = builder.compile(checkpointer=InMemorySaver())
'''


def test_a_breakpoint_stops_in_the_graph_it_was_set_in_and_says_whose_node(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """The graph's ``tools`` and the ``tools`` node of the agent ``research`` runs inside it
    are two nodes: a breakpoint set on one (F9 in the Graph dock, on the root graph or in the
    opened subgraph) stops there only.  A breakpoint on the graph's ``tools`` used to stop in
    the agent first, and the status bar said "Paused: before node tools" while the graph lit
    ``research`` and the ``tools`` node with the dot stayed dark."""
    app = write_app(tmp_path, NESTED_APP, "nested_app")
    studio = Studio(qtbot, qloop, tmp_path, app)
    panel = studio.window.graph_panel
    try:
        studio.ctl.default_input = {"messages": [{"role": "user", "content": "cats?"}]}
        state = studio.window.status.state_label
        panel.view.select_node("tools")
        assert panel.toggle_selected_breakpoint()  # F9 on the root graph's tools
        assert panel.breakpoints.node_breakpoints() == {"tools"}
        assert panel.breakpoints.node_breakpoints(("research",)) == set()
        assert studio.trigger("run") == "paused"
        qtbot.waitUntil(lambda: state.text() == "Paused: before node tools")
        assert studio.paused_at() == ("node.started", "tools")
        assert studio.trigger("run") == "done", studio.ctl.last_error

        # in the agent research runs: added in the Breakpoints dock, it stops there only
        panel.breakpoints.set_node("tools", False)
        bps = studio.window.breakpoints_panel
        assert "research › tools" in bps.model.choices("before_node")
        assert bps.model.choices("tool") == ["search", "research › notes"]
        bps.kind_box.setCurrentIndex(bps.kind_box.findData("before_node"))
        bps.target_box.setEditText("research › tools")
        assert bps.add_from_form()
        assert panel.breakpoints.node_breakpoints() == set()
        assert panel.breakpoints.node_breakpoints(("research",)) == {"tools"}
        assert bps.tree.topLevelItem(0).text(0) == "before node tools (in research)"
        studio.ctl.default_input = {"messages": [{"role": "user", "content": "dogs?"}]}
        assert studio.trigger("restart") == "paused"
        qtbot.waitUntil(lambda: state.text() == "Paused: before node tools (in research)")
        assert studio.trigger("run") == "done", studio.ctl.last_error
    finally:
        studio.close()


CHAT_APP = '''
"""A small docs-style agent: one sync tool, an in-memory checkpointer."""
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver


class FakeModel(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


@tool
def lookup_order(order_id: str) -> str:
    """Look up an order by id."""
    return f"Order {order_id}: shipped."


def replies():
    while True:
        yield AIMessage("", tool_calls=[{"name": "lookup_order", "args": {"order_id": "A17"}, "id": "c1"}])
        yield AIMessage("It shipped.")


graph = create_agent(FakeModel(messages=replies()), tools=[lookup_order], checkpointer=InMemorySaver())
'''


def test_after_a_fork_the_live_conversation_is_the_new_branchs(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """Resume from a past checkpoint: the Messages dock went on from the old branch's last
    message: the fork's messages appended to the whole old conversation, more "Live" messages
    than the branch's state holds."""
    app = write_app(tmp_path, CHAT_APP, "chat_app")
    studio = Studio(qtbot, qloop, tmp_path, app)
    try:
        studio.ctl.default_input = {"messages": [{"role": "user", "content": "Where is A17?"}]}
        assert studio.trigger("run") == "done", studio.ctl.last_error
        dock = studio.window.docks["messages"].widget()
        assert len(dock.live_entries) == 4
        studio.select_written_by("model")  # the model's first answer: the tool call
        assert studio.click(studio.timeline.resume_button) == "done", studio.ctl.last_error
        tip = studio.ctl.graph.real.get_state({"configurable": {"thread_id": studio.thread}})
        n = len(tip.values["messages"])
        qtbot.waitUntil(lambda: dock.where.text() == f"Live · {n} messages")
        shown = [e.message.get("content") for e in dock.live_entries]
        assert shown == [m.content for m in tip.values["messages"]]
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


HITL_APP = '''
"""A support agent: sync tools, a SqliteSaver on a file, a @wrap_tool_call middleware and
human-in-the-loop on one tool."""
import sqlite3

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware, wrap_tool_call
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver


class FakeModel(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


@tool
def refund(order_id: str, amount: float) -> str:
    """Refund an order."""
    return f"Refunded {amount} on {order_id}."


@wrap_tool_call
def log_tools(request, handler):
    return handler(request)


model = FakeModel(messages=iter([
    AIMessage("", tool_calls=[{"name": "refund", "args": {"order_id": "A17", "amount": 20.0}, "id": "c1"}]),
    AIMessage("Refunded."),
]))
graph = create_agent(
    model,
    tools=[refund],
    middleware=[log_tools, HumanInTheLoopMiddleware(interrupt_on={"refund": True})],
    checkpointer=SqliteSaver(sqlite3.connect(DB, check_same_thread=False)),
)
'''


def test_an_attached_agents_edited_arguments_are_checked_against_its_tools_schema(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """Attached, the approval dialog found none of the agent's tools (LangGraph's node holds its
    ToolNode as ``runnable``, its tools langchain_core's): an edit to ``{"amount": "lots"}``
    counted as decided and reached the tool; the engine's agents got the schema line and the
    check.  Nothing reaches the app's database until the edit fits."""
    source = HITL_APP.replace("DB", repr(str(tmp_path / "app.sqlite")))
    app = write_app(tmp_path, source, "support_app")
    studio = Studio(qtbot, qloop, tmp_path, app)
    seen: dict[str, Any] = {}

    def edit(dialog: Any) -> None:
        card = dialog.cards[0]
        card.buttons["edit"].click()
        seen["schema"] = card.schema_label.text()
        card.editor.setPlainText('{"order_id": "A17", "amount": "lots"}')
        seen["error"] = card.error_label.text()
        seen["submit"] = dialog.submit_button.isEnabled()
        card.editor.setPlainText('{"order_id": "A17", "amount": 12.5}')
        dialog.submit_button.click()

    studio.answers.append(edit)
    try:
        studio.ctl.default_input = {"messages": [{"role": "user", "content": "Refund A17"}]}
        assert studio.trigger("run") == "done", studio.ctl.last_error
        assert seen == {
            "schema": "Arguments: order_id: string (required) · amount: number (required)",
            "error": "amount: expected number, got string",
            "submit": False,
        }
        tip = studio.ctl.graph.real.get_state({"configurable": {"thread_id": studio.thread}})
        assert "Refunded 12.5 on A17." in tip.values["messages"][-2].content
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
