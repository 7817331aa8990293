"""A new user's own agent apps in the studio window, attached on the real libraries (an
agent file, an agent run inside a graph's node, a chat agent, human-in-the-loop on a
SqliteSaver): the problems found by driving them as a user does (see each test).  Their
StateGraph and functional-API apps are in ``test_newuser_graph_apps``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.e2e.attach_window import Studio
from tests.fixtures.docs_apps import write_app

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
