"""What the app's checkpointer really saved during an attached run.

LangGraph streams each checkpoint (the ``checkpoints`` stream mode) once it has handed it to
the saver, and saves it in the background; a save that fails does not stop the run (its
error is raised when the run ends), and every later save waits on the failed one and fails
with it.  So the stream alone would show checkpoints the app's database never got.
``SaveWatch`` watches the saver itself: the attached run runs on a copy of the app's saver
whose writes report whether they succeeded (``watched``), and a checkpoint is shown once its
save succeeded, never when it failed (``result`` waits for the one or the other).  A save cut
off with the connection may have been committed all the same: the database is asked, and when
it cannot answer the outcome is reported as unknown (``engine.attach.save_outcome``).

The copy is the app's saver object under a subclass of its own class: the same connection,
lock and storage (LangGraph's in-memory saver keeps its dicts: the copy shares them), every
method of the app's saver class, and only ``put`` / ``aput`` / ``put_writes`` /
``aput_writes`` reporting after calling the original.

The error of a fault the debugger injected is not saved either: it is the debugger's failure,
not the app's (the failed task stays pending, as after any failure).

A stop that cannot wait for a hung node cancels the run (``engine.attach.stopping``); LangGraph
would then save the cancelled task's ``CancelledError`` into the app's thread.  ``seal`` first
makes the copy drop every later write of the run, so the thread stays at its last checkpoint.
"""

from __future__ import annotations

import asyncio
import copy
import threading
from collections.abc import Callable
from typing import Any

from engine.attach.save_outcome import SaveUnknown, aread_back, outcome_unknowable, read_back
from engine.observe.faults import is_injected

__all__ = ["SaveWatch", "watched"]


class SaveWatch:
    """The outcome of each checkpoint save of one run (see the module docstring).

    Saves report from any thread (a sync saver saves on LangGraph's background threads); the
    waiting happens on the run's loop (``result``), or on the thread of a sync run's stream
    (``wait``)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._lock = threading.Condition()
        self._done: dict[str, BaseException | None] = {}
        self._waiting: dict[str, asyncio.Future[BaseException | None]] = {}
        self.failure: BaseException | None = None
        """The first failed save (a checkpoint's, or a task's writes)."""
        self.put_failure: BaseException | None = None
        """The first failed save of a checkpoint: LangGraph saves each checkpoint after the one
        before it, so no later checkpoint is saved (a task's writes are saved alongside: their
        failure says nothing of a checkpoint whose save is under way)."""
        self.finished = False
        """The run's stream is over: every save LangGraph was to try has reported."""
        self.failed_ids: list[str] = []
        self.unknown_ids: list[str] = []
        """Checkpoints whose save was cut off with the connection, the database unable to say
        whether it holds them (``SaveUnknown``)."""
        self.found_ids: list[str] = []
        """Checkpoints whose save raised, which the database holds all the same."""
        self._wake_pending = False
        self.sealed = False
        """The run was cancelled: its later writes are dropped (see the module docstring)."""
        self.on_report: Callable[[], None] | None = None
        """Called (on the reporting thread) after each save's outcome is known, and at
        ``seal``: the loop's inbox looks again at a checkpoint waiting for its save
        (``engine.attach.pending_save``)."""

    def seal(self) -> None:
        self.sealed = True
        with self._lock:
            self._lock.notify_all()
        self._wake()
        self._reported()

    # -- reports (any thread) -------------------------------------------------------------------

    def saved(self, checkpoint_id: str) -> None:
        with self._lock:
            self._done.setdefault(checkpoint_id, None)
            self._lock.notify_all()
        self._wake()
        self._reported()

    def failed(
        self, checkpoint_id: str | None, error: BaseException, found: bool | None = False
    ) -> None:
        """A save raised ``error``: a task's writes (``checkpoint_id`` None) or a checkpoint,
        which the database holds all the same (``found``), does not hold, or may hold (None:
        ``SaveUnknown``).  Either way no later checkpoint is saved (LangGraph saves each one
        after the one before it succeeded)."""
        with self._lock:
            if self.failure is None:
                self.failure = error
            if checkpoint_id is not None:
                outcome: BaseException | None = error
                if found:
                    outcome = None
                    self.found_ids.append(checkpoint_id)
                elif found is None:
                    outcome = SaveUnknown(error)
                    self.unknown_ids.append(checkpoint_id)
                self._done.setdefault(checkpoint_id, outcome)
                if self.put_failure is None:
                    self.put_failure = error
            self._lock.notify_all()
        self._wake()
        self._reported()

    def finish(self) -> None:
        """The run's stream is over (any thread): a checkpoint no save reported for will not be
        saved."""
        with self._lock:
            self.finished = True
            self._lock.notify_all()
        self._wake()
        self._reported()

    def _reported(self) -> None:
        report = self.on_report
        if report is not None:
            report()

    def _wake(self) -> None:
        # Only a waiting ``result`` needs the loop woken (a save usually lands before anyone
        # asks).  ``result`` registers its future before it settles what is already done, and
        # a report records its outcome before it looks here: one of the two sees the other.
        if not self._waiting or self._wake_pending:
            return
        self._wake_pending = True
        try:
            self.loop.call_soon_threadsafe(self._settle)
        except RuntimeError:  # the loop is closed: nobody waits any more
            self._wake_pending = False

    def _settle(self) -> None:
        self._wake_pending = False
        for cid, fut in list(self._waiting.items()):
            outcome = self._outcome(cid)
            if outcome is not _PENDING and not fut.done():
                fut.set_result(outcome)  # type: ignore[arg-type]
                del self._waiting[cid]

    def _outcome(self, checkpoint_id: str) -> BaseException | object | None:
        with self._lock:
            if checkpoint_id in self._done:
                return self._done[checkpoint_id]
            # checkpoints are saved in a chain: once one failed, no later one will be tried
            if self.put_failure is not None:
                return self.put_failure
            if self.sealed:  # a stopped run's saver takes no more writes
                return RuntimeError("the run was stopped before this checkpoint was saved")
            if self.finished:
                return self.failure or RuntimeError("the app's saver never saved this checkpoint")
            return _PENDING

    # -- the run's loop -------------------------------------------------------------------------

    async def result(self, checkpoint_id: str) -> BaseException | None:
        """None once ``checkpoint_id`` is saved; the error when its save failed."""
        outcome = self._outcome(checkpoint_id)
        if outcome is _PENDING:
            fut = self._waiting.get(checkpoint_id)
            if fut is None:
                fut = self._waiting[checkpoint_id] = self.loop.create_future()
            self._settle()
            outcome = await fut
        return self._result(checkpoint_id, outcome)

    def wait(self, checkpoint_id: str) -> BaseException | None:
        """``result``, waited for on this thread (not the loop's: the thread of a sync run's
        stream).  A sealed run saves nothing more: its checkpoint is not saved."""
        with self._lock:
            while (outcome := self._outcome(checkpoint_id)) is _PENDING:
                self._lock.wait()
        return self._result(checkpoint_id, outcome)

    def outcome_now(self, checkpoint_id: str) -> tuple[bool, BaseException | None]:
        """``wait`` without waiting: (is the outcome known, the error if the save failed).  A
        sealed run's pending checkpoint is known: not saved."""
        outcome = self._outcome(checkpoint_id)
        if outcome is _PENDING:
            return False, None
        return True, self._result(checkpoint_id, outcome)

    def _result(self, checkpoint_id: str, outcome: Any) -> BaseException | None:
        if isinstance(outcome, BaseException):
            if checkpoint_id not in self.failed_ids:
                self.failed_ids.append(checkpoint_id)
            return outcome
        return None

    def settled(self, checkpoint_id: str) -> bool:
        """Is the outcome of ``checkpoint_id``'s save known (saved, or failed)?"""
        return self._outcome(checkpoint_id) is not _PENDING

    def was_saved(self, checkpoint_id: str) -> bool:
        """Has ``checkpoint_id`` been saved (without waiting)?"""
        with self._lock:
            return checkpoint_id in self._done and self._done[checkpoint_id] is None


