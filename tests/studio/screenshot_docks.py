"""Render the Events and Messages docks after a real seed-000 run, to PNGs (not collected by pytest).

    xvfb-run -a .venv/bin/python -m tests.studio.screenshot_docks [OUT_DIR]

Runs ``resources/scenarios/retry_todos.py`` (model timeout + disk full, both retried), feeds its
events through a ``Hub`` like the app does, and grabs each dock in the light and dark themes:
the event log with the failed attempt selected (details pane showing its JSON), the log
filtered to failures, the transcript, and the transcript mid-stream.  Without Xvfb it falls
back to the offscreen platform.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

if not os.environ.get("DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication, QWidget

from engine.events import EventBase
from engine.messages import HumanMessage
from studio.models.hub import Hub

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/stepwise-shots")


async def seed000_run() -> tuple[Any, list[EventBase]]:
    from resources.scenarios.retry_todos import INPUT, build_agent

    agent = build_agent(initial_delay=0.01)
    events: list[EventBase] = []
    with agent.subscribe(events.append):
        await agent.ainvoke(
            {"messages": [HumanMessage(INPUT)]}, {"configurable": {"thread_id": "main"}}
        )
    return agent, events


def apply_theme(app: QApplication, name: str) -> None:
    try:
        from studio.look.theme import apply_theme as theme
    except ImportError:  # the app shell's themes are optional here
        app.setStyle("Fusion")
        return
    theme(app, name)


def settle(app: QApplication, widget: QWidget) -> None:
    for _ in range(5):
        app.processEvents()
    widget.repaint()
    app.processEvents()


def grab(app: QApplication, widget: QWidget, name: str) -> None:
    settle(app, widget)
    path = OUT / name
    widget.grab().save(str(path))
    print(path)


def event_log_shots(app: QApplication, hub: Hub, theme: str) -> None:
    from studio.docks.events.view import EventLogDock

    dock = EventLogDock(hub)
    dock.resize(980, 720)
    dock.show()
    dock.flush()
    settle(app, dock)
    grab(app, dock, f"events-follow-{theme}.png")
    failed = next(r for r in dock.tree.rows if r.kind == "attempt.started" and r.failed)
    dock.select_seq(failed.seq)
    grab(app, dock, f"events-failed-attempt-{theme}.png")
    dock.filter_bar.failures_button.setChecked(True)
    settle(app, dock)
    grab(app, dock, f"events-failures-{theme}.png")
    dock.clear_filter()
    dock.filter_node("tools")
    settle(app, dock)
    grab(app, dock, f"events-node-tools-{theme}.png")
    dock.close()
    dock.deleteLater()


def event_log_live_shots(app: QApplication, events: list[EventBase], theme: str) -> None:
    """Mid-run (the disk-full retry just failed, its second attempt open) and a long run."""
    from studio.docks.events.view import EventLogDock
    from tests.studio.event_samples import synthetic_stream

    hub = Hub()
    dock = EventLogDock(hub)
    dock.resize(980, 560)
    dock.show()
    failed_tool = next(
        i for i, e in enumerate(events) if e.kind == "tool.finished" and e.status == "error"
    )
    hub.add_events(events[: failed_tool + 4])
    dock.flush()
    grab(app, dock, f"events-midrun-{theme}.png")
    hub.reset()
    hub.add_events(list(synthetic_stream(20_000)))
    dock.flush()
    grab(app, dock, f"events-long-run-{theme}.png")
    dock.close()
    dock.deleteLater()


def messages_shots(app: QApplication, hub: Hub, events: list[EventBase], theme: str) -> None:
    from studio.docks.messages.view import MessagesDock

    dock = MessagesDock(hub)
    dock.resize(620, 900)
    dock.show()
    dock.flush()
    grab(app, dock, f"messages-{theme}.png")
    saved = [e.checkpoint_id for e in events if e.kind == "checkpoint.saved"]
    hub.select_checkpoint(saved[4])
    grab(app, dock, f"messages-checkpoint-{theme}.png")
    hub.select_checkpoint(None)
    # mid-run: replay up to the middle of the last model call's stream
    live = Hub()
    last_tokens = [i for i, e in enumerate(events) if e.kind == "model.token"]
    cut = last_tokens[-3]
    mid = MessagesDock(live)
    mid.resize(620, 900)
    mid.show()
    live.add_events(events[:cut])
    mid.flush()
    grab(app, mid, f"messages-streaming-{theme}.png")
    for d in (dock, mid):
        d.close()
        d.deleteLater()


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    agent, events = asyncio.run(seed000_run())
    for theme in ("light", "dark"):
        apply_theme(app, theme)
        hub = Hub()
        hub.set_graph(agent, agent.get_graph(), "retry_todos")
        hub.add_events(events)
        event_log_shots(app, hub, theme)
        event_log_live_shots(app, events, theme)
        messages_shots(app, hub, events, theme)


if __name__ == "__main__":
    main()
