"""One run per thread in a saver's own process: ``ThreadLeases``, the lease half of
``BaseCheckpointSaver`` (a saver that keeps a file shares its leases with other processes:
``engine.checkpoint.leases``)."""

from __future__ import annotations

import threading

from engine.errors import ThreadBusyError

__all__ = ["ThreadLeases"]


class ThreadLeases:
    """Which run holds which thread (``_leases``, guarded by ``_lease_lock``: set by the
    saver's ``__init__``); a saver keeping a file overrides ``_acquire_lease`` /
    ``_release_lease`` / ``lease_holder``."""

    _leases: dict[str, str]
    _lease_lock: threading.Lock

    def _acquire_lease(self, thread_id: str, owner: str) -> str | None:
        """Take the thread for a run; returns the current owner if someone else holds it."""
        with self._lease_lock:
            holder = self._leases.get(thread_id)
            if holder is not None and holder != owner:
                return holder
            self._leases[thread_id] = owner
            return None

    def _release_lease(self, thread_id: str, owner: str) -> None:
        with self._lease_lock:
            if self._leases.get(thread_id) == owner:
                del self._leases[thread_id]

    def lease_holder(self, thread_id: str) -> str | None:
        """The run currently holding the thread, if any."""
        with self._lease_lock:
            return self._leases.get(thread_id)

    def _unlock_hint(self, thread_id: str) -> str:
        return ""

    def acquire_thread(self, thread_id: str, run_id: str) -> None:
        holder = self._acquire_lease(thread_id, run_id)
        if holder is not None:
            raise ThreadBusyError(
                f"Thread '{thread_id}' is already being run (run {holder}). "
                "Wait for that run to finish, or stop it, before starting another run on the same thread."
                + self._unlock_hint(thread_id)
            )

    def check_thread_free(self, thread_id: str, action: str, *, own_run: str | None = None) -> None:
        """``ThreadBusyError`` if a run other than ``own_run`` holds the thread (for ``action``)."""
        holder = self.lease_holder(thread_id)
        if holder is not None and holder != own_run:
            raise ThreadBusyError(
                f"Thread '{thread_id}' is being run (run {holder}): {action} now would be lost "
                "on a side branch. Wait for the run to finish (or pause at an interrupt), or stop it."
                + self._unlock_hint(thread_id)
            )

    def release_thread(self, thread_id: str, run_id: str) -> None:
        self._release_lease(thread_id, run_id)