_PENDING = object()


def _unsaved(config: Any, checkpoint: Any) -> Any:
    """What ``put`` returns, for a checkpoint a sealed run does not save."""
    conf = dict(config.get("configurable") or {})
    cid = _cid(checkpoint)
    if cid is not None:
        conf["checkpoint_id"] = cid
    return {**config, "configurable": conf}


def _cid(checkpoint: Any) -> str | None:
    cid = checkpoint.get("id") if isinstance(checkpoint, dict) else None
    return None if cid is None else str(cid)


def _the_apps(writes: Any) -> list[Any]:
    """``writes`` but the error of a fault the debugger injected: that failure is the
    debugger's, and LangGraph would save it into the app's thread (its task is left to run
    again, as after any failure)."""
    return [w for w in writes if not (w[0] == "__error__" and is_injected(w[1]))]


def watched(saver: Any, watch: SaveWatch) -> Any:
    """A copy of ``saver`` whose writes report to ``watch`` (see the module docstring)."""
    cls = type(saver)

    def put(self: Any, config: Any, checkpoint: Any, metadata: Any, versions: Any) -> Any:
        if watch.sealed:
            return _unsaved(config, checkpoint)
        try:
            out = cls.put(self, config, checkpoint, metadata, versions)
        except Exception as exc:
            cid = _cid(checkpoint)
            found: bool | None = False
            if cid is not None and outcome_unknowable(exc):
                found = read_back(cls, self, config, cid)
            watch.failed(cid, exc, found)
            raise
        cid = _cid(checkpoint)
        if cid is not None:
            watch.saved(cid)
        return out

    async def aput(self: Any, config: Any, checkpoint: Any, metadata: Any, versions: Any) -> Any:
        if watch.sealed:
            return _unsaved(config, checkpoint)
        try:
            out = await cls.aput(self, config, checkpoint, metadata, versions)
        except Exception as exc:
            cid = _cid(checkpoint)
            found: bool | None = False
            if cid is not None and outcome_unknowable(exc):
                found = await aread_back(cls, self, config, cid)
            watch.failed(cid, exc, found)
            raise
        cid = _cid(checkpoint)
        if cid is not None:
            watch.saved(cid)
        return out

    def put_writes(self: Any, config: Any, writes: Any, task_id: str, task_path: str = "") -> Any:
        writes = _the_apps(writes)
        if watch.sealed or not writes:
            return None
        try:
            return cls.put_writes(self, config, writes, task_id, task_path)
        except Exception as exc:
            watch.failed(None, exc)
            raise

    async def aput_writes(
        self: Any, config: Any, writes: Any, task_id: str, task_path: str = ""
    ) -> Any:
        writes = _the_apps(writes)
        if watch.sealed or not writes:
            return None
        try:
            return await cls.aput_writes(self, config, writes, task_id, task_path)
        except Exception as exc:
            watch.failed(None, exc)
            raise

    methods = {"put": put, "aput": aput, "put_writes": put_writes, "aput_writes": aput_writes}
    twin = copy.copy(saver)
    twin.__class__ = type(f"Watched{cls.__name__}", (cls,), methods)
    return twin
