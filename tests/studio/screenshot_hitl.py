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
from studio.hub import Hub

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
    from studio.interrupts import agent_tools

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


async def main(out: Path, theme: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    await approval_shot(out, theme)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    theme_name = "dark" if "--theme" in sys.argv and "dark" in sys.argv else "light"
    target = Path(args[0]) if args else ROOT / "resources" / "screenshots"
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(main(target, theme_name))
