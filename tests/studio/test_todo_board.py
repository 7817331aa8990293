"""The Todos dock on seed 000 (live and at every checkpoint) and editing a paused run's todos."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from engine.agents import create_agent
from engine.checkpoint.memory import InMemorySaver
from engine.events import CheckpointSaved, EventBase
from engine.graph.state_api import UPDATED_BY
from engine.messages import HumanMessage, ToolMessage
from engine.middleware.builtins import TodoListMiddleware
from resources.scenarios import approval, retry_todos
from studio.docks.todos.view import TodoBoardDock
from studio.models.hub import Hub

Board = dict[str, list[tuple[str, str | None]]]


@pytest.fixture
def loop(qapp: Any, qloop: Any) -> Iterator[Any]:
    previous = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)
    yield qloop
    qapp.setQuitOnLastWindowClosed(previous)


def bind(graph: Any) -> Hub:
    hub = Hub()
    hub.set_graph(graph, graph.get_graph())

    def on_event(event: EventBase) -> None:
        hub.add_events([event])

    graph.subscribe(on_event)
    return hub


def shown(dock: TodoBoardDock) -> Board | None:
    """The board as text: per column, (content, change badge); None when the explanation shows."""
    if dock.pages.currentIndex() == 0:
        return None
    return {
        status: [(w.card.content, w.badge.text() if w.card.change else None) for w in col.cards]
        for status, col in dock.columns.items()
    }


def seed_board(loop: Any, qtbot: Any) -> tuple[Any, Hub, TodoBoardDock]:
    """Seed 000 run to its end on a hub, with a Todos dock watching it."""
    agent = retry_todos.build_agent(initial_delay=0.0)
    hub = bind(agent)
    dock = TodoBoardDock(hub)
    qtbot.addWidget(dock)
    loop.run_until_complete(
        agent.ainvoke({"messages": [HumanMessage(retry_todos.INPUT)]}, hub.config())
    )
    return agent, hub, dock


def test_seed_000_at_every_checkpoint_and_live(loop: Any, qtbot: Any) -> None:
    agent = retry_todos.build_agent(initial_delay=0.0)
    hub = bind(agent)
    dock = TodoBoardDock(hub)
    qtbot.addWidget(dock)
    assert dock.pages.currentIndex() == 0  # nothing ran yet: the explanation
    assert "has not called write_todos" in dock.explanation_label.text()

    live: dict[str, Board | None] = {}

    def on_events(batch: list[EventBase]) -> None:  # subscribed after the dock: sees its view
        for event in batch:
            if isinstance(event, CheckpointSaved) and not event.ns:
                live[event.checkpoint_id or ""] = shown(dock)

    hub.subscribe("events", on_events)
    hub.set_status("running")
    loop.run_until_complete(
        agent.ainvoke({"messages": [HumanMessage(retry_todos.INPUT)]}, hub.config())
    )
    hub.set_status("done")
    history = list(reversed(list(agent.get_state_history(hub.config()))))
    assert len(history) == 13  # seed 000: the scenario's documented checkpoint count
    login, register = "创建 login.tsx", "创建 register.tsx"
    # each distinct todo list, with its badges when it differs from the previous checkpoint's
    created = {"pending": [(register, "NEW")], "in_progress": [(login, "NEW")], "completed": []}
    login_done = {
        "pending": [(register, None)],
        "in_progress": [],
        "completed": [(login, "IN PROGRESS → COMPLETED")],
    }
    all_done = {
        "pending": [],
        "in_progress": [],
        "completed": [(login, None), (register, "PENDING → COMPLETED")],
    }

    def quiet(board: Board) -> Board:
        return {k: [(text, None) for text, _ in v] for k, v in board.items()}

    boards = {
        ("in_progress", "pending"): created,
        ("completed", "pending"): login_done,
        ("completed", "completed"): all_done,
    }
    expected: list[Board | None] = []
    previous: tuple[str, ...] | None = None
    for snapshot in history:
        todos = snapshot.values.get("todos")
        if todos is None:
            expected.append(None)
            continue
        statuses = tuple(t["status"] for t in todos)
        board = boards[statuses]
        expected.append(board if statuses != previous else quiet(board))
        previous = statuses
    # seed 000: write_todos creates the list, each create_file completes its item, once each
    for board in (created, login_done, all_done):
        assert expected.count(board) == 1
    assert expected.index(created) < expected.index(login_done) < expected.index(all_done)
    assert expected[: expected.index(created)] == [None] * expected.index(created)

    for snapshot, want in zip(history, expected, strict=True):
        cid = snapshot.config["configurable"]["checkpoint_id"]
        hub.select_checkpoint(cid)
        assert shown(dock) == want, f"checkpoint {cid} (step {snapshot.metadata['step']})"
        assert live[cid] == want, f"live view at checkpoint {cid}"
    hub.select_checkpoint(None)
    assert shown(dock) == quiet(all_done)
    assert dock.info_label.text() == "Live · 2 of 2 done"


def paused_todo_agent() -> tuple[Any, Any, retry_todos.Workspace]:
    """Seed 000's agent, stopping after every tools step (a static interrupt)."""
    model = retry_todos.scripted_model(timeouts=0)
    workspace = retry_todos.Workspace(disk_full=0)
    agent = create_agent(
        model,
        retry_todos.make_tools(workspace),
        middleware=[TodoListMiddleware()],
        checkpointer=InMemorySaver(),
        interrupt_after=["tools"],
    )
    return agent, model, workspace


