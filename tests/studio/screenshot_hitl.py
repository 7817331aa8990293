"""Render the approval dialog, the Todos board and the Plan view with real runs (not collected).

    xvfb-run -a .venv/bin/python -m tests.studio.screenshot_hitl [OUT_DIR] [--theme dark]

OUT_DIR defaults to ``resources/screenshots``.  Each picture comes from a real offline run:
the HITL scenario paused at its approval, seed 000's todo list after the first file, and seed
003's plan after its first execution (step 1 failed, 2 and 3 skipped) plus after the retry.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

if not os.environ.get("DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import qasync
from PySide6.QtWidgets import QApplication, QWidget

from engine.events import EventBase
from engine.messages import HumanMessage
from studio.models.hub import Hub

ROOT = Path(__file__).resolve().parents[2]


def save(widget: QWidget, path: Path) -> None:
    widget.grab().save(str(path))
    print(f"wrote {path} ({widget.width()}x{widget.height()})")


def bind(graph: Any, theme: str) -> Hub:
    hub = Hub()
    if hasattr(hub, "set_theme"):
        hub.set_theme(theme)
    hub.set_graph(graph, graph.get_graph())

    def on_event(event: EventBase) -> None:
        hub.add_events([event])

    graph.subscribe(on_event)
    return hub


async def approval_shot(out: Path, theme: str) -> None:
    from resources.scenarios.approval import INPUT, build_agent
    from studio.dialogs.approval import ApprovalDialog
    from studio.dialogs.approval_model import ApprovalRequest
    from studio.run.interrupts import agent_tools

    agent = build_agent()
    hub = bind(agent, theme)
    await agent.ainvoke({"messages": [HumanMessage(INPUT)]}, hub.config())
    snapshot = await agent.aget_state(hub.config())
    request = ApprovalRequest(snapshot.interrupts[0].value, tools=agent_tools(agent))
    dialog = ApprovalDialog(request, None, theme)
    cancel, email, delete = dialog.cards
    cancel.buttons["approve"].click()
    email.buttons["reject"].click()
    email.reason_edit.setText("She asked to be contacted by phone only")
    delete.buttons["edit"].click()
    delete.editor.setPlainText('{\n  "path": "exports/orders/A-1042.csv",\n  "force": true\n}')
    dialog.show()
    await asyncio.sleep(0.2)
    dialog.grow_to_fit()
    await asyncio.sleep(0.2)
    save(dialog, out / "approval.png")
    dialog.request.cancel()


async def todo_shot(out: Path, theme: str) -> None:
    from engine.agents import create_agent
    from engine.checkpoint.memory import InMemorySaver
    from engine.middleware.builtins import TodoListMiddleware
    from resources.scenarios import retry_todos
    from studio.docks.todos.view import TodoBoardDock

    agent = create_agent(
        retry_todos.scripted_model(timeouts=0),
        retry_todos.make_tools(retry_todos.Workspace(disk_full=0)),
        middleware=[TodoListMiddleware()],
        checkpointer=InMemorySaver(),
        interrupt_after=["tools"],
    )
    hub = bind(agent, theme)
    dock = TodoBoardDock(hub)
    await agent.ainvoke({"messages": [HumanMessage(retry_todos.INPUT)]}, hub.config())
    hub.set_status("interrupted")
    dock.start_editing()
    editor = dock.editor
    editor.draft.set_status(0, "completed")
    editor.draft.set_status(1, "in_progress")
    editor.draft.add("为两个页面编写单元测试")
    editor.draft.add("更新 README 的页面说明")
    await dock.apply_edits()
    dock.resize(760, 400)
    dock.show()
    await asyncio.sleep(0.3)
    save(dock, out / "todo_board.png")


async def plan_shot(out: Path, theme: str) -> None:
    from resources.scenarios.plan_retry import INPUT, build_agent
    from studio.docks.plan.view import PlanDock

    agent = build_agent(delay=0.0, interrupt_after=["executor"])
    hub = bind(agent, theme)
    dock = PlanDock(hub)
    dock.resize(900, 560)
    dock.show()
    await agent.ainvoke({"messages": [HumanMessage(INPUT)]}, hub.config())
    await asyncio.sleep(0.3)
    dock.canvas.fit()
    dock.hover_step(1)
    await asyncio.sleep(0.2)
    save(dock, out / "plan_view.png")


async def main(out: Path, theme: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    await approval_shot(out, theme)
    await todo_shot(out, theme)
    await plan_shot(out, theme)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    theme_name = "dark" if "--theme" in sys.argv and "dark" in sys.argv else "light"
    target = Path(args[0]) if args else ROOT / "resources" / "screenshots"
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    from studio.look.theme import apply_theme

    apply_theme(app, theme_name)  # as the studio does: palette and base stylesheet
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(main(target, theme_name))
