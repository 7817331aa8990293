"""A hub with the time-travel docks on seed 000 (resources/scenarios/retry_todos.py), for the
pytest-qt tests and the screenshots."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.messages import HumanMessage
from resources.scenarios.retry_todos import INPUT, Workspace, build_agent, scripted_model
from studio.docks.diff.view import DiffView
from studio.docks.state.view import StateDock
from studio.docks.timeline.view import TimelineDock
from studio.models.hub import Hub
from studio.models.timeline import CheckpointNode, iter_tree


@dataclass
class Studio:
    hub: Hub
    timeline: TimelineDock
    state: StateDock
    diff: DiffView
    todos: Any
    agent: Any = None
    model: Any = None
    workspace: Workspace | None = None

    @property
    def main_nodes(self) -> list[CheckpointNode]:
        main = self.timeline.timeline.main
        assert main is not None
        return main.nodes

    def settle(self, loop: asyncio.AbstractEventLoop) -> None:
        """Run the loop until every dock shows the state it last asked for (the docks read
        checkpoints in tasks on the loop)."""
        until(loop, lambda: self.hub.snapshots.idle)

    def after_write_todos(self) -> CheckpointNode:
        return next(n for n in self.main_nodes if n.writers == ("tools",))

    def pending_create_file(self) -> CheckpointNode:
        """The checkpoint right after the model asked for create_file("login.tsx")."""
        first_tools = self.after_write_todos()
        return next(
            n for n in self.main_nodes if n.writers == ("model",) and n.index > first_tools.index
        )


def make_docks(hub: Hub, qtbot: Any) -> Studio:
    from studio.docks.todos.view import TodoBoardDock

    docks = (TimelineDock(hub), StateDock(hub), DiffView(hub), TodoBoardDock(hub))
    for d in docks:
        qtbot.addWidget(d)
    return Studio(hub, *docks)


def make_studio(qtbot: Any, *, checkpointer: Any = None, thread: str = "t1") -> Studio:
    hub = Hub()
    s = make_docks(hub, qtbot)
    s.workspace = Workspace()
    s.model = scripted_model()
    s.agent = build_agent(
        initial_delay=0.0, model=s.model, workspace=s.workspace, checkpointer=checkpointer
    )
    s.agent.subscribe(lambda ev: hub.add_events([ev]))
    hub.set_thread(thread)
    hub.set_graph(s.agent, s.agent.get_graph(), "retry_todos")
    return s


def seed_input() -> dict[str, Any]:
    return {"messages": [HumanMessage(INPUT)]}


def until(
    loop: asyncio.AbstractEventLoop, predicate: Callable[[], bool], timeout: float = 5.0
) -> None:
    """Run the loop (Qt events included) until ``predicate`` holds."""

    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.005)

    loop.run_until_complete(asyncio.wait_for(poll(), timeout))


def timeline_dump(dock: TimelineDock) -> list[str]:
    out = []
    for depth, item in iter_tree(dock.timeline):
        if isinstance(item, CheckpointNode):
            marks = "".join(f" [{m.kind}]" for m in item.markers)
            out.append("  " * depth + item.summary() + marks)
        else:
            out.append("  " * depth + item.title())
    return out


def state_dump(dock: StateDock) -> list[str]:
    """Every row the State tree shows for the top level and the todos, as text."""
    model = dock.model
    rows = []
    for node in model.tree.root.children():
        rows.append(f"{node.display_key()} | {node.preview(200)} | {node.type_label()}")
        if node.key == "todos":
            rows += [f"  {c.display_key()} | {c.preview(200)}" for c in node.children()]
        if node.key == "messages":
            rows += [f"  {c.display_key()} | {c.preview(200)}" for c in node.children()]
    return [dock.title.text(), *rows]


def todo_dump(board: Any) -> dict[str, list[str]]:
    return {
        status: [c.content for c in board.state.column(status)]
        for status in ("pending", "in_progress", "completed")
    }
