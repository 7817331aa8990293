"""The run controller's threads: new ones, switching between them, and opening one the agent's
checkpointer already holds, such as a thread a production app saved in its SQLite or PostgreSQL
database (``stepwise open app.py:graph --thread T --checkpointer URL``).

``SavedThreads`` is a mixin of ``studio.run.controller.RunController``.  Opening a thread makes it the
current one: the Timeline lists its checkpoints from the saver, the docks show its newest
state, and when it stopped at ``interrupt()`` the answer dialog opens on F5 (Continue) and
resumes it with ``Command(resume=...)``, as if the interrupt had just been raised here.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from engine.attach.options import AttachOptions
    from engine.targets import Target
    from studio.models.hub import Hub

__all__ = ["SavedInterrupt", "SavedThreads", "ThreadSummary", "ThreadWindow", "open_in_window"]


@dataclass(frozen=True)
class SavedInterrupt:
    """A pending interrupt read from a saved thread (what the answer dialog needs)."""

    value: Any
    id: str
    node: str = ""


@dataclass(frozen=True)
class ThreadSummary:
    thread_id: str
    checkpoints: bool
    """Whether the saver has any checkpoint of this thread."""
    step: int | None = None
    next: tuple[str, ...] = ()
    interrupts: tuple[SavedInterrupt, ...] = ()

    def describe(self) -> str:
        """One status-bar line."""
        if not self.checkpoints:
            return f"Thread {self.thread_id} has no checkpoints yet: Run starts it"
        where = f"step {self.step}" if self.step is not None else "its newest checkpoint"
        if self.interrupts:
            return (
                f"Thread {self.thread_id} waits for an answer at {where}: Continue (F5) answers it"
            )
        if self.next:
            return f"Thread {self.thread_id} stopped at {where} before {', '.join(self.next)}"
        return f"Thread {self.thread_id} finished at {where}"


class SavedThreads:
    """The run controller's threads: new ones, switching, saved ones, the app's saver."""

    hub: Hub
    target: Target | None
    pending_interrupts: list[Any]
    threads: list[str]
    attach: AttachOptions
    _ran_on: set[str]
    _saver: Any
    _thread_numbers: Iterator[int]

    if TYPE_CHECKING:

        @property
        def busy(self) -> bool: ...

    def new_thread(self) -> str:
        """A new thread id: numbered for a graph in this process; a fresh UUID for a server's
        (its threads are shared by every client: "thread-1" would be the same thread for two
        windows, or two sessions, on one server)."""
        if self.target is not None and self.target.kind == "remote":
            tid = str(uuid.uuid4())
        else:
            tid = f"thread-{next(self._thread_numbers)}"
        self.threads.append(tid)
        return tid

    def switch_thread(self, thread_id: str) -> None:
        if self.busy:
            raise RuntimeError("Stop the run before switching threads")
        if thread_id not in self.threads:
            self.threads.append(thread_id)
        self.pending_interrupts = []
        self.hub.set_thread(thread_id)
        self.hub.set_status("idle" if thread_id not in self._ran_on else "done")

    def _attach_saver(self) -> Any:
        """The checkpointer ``attach`` names, opened once and kept for restarts."""
        if self._saver is None and self.attach.checkpointer:
            self._saver = self.attach.open_saver()
        return self._saver

    async def open_thread(self, thread_id: str) -> ThreadSummary:
        """Make the saved thread ``thread_id`` current (see the module docstring)."""
        if self.target is None:
            raise RuntimeError("No agent is loaded")
        self.switch_thread(thread_id)
        snap = await self.target.state(thread_id)
        config = getattr(snap, "config", None) or {}
        if not (config.get("configurable") or {}).get("checkpoint_id"):
            summary = ThreadSummary(thread_id, checkpoints=False)
            self.hub.set_status("idle")
            return summary
        pending = tuple(
            SavedInterrupt(
                getattr(i, "value", None), str(getattr(i, "id", "") or ""), _node_of(snap, i)
            )
            for i in getattr(snap, "interrupts", ()) or ()
        )
        step = (getattr(snap, "metadata", None) or {}).get("step")
        summary = ThreadSummary(
            thread_id,
            checkpoints=True,
            step=step if isinstance(step, int) else None,
            next=tuple(str(n) for n in getattr(snap, "next", ()) or ()),
            interrupts=pending,
        )
        self._ran_on.add(thread_id)
        self.pending_interrupts = list(pending)
        self.hub.set_status("interrupted" if pending or summary.next else "done")
        self.hub.checkpoints_changed()
        # the Graph dock shows where the thread stands: nodes due next, interrupted ones amber
        self.hub.publish("saved_thread", summary.next, [i.node for i in pending if i.node])
        return summary


def _node_of(snap: Any, interrupt: Any) -> str:
    """The node whose task raised ``interrupt`` (shown in the answer dialog)."""
    for task in getattr(snap, "tasks", ()) or ():
        if any(getattr(i, "id", None) == getattr(interrupt, "id", None) for i in task.interrupts):
            return str(task.name)
    return ""


class ThreadWindow(Protocol):
    """What ``open_in_window`` needs of the main window."""

    @property
    def controller(self) -> SavedThreads: ...
    def show_error(self, title: str, message: str, details: str | None = None) -> object: ...
    def show_message(self, text: str) -> None: ...


async def open_in_window(window: ThreadWindow, thread_id: str) -> ThreadSummary | None:
    """``open_thread`` for the main window: the status bar says where the thread stands; a
    saver that cannot be read opens the error dialog (one line, no password)."""
    from engine.redaction import scrub

    try:
        summary: ThreadSummary = await window.controller.open_thread(thread_id)
    except Exception as exc:
        window.show_error(
            "The thread could not be opened", scrub(f"{type(exc).__name__}: {exc}".splitlines()[0])
        )
        return None
    window.show_message(summary.describe())
    return summary