def test_editing_todos_while_paused_changes_what_the_model_is_given(loop: Any, qtbot: Any) -> None:
    agent, model, _ = paused_todo_agent()
    hub = bind(agent)
    dock = TodoBoardDock(hub)
    qtbot.addWidget(dock)
    hub.set_status("running")
    loop.run_until_complete(
        agent.ainvoke({"messages": [HumanMessage(retry_todos.INPUT)]}, hub.config())
    )
    assert not dock.edit_button.isEnabled()  # a live run cannot be edited
    hub.set_status("interrupted")
    assert agent.get_state(hub.config()).next == ("model",)
    assert dock.edit_button.isEnabled()

    dock.edit_button.click()
    editor = dock.editor
    assert [r.content_edit.text() for r in editor.rows] == ["创建 login.tsx", "创建 register.tsx"]
    assert not editor.apply_button.isEnabled()  # nothing changed yet
    editor.rows[0].status_box.setCurrentIndex(2)  # completed
    editor.rows[1].content_edit.end(False)
    qtbot.keyClicks(editor.rows[1].content_edit, " (with form validation)")  # typed: ASCII only
    editor.new_edit.setText("编写单元测试")
    editor.add_button.click()
    editor.rows[2].up_button.click()  # the new todo goes before register
    want = [
        {"content": "创建 login.tsx", "status": "completed"},
        {"content": "编写单元测试", "status": "pending"},
        {"content": "创建 register.tsx (with form validation)", "status": "pending"},
    ]
    assert editor.draft.result() == want
    calls_before = len(model.calls)
    with qtbot.waitSignal(dock.applied, timeout=5000):
        editor.apply_button.click()  # starts the update as a task on the loop
        loop.run_until_complete(dock.task)
    assert len(model.calls) == calls_before  # applying does not run the model

    state = agent.get_state(hub.config())
    assert state.values["todos"] == want
    assert state.metadata["source"] == "update"
    saved = agent.checkpointer.get_tuple(hub.config())
    assert list(saved.checkpoint["versions_seen"][UPDATED_BY]) == ["tools"]  # the last writer
    assert state.next == ("model",)  # what runs next is unchanged
    assert shown(dock) == {
        "pending": [
            ("编写单元测试", "NEW"),
            ("创建 register.tsx (with form validation)", "REWORDED"),
        ],
        "in_progress": [],
        "completed": [("创建 login.tsx", "IN PROGRESS → COMPLETED")],
    }

    loop.run_until_complete(agent.ainvoke(None, hub.config()))  # continue past the pause
    given = model.calls[-1].messages
    results = [m for m in given if isinstance(m, ToolMessage) and m.name == "write_todos"]
    assert len(results) == 1
    assert results[0].text.startswith(f"Updated todo list to {want}")
    assert "The user edited this todo list" in results[0].text


