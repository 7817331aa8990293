""" "Re-run from here" on a session opened from a file (no agent loaded).

A session file holds events and checkpoints, not code.  The recorder notes which agent file
produced the runs (``SessionRecorder.set_agent``); re-running loads that file, but only after
the user agreed (loading an agent runs its code), then serves the recorded model responses
through the run's model override until the run diverges, into the same session file.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from studio.dialogs.asyncdialog import show_dialog
from studio.dialogs.confirm import ConfirmDialog
from studio.run.agent_source import with_saver

if TYPE_CHECKING:
    from studio.app.main_window import MainWindow
    from studio.models.timeline import TimelineModel

__all__ = ["rerun_recorded"]


async def answer_interrupts(window: MainWindow, pending: list[Any]) -> Any:
    """The approval dialog for the interrupts a re-run branch stopped at (None: answer later)."""
    from studio.run.interrupts import handle_interrupt

    window.hub.set_status("interrupted")
    answer = await handle_interrupt(window.hub, pending, window)
    window.hub.set_status("replay")
    return answer


def rerun_recorded(
    window: MainWindow, checkpoint_id: str, timeline: TimelineModel
) -> asyncio.Future[Any] | None:
    """Ask, load the session's agent, re-run from ``checkpoint_id``; None if it cannot."""
    opened = window.opened_session
    spec = opened.session.agent_spec(opened.target.name)
    if spec is None:
        window.show_error(
            "Re-running needs the agent's code",
            "This session does not say which agent file produced it. Open the agent "
            "(File > Open agent file...) and re-run from its timeline.",
        )
        return None
    window.confirm_dialog = dialog = ConfirmDialog(
        "Re-run with the recorded responses",
        f"Re-running from this checkpoint loads {spec} (its code runs) and serves the recorded "
        "model responses until the run diverges; the new branch is added to this session "
        "(a LangGraph app's is also saved by its own checkpointer, as a fork of its thread).",
        "Load and re-run",
        window,
    )

    answer = show_dialog(dialog)  # open now; the re-run waits for the answer

    async def go() -> Any:
        if await answer != dialog.DialogCode.Accepted:
            return None
        from engine.loader import load_agent
        from studio.app.settings_store import settings_model

        def factory(_model: Any, saver: Any) -> Any:
            return with_saver(load_agent(spec), saver)

        try:
            result = await opened.arerun(
                timeline,
                checkpoint_id,
                factory,
                fallback=settings_model(window.settings),
                debugger=window.controller.debugger,
                answer=lambda pending: answer_interrupts(window, pending),
            )
        except Exception as exc:
            window.show_error("The re-run failed", str(exc).splitlines()[0])
            return None
        window.status.show_message(result.message)
        return result

    return asyncio.ensure_future(go())
