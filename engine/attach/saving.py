"""The end of a checkpoint's translation in an attached run: once the app's saver has saved
it (``confirm.SaveWatch``), ``checkpoint.saved`` (or the notice that it was not saved), the
superstep's end and the session's copy (``StreamTranslator``'s part that waits for saves).

A sync run's stream thread either waits for the save at the next thing the run reports
(``HandlerBase.defer``), or, when nothing gates its events, goes on at once while the loop's
inbox holds ``checkpoint.saved`` until the save is known (``_saved_later``)."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Coroutine
from typing import Any

from engine.attach.callbacks import AttachCallbacks
from engine.attach.confirm import SaveWatch
from engine.attach.mirror import CheckpointMirror
from engine.events import CheckpointSaved, MiddlewareAction

__all__ = ["CheckpointSaving", "not_saved"]

_log = logging.getLogger("stepwise.attach")


def not_saved(parent: Any, step: int | None, cid: Any, error: Any) -> dict[str, Any]:
    """The fields of the notice that the app's checkpointer did not save checkpoint ``cid``."""
    return {
        "parent_span_id": parent,
        "step": step,
        "middleware": "checkpointer",
        "action": "checkpoint_not_saved",
        "detail": {
            "checkpoint_id": str(cid),
            "step": step,
            "error": f"{type(error).__name__}: {str(error).strip()[:300]}",
            "message": "the app's checkpointer failed to save this checkpoint: "
            "it is not in the app's database",
        },
    }


class CheckpointSaving:
    """What ``StreamTranslator`` does once a checkpoint's save is known (see the module
    docstring)."""

    cb: AttachCallbacks
    watch: SaveWatch | None
    durability: str
    parked: list[tuple[str, str, dict[str, Any]]]
    last_saved: dict[str, str]
    mirrors: list[CheckpointMirror]

    def _hands_over(self) -> bool:
        """May the stream's thread go on without waiting for a checkpoint's save: nothing
        gates its events (no breakpoint, step, pause or stop could stop on them, no consumer
        pushes back), no session keeps a copy of the checkpoint, and the run is not being
        aborted?  Then ``checkpoint.saved`` (or why it is not) waits in the loop's inbox for
        the save, and what the thread hands over after it waits behind it (``_saved_later``)."""
        cb = self.cb
        em = cb.em
        return (
            not self.mirrors
            and cb.aborted is None
            and em.active
            and not (em.gated and em.must_wait())
        )

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
        conf: dict[str, Any],
        parent_conf: dict[str, Any],
        meta: dict[str, Any],
        data: dict[str, Any],
        cid: Any,
        first: bool,
        fields: dict[str, Any],
        written: set[str],
        *,
        block: bool = False,
    ) -> None:
        """The end of a checkpoint's translation: once its save is known, ``checkpoint.saved``
        (or why it is not), the superstep's end, the session's copy.  ``block``: wait for the
        save on this thread, whichever it is (``_finish_here``)."""
        cb = self.cb
        parent, step = fields["parent_span_id"], fields["step"]
        number = -1 if step is None else step
        saving, failure = await self._saving(cid, meta, first, block=block)
        if saving == "failed":
            await cb._emit(MiddlewareAction, ns, **not_saved(parent, step, cid, failure))
        elif saving == "pending":
            self._saved_later(ns, str(cid), fields)
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
            await self._mirror(ns, conf, parent_conf, meta, data, cid, written)

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
        if not block and not self._on_loop() and not self.watch.settled(str(cid)):
            return "pending", None  # ``_hands_over``: the loop shows it once saved
        if block or not self._on_loop() or self.watch.settled(str(cid)):
            # translated on the thread of a sync run's stream (or known already)
            error = self.watch.wait(str(cid))
        else:
            error = await self.watch.result(str(cid))
        return ("saved", None) if error is None else ("failed", error)

    def _saved_later(self, ns: str, cid: str, fields: dict[str, Any]) -> None:
        """``checkpoint.saved`` built now (its envelope as the translation left it) and
        handed to the loop, which delivers it once the save is known, or the notice that the
        app's checkpointer did not save it (``_hands_over``)."""
        watch = self.watch
        assert watch is not None
        em = self.cb._emitter(ns)
        saved = em.build(CheckpointSaved, **fields)
        envelope = em.checkpoint_id

        def deliver() -> None:
            error = watch.wait(cid)  # known by now: returns at once
            if error is None:
                em.deliver_built(saved)
                self.last_saved[ns] = cid
            else:
                step = fields["step"]
                notice = not_saved(fields["parent_span_id"], step, cid, error)
                em.deliver_built(em.build(MiddlewareAction, checkpoint_id=envelope, **notice))

        em.deliver_when(lambda: watch.settled(cid) or watch.sealed, deliver)

    def _on_loop(self) -> bool:
        return threading.get_ident() == self.cb.em.loop_thread

    async def settle_parked(self) -> None:
        """The run is over: show the parked checkpoints its saver saved after all."""
        parked, self.parked = self.parked, []
        for ns, cid, fields in parked:
            if self.watch is not None and self.watch.was_saved(cid):
                await self.cb._emit(CheckpointSaved, ns, **fields)
                self.last_saved[ns] = cid

    async def _mirror(
        self,
        ns: str,
        conf: dict[str, Any],
        parent_conf: dict[str, Any],
        meta: dict[str, Any],
        data: dict[str, Any],
        cid: Any,
        written: set[str],
    ) -> None:
        thread = self.cb.em.thread_id
        if not cid or thread is None:
            return
        for mirror in self.mirrors:
            try:
                put = mirror.put(
                    thread_id=thread,
                    ns=str(conf.get("checkpoint_ns") or ns),
                    checkpoint_id=str(cid),
                    parent_id=(parent_conf.get("configurable") or {}).get("checkpoint_id"),
                    values=data.get("values"),
                    metadata={**meta, "run_id": self.cb.root_span},
                    written=written,
                )
                if self._on_loop():
                    await put
                else:  # the session's saver lives on the loop
                    asyncio.run_coroutine_threadsafe(put, self.cb.em.loop).result()
            except Exception as exc:  # the copy is for replay: never fail the app's run
                _log.warning("could not copy checkpoint %s into the session: %s", cid, exc)
