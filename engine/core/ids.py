"""Identifiers: time-ordered checkpoint ids, run ids and short span ids."""

from __future__ import annotations

import hashlib
import itertools
import os
import threading
import time
import uuid

__all__ = ["deterministic_id", "new_run_id", "new_span_id", "uuid7"]

_lock = threading.Lock()
_last_ms = 0
_counter = 0
_span_counter = itertools.count(1)
_span_prefix = os.urandom(3).hex()


def uuid7() -> str:
    """A UUIDv7 string, strictly increasing within this process (sorting = creation order)."""
    global _last_ms, _counter
    with _lock:
        ms = time.time_ns() // 1_000_000
        if ms <= _last_ms:
            ms = _last_ms
            _counter += 1
            if _counter >= 1 << 12:
                ms += 1
                _counter = 0
        else:
            _counter = 0
        _last_ms = ms
        counter = _counter
    rand = int.from_bytes(os.urandom(8), "big") & ((1 << 62) - 1)
    value = (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | counter << 64 | 0b10 << 62 | rand
    return str(uuid.UUID(int=value))


def new_run_id() -> str:
    return uuid7()


def new_span_id() -> str:
    """Short, unique within the process; cheap enough to mint for every span."""
    return f"{_span_prefix}{next(_span_counter):x}"


def deterministic_id(*parts: object) -> str:
    """A stable 32-hex-digit id from its parts (task ids, interrupt ids)."""
    h = hashlib.blake2b(digest_size=16)
    for p in parts:
        h.update(str(p).encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()
