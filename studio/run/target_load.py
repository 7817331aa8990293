"""Debugging a target that is not a graph in this process (a LangGraph server's assistant):
the run controller's half of *File > Connect to Server...*.

``TargetLoad`` is a mixin of ``studio.run.controller.RunController``.  ``load_target`` installs the
target as ``load`` installs an agent: a new session file records every run (its events, and a
copy of each checkpoint, so the session replays offline), the window subscribes to the
target's events, and the hub draws its graph.  Restart runs again on a new thread of the same
target.  ``join`` watches the run another client has going on the current thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.targets import RunDriver

if TYPE_CHECKING:
    from pathlib import Path

    from engine.debug import Debugger
    from engine.targets import Target
    from studio.models.hub import Hub
    from studio.run.event_batcher import EventBatcher
    from studio.run.given_inputs import GivenInputsBook

__all__ = ["TargetLoad"]


class TargetLoad:
    hub: Hub
    debugger: Debugger
    batcher: EventBatcher
    record: bool
    recorder: Any
    session_path: Path | None
    session_dir: Path | None
    target: Any
    driver: RunDriver | None
    label: str
    spec: str | None
    default_input: Any
    typed_input: Any
    context: Any
    context_given: bool
    given: GivenInputsBook
    threads: list[str]
    task: asyncio.Task[None] | None
    _factory: Any
    _sub: Any
    _ran_on: set[str]
    fixed_target: Target | None
    closing: asyncio.Future[None] | None

    if TYPE_CHECKING:

        @property
        def busy(self) -> bool: ...

        def _abandon_run(self) -> None: ...

        def _close_recording(self) -> None: ...

        def _on_event(self, ev: Any) -> None: ...

        def new_thread(self) -> str: ...

        def _launch(self, coro: Any) -> asyncio.Task[None]: ...

        def _begin_run(self) -> None: ...

    def load_target(self, target: Target, label: str) -> None:
        """Debug ``target`` (see the module docstring); the previous one is closed."""
        self._abandon_run()
        old = self.fixed_target
        self.fixed_target = target
        self._factory = None
        self.spec = None
        self.label = label
        self.default_input = None
        given = self.given.get(label)  # the same assistant again: what it was given before
        self.typed_input, self.context = given.input, given.context
        self.context_given = given.context_given
        self.threads = []
        self._ran_on = set()
        self.use_target(target)
        self.hub.set_thread(self.new_thread())
        self.hub.set_status("idle")
        if old is not None and old is not target:
            self.closing = asyncio.ensure_future(old.aclose())

    def use_target(self, target: Target) -> None:
        """Record, subscribe to and show ``target`` (a fresh session file)."""
        from studio.history.session_files import new_session_path

        self._close_recording()
        if self.record:
            from engine.recording import SessionRecorder

            self.session_path = new_session_path(self.label, self.session_dir)
            self.recorder = SessionRecorder(self.session_path)
            self.recorder.attach(target)  # type: ignore[arg-type]
        else:
            self.session_path = None
        self.target = target
        self.driver = RunDriver(target, self.debugger)
        self._sub = target.subscribe(self._on_event)
        self.hub.session_path = str(self.session_path) if self.session_path else None
        self.batcher.discard()
        self.hub.reset()
        self.hub.set_target(target, target.shape(), self.label)

    @property
    def can_join(self) -> bool:
        """Can the target watch runs other clients start (a server)?"""
        return callable(getattr(self.target, "join", None))

    def join(self, on_done: Callable[[str], None] | None = None) -> asyncio.Task[None]:
        """Watch the run going on on the current thread (or the next one started there)."""
        if not self.can_join:
            raise RuntimeError("This target cannot join runs other clients start")
        if self.busy:
            raise RuntimeError("Stop the run before joining another")
        thread = self.hub.thread_id

        async def watch() -> None:
            self.batcher.discard()
            self.hub.reset()
            self._ran_on.add(thread)
            self._begin_run()
            handle = self.target.join(thread, self.debugger)
            try:
                async for _ev in handle:  # the events reach the window through the subscription
                    pass
            finally:
                self.batcher.flush()
            status = handle.outcome.status if handle.outcome is not None else "cancelled"
            self.hub.set_status(status)
            if on_done is not None:
                on_done(status)

        return self._launch(watch())
