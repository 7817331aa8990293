"""Agents the studio's app tests drive: a seed-000-like agent with near-zero delays.

Seed 000: create login.tsx and register.tsx.  The model times out once (ModelRetry retries),
writes the todos, creates login.tsx; creating register.tsx fails once with a disk-full OSError
(ToolRetry retries), then the model answers.  8 messages in the end: the request, three AI
turns with a tool call each and their three tool results, and the answer.
"""

from __future__ import annotations

from typing import Any

from engine.agents import create_agent
from engine.messages import AIMessage, HumanMessage, ToolCall
from engine.middleware.model_retry import ModelRetryMiddleware
from engine.middleware.todo import TodoListMiddleware
from engine.middleware.tool_retry import ToolRetryMiddleware
from engine.models import ScriptedChatModel
from engine.tools import tool

REQUEST = "Create login.tsx and register.tsx"
EXPECTED_MESSAGES = 8

TODOS = [
    {"content": "Create login.tsx", "status": "in_progress"},
    {"content": "Create register.tsx", "status": "pending"},
]


def _call(name: str, args: dict[str, Any], n: int) -> ToolCall:
    return ToolCall(name=name, args=args, id=f"call_{name}_{n}")


def script() -> list[Any]:
    return [
        TimeoutError("model call timed out after 30 s"),
        AIMessage(content="", tool_calls=[_call("write_todos", {"todos": TODOS}, 1)]),
        AIMessage(
            content="",
            tool_calls=[_call("create_file", {"path": "login.tsx", "content": "export {}"}, 2)],
        ),
        AIMessage(
            content="",
            tool_calls=[_call("create_file", {"path": "register.tsx", "content": "export {}"}, 3)],
        ),
        "Created login.tsx and register.tsx.",
    ]


def build(*, delay: float = 0.0, script_items: list[Any] | None = None) -> Any:
    disk: dict[str, str] = {}
    failures = {"register.tsx": 1}

    @tool
    def create_file(path: str, content: str) -> str:
        """Create a file.

        Args:
            path: the file's path
            content: what to write
        """
        if failures.get(path):
            failures[path] -= 1
            raise OSError(28, "No space left on device")
        disk[path] = content
        return f"created {path}"

    model = ScriptedChatModel(script() if script_items is None else script_items)
    return create_agent(
        model,
        [create_file],
        system_prompt="You create files.",
        middleware=[
            TodoListMiddleware(),
            ModelRetryMiddleware(
                max_retries=2, retry_on=(TimeoutError,), initial_delay=delay, jitter=False
            ),
            ToolRetryMiddleware(
                max_retries=1, retry_on=(OSError,), initial_delay=delay, jitter=False
            ),
        ],
        name="seed000",
    )


def factory(**kwargs: Any) -> Any:
    """A RunController factory: a fresh agent (and script) each time, with its default input."""

    def make() -> tuple[Any, Any]:
        return build(**kwargs), {"messages": [HumanMessage(content=REQUEST)]}

    return make


def make_window(qtbot: Any, tmp_path: Any) -> Any:
    """A real main window on its own hub and controller (sessions under ``tmp_path``)."""
    from studio.app.main_window import MainWindow
    from studio.app.settings_store import StudioSettings
    from studio.models.hub import Hub
    from studio.run.controller import RunController

    hub = Hub()
    controller = RunController(hub, session_dir=tmp_path / "sessions")
    window = MainWindow(hub, controller, StudioSettings(), save_settings=False)
    qtbot.addWidget(window)
    window.show()
    return window


def run_until(loop: Any, predicate: Any, timeout: float = 20.0) -> None:
    """Run the qasync loop until ``predicate()`` holds (polling; never a fixed sleep)."""
    import asyncio

    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.005)

    loop.run_until_complete(asyncio.wait_for(poll(), timeout))


def click(qtbot: Any, loop: Any, widget: Any) -> None:
    """A real mouse click on ``widget``, made while the qasync loop runs.

    Outside ``run_until_complete``, Qt's event processing (which a click does) can step the
    run's asyncio tasks with no running loop set, and ``asyncio.to_thread`` in a tool then
    fails; the app itself always runs inside the loop, so the tests click there too."""
    from PySide6.QtCore import Qt

    async def press() -> None:
        qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)

    loop.run_until_complete(press())


def open_in_window(loop: Any, window: Any, path: Any) -> Any:
    """Open the session at ``path`` as File > Open Session does, and wait until every event it
    loads is in and its older runs are counted; returns the Events dock, flushed."""
    assert window.open_session(str(path))
    opened = window.opened_session

    def done() -> bool:
        task = opened.older_task
        return opened.complete and (task is None or task.done())

    run_until(loop, done)
    dock = window.docks["events"].widget()
    dock.flush()
    return dock
