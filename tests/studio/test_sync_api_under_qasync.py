"""The engine's sync API (e.g. ``get_state``) called from the UI thread of a running qasync app.

qasync installs an event-loop policy whose loops are Qt loops; the engine's sync wrappers must
not create those on helper threads (they would fail: "event dispatcher already destroyed").
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_get_state_from_the_ui_thread_of_a_qasync_app():
    code = textwrap.dedent(
        f"""
        import os, sys
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        sys.path.insert(0, {str(ROOT)!r})
        from PySide6.QtWidgets import QApplication
        import qasync
        from resources.scenarios.retry_todos import build_agent
        from engine.messages import HumanMessage

        app = QApplication([])
        agent = build_agent(initial_delay=0.0)
        cfg = {{"configurable": {{"thread_id": "x"}}}}

        async def main():
            await agent.ainvoke({{"messages": [HumanMessage("hi")]}}, cfg)
            for _ in range(3):
                snap = agent.get_state(cfg)
            print(len(snap.values["messages"]), len(list(agent.get_state_history(cfg))))

        qasync.run(main())
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "8 13"
