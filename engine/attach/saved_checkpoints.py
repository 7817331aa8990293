"""The end of a checkpoint's translation in attach mode: shown once the app's saver saved it
(``engine.attach.confirm``), or why it is not in the app's database, then its superstep's end
and the session file's copy (``engine.attach.mirror``).

A sync run's stream thread hands that wait to the loop's inbox when nothing can stop on the
events (``engine.attach.pending_save``); otherwise it waits for the save itself, at the
latest before the run reports anything else (``AttachCallbacks.defer``).
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
from collections import deque
from collections.abc import Coroutine
from typing import Any

from engine.attach.callbacks import AttachCallbacks
from engine.attach.confirm import SaveWatch
from engine.attach.mirror import CheckpointMirror
from engine.attach.pending_save import PendingCopy, PendingSave
from engine.attach.save_outcome import unsaved_action
from engine.events import CheckpointSaved, MiddlewareAction

__all__ = ["COPIES_AHEAD", "CheckpointSaves"]

COPIES_AHEAD = 8
"""How many checkpoint copies a sync run's thread may queue for the session file before it
waits for the oldest to be written."""

_log = logging.getLogger("stepwise.attach")


class CheckpointSaves:
    """The translator's part that ends a checkpoint's translation (see the module docstring)."""

    cb: AttachCallbacks
    watch: SaveWatch | None
    durability: str
    queue_saves: bool
    mirrors: list[CheckpointMirror]
    parked: list[tuple[str, str, dict[str, Any]]]
    last_saved: dict[str, str]
    copies_ahead: deque[concurrent.futures.Future[None]]
    """The session copies queued and not written yet, oldest first (``COPIES_AHEAD``)."""

    def _queues(self, first: bool, meta: dict[str, Any]) -> bool:
        """Can this checkpoint's save be waited for by the loop's inbox, not this thread
        (``engine.attach.pending_save``)?  Only when it is waited for at all, nothing can stop
        on the events, the run is not being aborted, and the run is a sync one: an ``astream``
        run's loop reports its own events at once, and they would overtake what waits in the
        inbox (a node's end, before the end of the nested graph it ran on a worker thread)."""
        if not self.queue_saves:
            return False
        if self.durability == "exit" or (first and meta.get("source") != "input"):
            return False  # parked, or saved before the run
        cb = self.cb
        em = cb.em
        return cb.aborted is None and cb.deferred is None and not (em.gated and em.must_wait())

    def _saved_queued(
        self,
        ns: str,
        cid: str,
        fields: dict[str, Any],
        copy: dict[str, Any] | None,
    ) -> None:
        """``_saved`` for a checkpoint whose save the loop's inbox waits for: its event queued,
        then the superstep's end, on this thread as every event after it, then the session
        file's copy (made here, written on the loop if the save succeeds; ``copy``: what
        ``CheckpointMirror.prepare`` takes, None for no copy)."""
        assert self.watch is not None
        cb = self.cb
        step = fields["step"]
        em = cb._emitter(ns)
        PendingSave(
            self.watch, em, cid, fields, lambda: self.last_saved.__setitem__(ns, cid)
        ).queue()
        self._finish_here(cb.finish_step(ns, -1 if step is None else step))
        if not ns:
            cb.em.checkpoint_id = cid
        if copy is None:
            return
        for mirror in self.mirrors:
            try:
                made = mirror.prepare(**copy)
            except Exception as exc:  # the copy is for replay: never fail the app's run
                _log.warning("could not copy checkpoint %s into the session: %s", cid, exc)
                continue
            done: concurrent.futures.Future[None] = concurrent.futures.Future()
            PendingCopy(self.watch, em.inbox, mirror, made, copy, done=done).queue()
            self.copies_ahead.append(done)
        # at most a few copies ahead of the session file: each holds its checkpoint's new
        # messages and the events after it wait behind it (a long run must not pile them up)
        while len(self.copies_ahead) > COPIES_AHEAD:
            oldest = self.copies_ahead.popleft()
            if not oldest.done():
                em.inbox.kick()
                oldest.result()

    def _copy_of(
        self,
        ns: str,
        conf: dict[str, Any],
        parent_conf: dict[str, Any],
        meta: dict[str, Any],
        data: dict[str, Any],
        cid: Any,
        written: set[str],
    ) -> dict[str, Any] | None:
        """What ``CheckpointMirror.prepare`` takes for this checkpoint (None: no copy)."""
        thread = self.cb.em.thread_id
        if not cid or thread is None or not self.mirrors:
            return None
        return {
            "thread_id": thread,
            "ns": str(conf.get("checkpoint_ns") or ns),
            "checkpoint_id": str(cid),
            "parent_id": (parent_conf.get("configurable") or {}).get("checkpoint_id"),
            "values": data.get("values"),
            "metadata": {**meta, "run_id": self.cb.root_span},
            "written": written,
        }

    def _finish_here(self, saved: Coroutine[Any, Any, None]) -> None:
        """Run the end of a checkpoint's translation (``_saved``) to its end on this thread:
        it waits for the saver here (``SaveWatch.wait``), never on the loop."""
        try:
            saved.send(None)
        except StopIteration:
            return
        except Exception as exc:
            self.cb.abort(exc, "the 'checkpoints' stream")
            return
        saved.close()
        bug = RuntimeError("the translation of a checkpoint waited on the loop off the loop")
        self.cb.abort(bug, "the 'checkpoints' stream")

    async def _saved(
        self,
        ns: str,
        cid: Any,
        meta: dict[str, Any],
        first: bool,
        fields: dict[str, Any],
        copy: dict[str, Any] | None,
        *,
        block: bool = False,
    ) -> None:
        """The end of a checkpoint's translation: once its save is known, ``checkpoint.saved``
        (or why it is not), the superstep's end, the session's copy (``copy``: ``_copy_of``'s).
        ``block``: wait for the save on this thread, whichever it is (``_finish_here``)."""
        cb = self.cb
        parent, step = fields["parent_span_id"], fields["step"]
        number = -1 if step is None else step
        saving, failure = await self._saving(cid, meta, first, block=block)
        if saving == "failed":
            action, detail = unsaved_action(str(cid), step, failure)
            await cb._emit(
                MiddlewareAction,
                ns,
                parent_span_id=parent,
                step=step,
                middleware="checkpointer",
                action=action,
                detail=detail,
            )
        elif saving == "parked":
            self.parked.append((ns, str(cid), fields))
        else:
            await cb._emit(CheckpointSaved, ns, **fields)
            if cid:
                self.last_saved[ns] = str(cid)
        await cb.finish_step(ns, number)
        if not ns and cid:
            cb.em.checkpoint_id = str(cid)
        if saving == "saved":
            await self._mirror(copy, cid)

    async def _saving(
        self, cid: Any, meta: dict[str, Any], first: bool, *, block: bool = False
    ) -> tuple[str, Any]:
        """Has the app's saver saved this checkpoint: ``saved``, ``failed`` (with the error),
        or ``parked`` (it will be saved when the run ends, if at all)?  ``first``: the first
        checkpoint the run streams of its graph."""
        if self.watch is None or not cid:
            return "saved", None
        if first and meta.get("source") != "input":
            return "saved", None  # the checkpoint the run starts from: saved before it
        if self.durability == "exit":
            return "parked", None
        if block or not self._on_loop() or self.watch.settled(str(cid)):
            # translated on the thread of a sync run's stream (or known already)
            error = self.watch.wait(str(cid))
        else:
            error = await self.watch.result(str(cid))
        return ("saved", None) if error is None else ("failed", error)

    def _on_loop(self) -> bool:
        return threading.get_ident() == self.cb.em.loop_thread

    async def settle_parked(self) -> None:
        """The run is over: show the parked checkpoints its saver saved after all."""
        parked, self.parked = self.parked, []
        for ns, cid, fields in parked:
            if self.watch is not None and self.watch.was_saved(cid):
                await self.cb._emit(CheckpointSaved, ns, **fields)
                self.last_saved[ns] = cid

    async def _mirror(self, copy: dict[str, Any] | None, cid: Any) -> None:
        """The session file's copy of a saved checkpoint (``copy``: ``_copy_of``'s).  Off the
        loop it goes through the loop's inbox, after the copies queued before it
        (``PendingCopy``), and this thread waits for it."""
        if copy is None:
            return
        for mirror in self.mirrors:
            try:
                if self._on_loop():
                    await mirror.put(**copy)
                    continue
                done: concurrent.futures.Future[None] = concurrent.futures.Future()
                made = mirror.prepare(**copy)
                inbox = self.cb.em.inbox
                PendingCopy(self.watch, inbox, mirror, made, copy, saved=True, done=done).queue(
                    now=True
                )
                done.result()
            except Exception as exc:  # the copy is for replay: never fail the app's run
                _log.warning("could not copy checkpoint %s into the session: %s", cid, exc)
