"""The Graph dock over a conversation: a turn that carries the live branch on is drawn from its
own events (not by replaying the thread), and looks exactly like a full redraw."""

from __future__ import annotations

from typing import Any

from engine import create_agent
from engine.checkpoint import InMemorySaver
from engine.messages import AIMessage, HumanMessage
from engine.middleware import ModelRetryMiddleware, TodoListMiddleware
from engine.models import ScriptedChatModel
from engine.tools import tool
from studio.docks.graph.panel import GraphPanel
from studio.models.hub import Hub


@tool
def create_file(path: str) -> str:
    """Create a file."""
    return f"created {path}"


def reply(messages: list[Any], tools: list[Any]) -> AIMessage:
    """A file for each user message, then an answer."""
    n = len(messages)
    if messages[-1].type == "human":
        return AIMessage(
            "", tool_calls=[{"name": "create_file", "args": {"path": f"f{n}"}, "id": f"c{n}"}]
        )
    return AIMessage(f"Created f{n - 2}.")


def seed_agent() -> Any:
    return create_agent(
        ScriptedChatModel([reply] * 100),
        [create_file],
        middleware=[ModelRetryMiddleware(max_retries=1, initial_delay=0.0), TodoListMiddleware()],
        checkpointer=InMemorySaver(),
    )


def _looks(panel: GraphPanel) -> dict[str, Any]:
    state = panel.state
    return {
        "nodes": {n: state.node(n) for n in state.graph.nodes},
        "route": state.last_route,
    }


def _conversation(qtbot: Any, turns: int) -> tuple[Hub, GraphPanel, list[int]]:
    hub = Hub()
    agent = seed_agent()
    agent.subscribe(lambda ev: hub.add_events([ev]))
    hub.set_thread("t")
    hub.set_graph(agent, agent.get_graph(), "seed")
    panel = GraphPanel(hub)
    qtbot.addWidget(panel)
    applied: list[int] = []
    real = panel.state.apply_all

    def counting(events: Any) -> None:
        events = list(events)
        applied.append(len(events))
        real(events)

    panel.state.apply_all = counting  # type: ignore[method-assign]
    for i in range(turns):
        agent.invoke(
            {"messages": [HumanMessage(f"Please create file number {i}.")]},
            {"configurable": {"thread_id": "t"}},
        )
    return hub, panel, applied


def test_later_turns_apply_only_their_own_events_and_look_like_a_redraw(qtbot: Any) -> None:
    hub, panel, applied = _conversation(qtbot, 4)
    assert max(applied) == 1, "a new turn replayed the whole thread"
    fresh = GraphPanel(hub)  # draws the live branch from every event of the thread
    qtbot.addWidget(fresh)
    assert _looks(panel) == _looks(fresh)
    assert panel.state.visits("model") == 8


def test_the_boxes_show_a_batch_as_the_hub_hands_it_out(qtbot: Any) -> None:
    """No timer between a batch and the boxes: they show its end in the event-loop pass that
    brought it (painted with the other views)."""
    _hub, panel, _applied = _conversation(qtbot, 1)  # an event per batch, none processed since
    model = panel.view.node_item("model")
    assert model is not None and model.state is not None and model.state.visits == 2
    assert not panel.view.has_pending_updates()
