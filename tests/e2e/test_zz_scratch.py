import asyncio, os
import pytest
from pathlib import Path
from tests.studio.app_agents import make_window, run_until
from engine.types import Command

APP = os.environ.get("APP", "/tmp/att/handoff.py:graph")


def test_scratch(qtbot, qloop, tmp_path):
    import qasync

    old = asyncio.get_event_loop_policy()
    asyncio.set_event_loop_policy(qasync.DefaultQEventLoopPolicy())
    asyncio.set_event_loop(qloop)
    try:
        window = make_window(qtbot, tmp_path)

        async def answer(ints):
            return Command(resume={"decisions": [{"type": "approve"}]})

        assert window.load_spec(APP)
        window.controller.interrupt_handler = answer
        window.actions_.run.trigger()
        run_until(
            qloop, lambda: window.hub.status in ("done", "error") and not window.controller.busy, 30
        )
        print(
            "STATUS", window.hub.status, window.controller.last_error, window.controller.graph.sync
        )
    finally:
        asyncio.set_event_loop_policy(old)
        asyncio.set_event_loop(qloop)