def test_past_checkpoints_are_read_only(loop: Any, qtbot: Any) -> None:
    agent, _model, _ = paused_todo_agent()
    hub = bind(agent)
    dock = TodoBoardDock(hub)
    qtbot.addWidget(dock)
    loop.run_until_complete(
        agent.ainvoke({"messages": [HumanMessage(retry_todos.INPUT)]}, hub.config())
    )
    hub.set_status("interrupted")
    assert dock.can_edit()[0]
    first = list(agent.get_state_history(hub.config()))[-1]
    hub.select_checkpoint(first.config["configurable"]["checkpoint_id"])
    can, why = dock.can_edit()
    assert not can and "latest checkpoint" in why
    assert not dock.edit_button.isEnabled()
    with pytest.raises(RuntimeError, match="latest checkpoint"):
        dock.start_editing()


def test_an_agent_without_todos_explains_instead_of_an_empty_board(qtbot: Any) -> None:
    agent = approval.build_agent()
    hub = bind(agent)
    dock = TodoBoardDock(hub)
    qtbot.addWidget(dock)
    assert dock.pages.currentIndex() == 0
    assert dock.explanation_label.text().startswith("This agent keeps no todo list.")
    assert dock.edit_button.isHidden()
    empty = TodoBoardDock(Hub())
    qtbot.addWidget(empty)
    assert empty.explanation_label.text() == "Load an agent to see its todo list."


def test_docks_leave_the_hub_when_destroyed(qtbot: Any) -> None:
    import shiboken6

    from studio.docks.plan.view import PlanDock

    hub = Hub()
    before = {topic: len(subs) for topic, subs in hub._subs.items()}
    for dock in (TodoBoardDock(hub), PlanDock(hub)):
        assert any(len(hub._subs[t]) > n for t, n in before.items())
        shiboken6.delete(dock)
    assert {topic: len(subs) for topic, subs in hub._subs.items()} == before
    hub.reset()  # nothing left to call into a deleted widget
    hub.set_status("done")


def test_under_the_app_loop_checkpoints_are_read_async_and_only_the_newest_shows(
    loop: Any, qtbot: Any
) -> None:
    agent, hub, dock = seed_board(loop, qtbot)
    history = list(reversed(list(agent.get_state_history(hub.config()))))
    ids = [s.config["configurable"]["checkpoint_id"] for s in history]
    first_with_todos = next(i for i, s in enumerate(history) if s.values.get("todos"))

    async def select(*checkpoints: str) -> Board | None:
        tasks = []
        for cid in checkpoints:
            hub.select_checkpoint(cid)  # on the running loop: a task, the UI is not blocked
            tasks.append(dock.reader.task)
        assert all(t is not None and not t.done() for t in tasks)
        await asyncio.gather(*tasks)
        return shown(dock)

    board = loop.run_until_complete(select(ids[first_with_todos]))
    assert board is not None and board["in_progress"] == [("创建 login.tsx", "NEW")]
    # a quick second selection wins over the first, whichever read finishes last
    assert loop.run_until_complete(select(ids[first_with_todos + 1], ids[0])) is None


def test_a_narrow_dock_stacks_its_columns_and_a_wide_one_sets_them_side_by_side(
    loop: Any, qtbot: Any
) -> None:
    """Three columns that do not fit the dock's width go one above the other (the board scrolls
    down, not sideways); they come back side by side when the dock is widened again."""
    from PySide6.QtWidgets import QBoxLayout

    *_, dock = seed_board(loop, qtbot)
    dock.show()
    qtbot.waitUntil(lambda: shown(dock) is not None)
    scroll = dock.pages.currentWidget()
    wanted = sum(c.minimumSizeHint().width() for c in dock.columns.values())
    for width, direction in (
        (wanted // 2, QBoxLayout.Direction.TopToBottom),
        (wanted + 200, QBoxLayout.Direction.LeftToRight),
        (wanted - 40, QBoxLayout.Direction.TopToBottom),
    ):
        dock.resize(width, 700)
        qtbot.waitUntil(lambda d=direction: dock.columns_row.direction() == d)
        loop.run_until_complete(asyncio.sleep(0))  # the layout settles
        assert scroll.horizontalScrollBar().maximum() == 0  # nothing to scroll sideways to
    pending, doing, done = (
        dock.columns[s].geometry() for s in ("pending", "in_progress", "completed")
    )
    assert pending.bottom() < doing.top() and doing.bottom() < done.top()
