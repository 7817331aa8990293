"""Screenshots of the time-travel docks on a real seed-000 run with a fork, an edit and a replay.

Run under a real X server (``xvfb-run -a .venv/bin/python -m tests.studio.tt_screenshots``)
or offscreen; PNGs go to ``/tmp/stepwise-shots/timetravel/`` (or the folder given).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QSplitter, QWidget

from engine.messages import AIMessage
from resources.scenarios.retry_todos import Workspace, build_agent, scripted_model
from studio.history.timetravel import aapply_edit, arerun, aresume_from, replay_plan
from studio.models.state_edit import StateEdit
from tests.studio.tt_studio import Studio, make_studio, seed_input


class _Bot:
    def addWidget(self, w: Any) -> None:  # the qtbot protocol tt_studio uses
        pass


def _scene(s: Studio, loop: asyncio.AbstractEventLoop) -> None:
    """Seed 000, a fork after write_todos, an edit removing a tool call, a replay that diverges."""
    loop.run_until_complete(s.agent.ainvoke(seed_input(), s.hub.config()))
    after = s.after_write_todos()
    s.model.push(AIMessage("Only login.tsx is needed; I will stop here."))
    loop.run_until_complete(aresume_from(s.agent, "t1", after.checkpoint_id))
    pending = s.pending_create_file()
    edit = StateEdit(s.agent.get_state(s.hub.config(pending.checkpoint_id)).values, s.agent)
    edit.remove_tool_call(len(edit.messages) - 1, 0)
    new = loop.run_until_complete(
        aapply_edit(
            s.agent, "t1", pending.checkpoint_id, edit.build_update(edit.editable_values()), "model"
        )
    )
    loop.run_until_complete(aresume_from(s.agent, "t1", new))
    plan = replay_plan(
        s.hub.events, s.timeline.timeline, after.checkpoint_id, fallback=scripted_model(timeouts=0)
    )
    broken = Workspace()
    broken.failures["register.tsx"] = 2
    again = build_agent(
        initial_delay=0.0, model=plan.model, workspace=broken, checkpointer=s.agent.checkpointer
    )
    again.subscribe(lambda ev: s.hub.add_events([ev]))
    loop.run_until_complete(arerun(again, plan, "t1"))
    s.hub.checkpoints_changed()
    QApplication.processEvents()


def _grab(w: QWidget, path: Path) -> None:
    w.show()
    for _ in range(3):
        QApplication.processEvents()
    w.grab().save(str(path))
    print(path)


def main(out: Path, theme: str) -> None:
    app = QApplication.instance() or QApplication(sys.argv)
    try:
        from studio.look.theme import apply_theme

        apply_theme(app, theme)  # type: ignore[arg-type]
    except Exception:  # the app theme is optional for these shots
        pass
    import qasync

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    s = make_studio(_Bot())
    s.hub.set_theme(theme) if hasattr(s.hub, "set_theme") else None
    _scene(s, loop)
    split = QSplitter(Qt.Orientation.Horizontal)
    for w in (s.timeline, s.state, s.diff):
        split.addWidget(w)
    split.resize(1680, 640)
    split.setSizes([620, 560, 500])
    after = s.after_write_todos()
    s.hub.select_checkpoint(after.checkpoint_id)
    _grab(split, out / f"docks-after-write-todos-{theme}.png")
    # the edited branch: the replaced AI message in the diff
    edited = next(n for n in s.timeline.timeline.by_id.values() if n.source == "update")
    s.hub.select_checkpoint(edited.checkpoint_id)
    _grab(split, out / f"docks-edited-{theme}.png")
    # search and the JSON tab
    s.hub.select_checkpoint(s.main_nodes[-1].checkpoint_id)
    s.state.search.setText("register")
    s.state.resize(620, 520)
    _grab(s.state, out / f"state-search-{theme}.png")
    s.state.search.setText("")
    s.state.tabs.setCurrentWidget(s.state.json_view)
    _grab(s.state, out / f"state-json-{theme}.png")
    s.state.tabs.setCurrentWidget(s.state.tree)
    # the edit dialog, with the tool call removed, then with a schema error
    s.hub.select_checkpoint(s.pending_create_file().checkpoint_id)
    dialog = s.timeline.open_edit_dialog()
    dialog.remove_call_menu.actions()[0].trigger()
    dialog.resize(900, 600)
    dialog.tabs.setCurrentIndex(1)
    _grab(dialog, out / f"edit-state-messages-{theme}.png")
    dialog.tabs.setCurrentIndex(0)
    dialog.values_edit.setPlainText(dialog.values_edit.toPlainText().replace('"pending"', '"done"'))
    _grab(dialog, out / f"edit-state-invalid-{theme}.png")
    dialog.reject()
    # compare the main branch with the fork
    tl = s.timeline.timeline
    fork = tl.branches[1]
    cmp = s.timeline.open_compare(s.main_nodes[-1].checkpoint_id, fork.tip.checkpoint_id)
    cmp.resize(1100, 760)
    _grab(cmp, out / f"compare-branches-{theme}.png")
    # the whole timeline, live
    s.hub.select_checkpoint(None)
    s.timeline.resize(720, 760)
    _grab(s.timeline, out / f"timeline-{theme}.png")


if __name__ == "__main__":
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/tmp/stepwise-shots/timetravel")
    folder.mkdir(parents=True, exist_ok=True)
    main(folder, sys.argv[2] if len(sys.argv) > 2 else "light")
