"""A new user's own apps in the studio window, attached on the real libraries, round two (a
map-reduce graph, a supervisor of agents, structured output with human review, streams and a
store): the problems found by driving them as a user does (see each test)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

from tests.e2e.attach_window import Studio
from tests.fixtures.docs_apps import write_app

MAP_REDUCE_APP = '''
"""Map-reduce: Send fans out one joke per subject; a pydantic state; a SqliteSaver file."""
import operator
import sqlite3
from typing import Annotated

from pydantic import BaseModel, Field
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send


class OverallState(BaseModel):
    topic: str
    subjects: list[str] = Field(default_factory=list)
    jokes: Annotated[list[str], operator.add] = Field(default_factory=list)
    best: str = ""


class JokeState(BaseModel):
    subject: str


def generate_topics(state: OverallState):
    return {"subjects": [f"{state.topic} {x}" for x in ("cats", "dogs", "birds")]}


def continue_to_jokes(state: OverallState):
    return [Send("generate_joke", JokeState(subject=s)) for s in state.subjects]


def generate_joke(state: JokeState):
    return {"jokes": [f"A joke about {state.subject}"]}


def best_joke(state: OverallState):
    return {"best": max(state.jokes, key=len)}


builder = StateGraph(OverallState)
builder.add_node("generate_topics", generate_topics)
builder.add_node("generate_joke", generate_joke)
builder.add_node("best_joke", best_joke)
builder.add_edge(START, "generate_topics")
builder.add_conditional_edges("generate_topics", continue_to_jokes, ["generate_joke"])
builder.add_edge("generate_joke", "best_joke")
builder.add_edge("best_joke", END)
graph = builder.compile(checkpointer=SqliteSaver(sqlite3.connect(DB, check_same_thread=False)))
'''


def map_reduce(tmp_path: Path) -> tuple[Any, Path]:
    db = tmp_path / "jokes.sqlite"
    return write_app(tmp_path, MAP_REDUCE_APP.replace("DB", repr(str(db))), "jokes"), db


def test_a_breakpoint_on_a_node_sent_three_times_stops_at_each_and_the_run_ends(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """A breakpoint on the node ``Send`` runs three times at once: the second Continue (or
    Step) hung the run for good, "running" with nothing running.  Continue woke the two
    waiting tasks together, both paused, and the debugger kept the second pause's resume
    only: the other task waited forever."""
    app, db = map_reduce(tmp_path)
    studio = Studio(qtbot, qloop, tmp_path, app)
    try:
        studio.ctl.default_input = {"topic": "funny"}
        studio.window.graph_panel.breakpoints.set_node("generate_joke", True)
        assert studio.trigger("run") == "paused"
        assert studio.paused_at() == ("node.started", "generate_joke")
        assert studio.trigger("run") == "paused"
        assert studio.paused_at() == ("node.started", "generate_joke")
        assert studio.trigger("step_over") == "paused"  # the third, then the reducer
        assert studio.paused_at() == ("node.started", "generate_joke")
        assert studio.trigger("step_over") == "paused"
        assert studio.paused_at() == ("node.started", "best_joke")
        assert studio.trigger("run") == "done", studio.ctl.last_error
        with sqlite3.connect(db) as conn:  # the app's own file holds the whole run
            assert conn.execute("select count(*) from checkpoints").fetchone()[0] == 5
    finally:
        studio.close()


STREAM_STORE_APP = '''
"""Custom stream events, a store and a context schema (typing.TypedDict state)."""
from dataclasses import dataclass
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.memory import InMemoryStore


@dataclass
class Context:
    user_id: str


class State(TypedDict):
    question: str
    memories: list[str]
    answer: str


def recall(state: State, runtime: Runtime[Context]):
    writer = get_stream_writer()
    writer({"progress": "recalling"})
    items = runtime.store.search(("memories", runtime.context.user_id))
    return {"memories": [i.value["text"] for i in items]}


def answer(state: State, runtime: Runtime[Context]):
    get_stream_writer()({"progress": "answering"})
    key = f"m{len(state['memories'])}"
    runtime.store.put(("memories", runtime.context.user_id), key, {"text": state["question"]})
    return {"answer": f"You asked {state['question']} ({len(state['memories'])} memories)"}


builder = StateGraph(State, context_schema=Context)
builder.add_node("recall", recall)
builder.add_node("answer", answer)
builder.add_edge(START, "recall")
builder.add_edge("recall", "answer")
builder.add_edge("answer", END)
graph = builder.compile(checkpointer=InMemorySaver(), store=InMemoryStore())
'''


def test_a_typed_dict_state_runs_on_the_keys_typed_in_its_form(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """A ``TypedDict`` state's form required every key ("Memories: required", "Answer:
    required": the graph's output too) where LangGraph takes an input of any of them: the user
    had to invent an answer to run the graph that writes it."""
    from PySide6.QtCore import Qt

    app = write_app(tmp_path, STREAM_STORE_APP, "memory_app")
    studio = Studio(qtbot, qloop, tmp_path, app)
    window = studio.window
    try:
        window.actions_.run.trigger()
        qtbot.waitUntil(lambda: getattr(window, "input_form_dialog", None) is not None)
        form = window.input_form_dialog
        qtbot.waitUntil(form.isVisible)
        assert list(form.form_page.editors) == ["question", "memories", "answer"]
        qtbot.keyClicks(form.form_page.editors["question"], "cats?")
        qtbot.keyClicks(form.context_page.editors["user_id"], "u1")
        qtbot.mouseClick(form.run_button, Qt.MouseButton.LeftButton)
        assert not form.error_label.isVisible(), form.error_label.text()
        assert studio.until_rest() == "done", studio.ctl.last_error
        real = studio.ctl.graph.real
        values = real.get_state({"configurable": {"thread_id": studio.thread}}).values
        assert values == {
            "question": "cats?",
            "memories": [],
            "answer": "You asked cats? (0 memories)",
        }
        assert [i.key for i in real.store.search(("memories", "u1"))] == ["m0"]
        assert [e.__dict__["data"] for e in studio.events("custom")] == [
            {"progress": "recalling"},
            {"progress": "answering"},
        ]
    finally:
        studio.close()


def test_run_again_keeps_the_apps_memory_and_its_threads(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """Run (F5) after a run ended starts over on a new thread, importing the file again (a
    scripted model starts over): an app on an ``InMemorySaver`` and an ``InMemoryStore`` got
    new, empty ones.  The second run remembered nothing the first had stored, and thread-1,
    which the status bar said "is kept", showed "No checkpoint yet" in the Timeline."""
    app = write_app(tmp_path, STREAM_STORE_APP, "memory_app")
    studio = Studio(qtbot, qloop, tmp_path, app)
    window = studio.window
    try:
        studio.ctl.default_input = {"question": "cats?"}
        studio.ctl.keep_form_answer({"context"}, None, {"user_id": "u1"})
        assert studio.trigger("run") == "done", studio.ctl.last_error
        first = studio.thread
        studio.ctl.default_input = {"question": "dogs?"}
        assert studio.trigger("run") == "done", studio.ctl.last_error
        assert studio.thread != first
        qtbot.waitUntil(lambda: f"{first} is kept" in window.status.message_label.text())
        real = studio.ctl.graph.real
        values = real.get_state({"configurable": {"thread_id": studio.thread}}).values
        assert values["answer"] == "You asked dogs? (1 memories)"
        assert [i.key for i in real.store.search(("memories", "u1"))] == ["m0", "m1"]
        window.switch_thread(first)
        written = [n.record.writers for n in studio.checkpoints()]
        assert len(written) == 4 and written[-2:] == [("recall",), ("answer",)]
    finally:
        studio.close()


SUPERVISOR_APP = '''
"""A supervisor agent whose tools call two sub-agents (each with a sync tool of its own)."""
import itertools

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

_ids = itertools.count()


class FakeModel(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def call(name, **args):
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"c{next(_ids)}"}])


def replies(*script):
    while True:
        for reply in script:
            yield reply() if callable(reply) else reply


@tool
def get_weather(city: str) -> str:
    """Get the weather in a city."""
    return f"It is sunny in {city}."


@tool
def book_flight(destination: str) -> str:
    """Book a flight."""
    return f"Booked a flight to {destination}."


weather_agent = create_agent(
    FakeModel(messages=replies(lambda: call("get_weather", city="Paris"), AIMessage("Sunny."))),
    tools=[get_weather],
)
travel_agent = create_agent(
    FakeModel(messages=replies(lambda: call("book_flight", destination="CDG"), AIMessage("Booked."))),
    tools=[book_flight],
)


@tool
def ask_weather(request: str) -> str:
    """Ask the weather expert."""
    return weather_agent.invoke({"messages": [("user", request)]})["messages"][-1].content


@tool
def ask_travel(request: str) -> str:
    """Ask the travel expert."""
    return travel_agent.invoke({"messages": [("user", request)]})["messages"][-1].content


supervisor = create_agent(
    FakeModel(messages=replies(
        lambda: call("ask_weather", request="Weather in Paris?"),
        lambda: call("ask_travel", request="A flight to Paris"),
        AIMessage("Sunny Paris, flight booked."),
    )),
    tools=[ask_weather, ask_travel],
    checkpointer=InMemorySaver(),
)
'''


def test_the_breakpoints_dock_offers_the_nodes_of_agents_a_tool_runs(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """A supervisor whose tools invoke sub-agents: nothing in the drawing shows them (LangGraph
    sees no subgraph in a tool), and the Breakpoints dock offered only the supervisor's
    ``model`` and ``tools``: a breakpoint in a sub-agent had to be typed as "tools › tools",
    a name no screen showed.  After a run, the dock offers the nodes the run went through."""
    from dataclasses import replace

    app = replace(write_app(tmp_path, SUPERVISOR_APP, "supervisor_app"), attr="supervisor")
    studio = Studio(qtbot, qloop, tmp_path, app)
    bps = studio.window.breakpoints_panel
    try:
        studio.ctl.default_input = {"messages": [{"role": "user", "content": "Plan Paris"}]}
        bps.kind_box.setCurrentIndex(bps.kind_box.findData("before_node"))
        offered = [bps.target_box.itemText(i) for i in range(bps.target_box.count())]
        assert offered == ["model", "tools"]
        assert studio.trigger("run") == "done", studio.ctl.last_error
        offered = [bps.target_box.itemText(i) for i in range(bps.target_box.count())]
        assert offered == ["model", "tools", "tools › model", "tools › tools"]
        bps.target_box.setCurrentIndex(offered.index("tools › tools"))
        assert bps.add_from_form()
        assert bps.tree.topLevelItem(0).text(0) == "before node tools (in tools)"
        assert studio.trigger("run") == "paused"  # a new run, on a new thread
        assert studio.paused_at() == ("node.started", "tools")
        assert studio.ctl.debugger.current_event.ns.startswith("tools:")  # the weather agent's
        qtbot.waitUntil(
            lambda: (
                studio.window.status.state_label.text() == "Paused: before node tools (in tools)"
            )
        )
        assert studio.trigger("run") == "paused"  # the travel agent's
        assert studio.ctl.debugger.current_event.ns.startswith("tools:")
        assert studio.trigger("run") == "done", studio.ctl.last_error
    finally:
        studio.close()


STRUCTURED_APP = '''
"""Structured output (ToolStrategy), a model call limit, and human approval of a tool."""
from pydantic import BaseModel
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware, ModelCallLimitMiddleware
from langchain.agents.structured_output import ToolStrategy
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver


class FakeModel(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


class Ticket(BaseModel):
    """A support ticket."""

    title: str
    priority: int


@tool
def send_email(to: str, subject: str) -> str:
    """Send an email."""
    return f"Sent '{subject}' to {to}."


def replies():
    while True:
        yield AIMessage("", tool_calls=[
            {"name": "send_email", "args": {"to": "boss@example.com", "subject": "outage"}, "id": "e1"}
        ])
        yield AIMessage("", tool_calls=[
            {"name": "Ticket", "args": {"title": "Outage", "priority": 1}, "id": "t1"}
        ])


agent = create_agent(
    FakeModel(messages=replies()),
    tools=[send_email],
    response_format=ToolStrategy(Ticket),
    middleware=[
        ModelCallLimitMiddleware(run_limit=5, exit_behavior="end"),
        HumanInTheLoopMiddleware(interrupt_on={"send_email": True}),
    ],
    checkpointer=InMemorySaver(),
)
'''


def test_an_edit_that_does_not_fit_says_why_in_full_view(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """Edit in the approval dialog, arguments of the wrong type: the line saying what is wrong
    ("subject: expected string, got integer") appeared below the fold of the dialog's cards,
    cut in half, while the dialog had room to grow."""
    from dataclasses import replace

    app = replace(write_app(tmp_path, STRUCTURED_APP, "ticket_app"), attr="agent")
    studio = Studio(qtbot, qloop, tmp_path, app)
    seen: dict[str, Any] = {}

    def edit(dialog: Any) -> None:
        card = dialog.cards[0]
        card.buttons["edit"].click()
        card.editor.setPlainText('{"to": "team@example.com", "subject": 5}')
        label = card.error_label
        qtbot.waitUntil(label.isVisible)
        seen["error"] = label.text()
        view = dialog.scroll_area.viewport()

        def in_view() -> bool:  # laid out below the editor, the whole line in the cards' view
            top = label.mapTo(view, label.rect().topLeft()).y()
            placed = label.y() > card.editor.geometry().bottom()
            return placed and top >= 0 and top + label.height() <= view.height()

        qtbot.waitUntil(in_view, timeout=3000)
        card.editor.setPlainText('{"to": "team@example.com", "subject": "fixed"}')
        dialog.submit_button.click()

    studio.answers.append(edit)
    try:
        studio.ctl.default_input = {"messages": [{"role": "user", "content": "Outage!"}]}
        assert studio.trigger("run") == "done", studio.ctl.last_error
        assert seen["error"] == "subject: expected string, got integer"
        values = studio.ctl.graph.real.get_state(
            {"configurable": {"thread_id": studio.thread}}
        ).values
        assert "Sent 'fixed' to team@example.com." in values["messages"][2].content
        assert values["structured_response"].title == "Outage"
    finally:
        studio.close()


def test_rerun_with_recorded_replies_ends_at_the_structured_response(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """Re-run from the checkpoint before the approved tool call, serving the recorded model
    replies: the reply that calls the ``Ticket`` output tool was served without LangChain
    reading it (no structured response, no "Returning structured response" message), so
    the agent asked its live model again, which called ``send_email`` again: a second
    approval dialog, an email sent twice, and a conversation the recorded run never had."""
    from dataclasses import replace

    from tests.e2e.attach_window import decide

    app = replace(write_app(tmp_path, STRUCTURED_APP, "ticket_app"), attr="agent")
    studio = Studio(qtbot, qloop, tmp_path, app)
    studio.answers.extend([lambda d: decide(d, "approve")] * 2)
    try:
        studio.ctl.default_input = {"messages": [{"role": "user", "content": "Outage!"}]}
        assert studio.trigger("run") == "done", studio.ctl.last_error
        assert len(studio.dialogs) == 1
        studio.select(next(n for n in studio.checkpoints() if n.next == ("tools",)).checkpoint_id)
        assert studio.click(studio.timeline.rerun_button) == "done", studio.ctl.last_error
        assert len(studio.dialogs) == 1  # the recorded run's approval is not asked again
        tip = studio.ctl.graph.real.get_state({"configurable": {"thread_id": studio.thread}})
        assert tip.values["structured_response"].title == "Outage"
        messages = tip.values["messages"]
        assert [m.type for m in messages] == ["human", "ai", "tool", "ai", "tool"]
        assert messages[-1].content.startswith("Returning structured response")
        served = [e for e in studio.events("model.response") if e.__dict__.get("replayed")]
        assert len(served) == 1
    finally:
        studio.close()


def test_the_faults_menu_offers_the_tools_of_the_sub_agents_a_run_called(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """Faults > Next Tool Call Fails listed the supervisor's own tools only: a failure of a
    sub-agent's tool (the weather service down) could not be chosen, "Any tool" hit the
    supervisor's ``ask_weather`` first; and a fault queued for it was never taken (a call
    inside the supervisor's tool counted as wrapped by that tool's layer).  After a run, the
    tools it called are offered, and their fault is raised where they are called."""
    from dataclasses import replace

    app = replace(write_app(tmp_path, SUPERVISOR_APP, "supervisor_app"), attr="supervisor")
    studio = Studio(qtbot, qloop, tmp_path, app)
    menus = studio.window.menus
    try:
        studio.ctl.default_input = {"messages": [{"role": "user", "content": "Plan Paris"}]}
        assert list(menus.tool_fault_actions) == [None, "ask_weather", "ask_travel"]
        assert studio.trigger("run") == "done", studio.ctl.last_error
        offered = list(menus.tool_fault_actions)
        assert offered == [None, "ask_weather", "ask_travel", "get_weather", "book_flight"]
        menus.tool_fault_actions["get_weather"].trigger()
        assert studio.trigger("run") == "error"  # the weather agent's tool, in its graph
        assert "get_weather" in (studio.ctl.last_error or "")
        failed = [e for e in studio.events("tool.finished") if e.__dict__.get("error")]
        assert [e.__dict__["tool"] for e in failed][:1] == ["get_weather"]
    finally:
        studio.close()
