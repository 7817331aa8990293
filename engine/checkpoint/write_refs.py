"""Pending writes kept by reference to the message log blob that holds the same items.

A checkpoint's pending writes stay with it (what its tasks did: the history shows them, time
travel re-runs from them).  A task's write to a log channel (``messages``) is, item for item,
what the next checkpoint's blob of that channel appends: storing both doubled a thread's
messages on disk.  When the next checkpoint is saved, each such write whose stored text is
exactly the text of items its blob appended is replaced by a reference to them::

    \\x01{"ch":"messages","v":"<version>","back":<from the blob's end>,"n":<items>}

``back`` counts items from the blob's end to the write's first (a blob's appended items are
its last ones, in either layout); ``"n": null``: the write was one item, not a list;
``"cut": [[item, start, length]]``: the written item had no ``"id"`` member, the reducer gave
it one, and it is taken out again when read.  A blob never changes once written, so the
reference stays good; a write stored again later (a task run again) replaces it with its own
text.  A JSON text never starts with that control character, so a reference is never taken
for a value, and a write that is not matched keeps its text.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass

from engine.checkpoint.log_blobs import PackedItem, parse_log_blob, parse_packed_log, text_of
from engine.checkpoint.packing import unpack

__all__ = ["REF_MARK", "FreshWrites", "WriteRef", "find_refs", "parse_ref"]

REF_MARK = "\x01"


@dataclass(frozen=True, slots=True)
class WriteRef:
    """Where a write's items are: in the blob of ``channel`` at ``version``, ``n`` items from
    the ``back``-th last on (``n`` None: the write was that one item).  Counted from the end:
    the items a blob appended are its last ones, in either layout."""

    channel: str
    version: str
    back: int
    n: int | None
    cuts: tuple[tuple[int, int, int], ...] = ()
    """(item, start, length): an ``"id"`` member the write's item did not have."""

    def text(self) -> str:
        ref: dict[str, object] = {
            "ch": self.channel,
            "v": self.version,
            "back": self.back,
            "n": self.n,
        }
        if self.cuts:
            ref["cut"] = [list(c) for c in self.cuts]
        return REF_MARK + json.dumps(ref, separators=(",", ":"), ensure_ascii=False)

    def texts_in(self, stored: str | bytes) -> list[str]:
        """The write's item texts, from the blob as stored (``ValueError``: not there)."""
        if isinstance(stored, bytes):  # only the chunks holding the write's items inflate
            packed = parse_packed_log(stored)
            if packed is not None:
                return self.texts(packed.items)
        text = unpack(stored)
        blob = parse_log_blob(text)
        if blob is not None:
            return self.texts(blob.items)
        # a blob in the older layout: its items' compact texts read the same
        data = json.loads(text)
        old = next((data[k] for k in ("append", "messages", "list") if k in data), None)
        if not isinstance(old, list):
            raise ValueError(f"the blob of '{self.channel}' at {self.version} is not a log")
        return self.texts([json.dumps(x, separators=(",", ":"), ensure_ascii=False) for x in old])

    def texts(self, items: list[str] | list[PackedItem]) -> list[str]:
        """The write's item texts, from the blob's (``ValueError``: not there)."""
        count = 1 if self.n is None else self.n
        at = len(items) - self.back
        if at < 0 or at + count > len(items):
            raise ValueError(
                f"the blob of '{self.channel}' at {self.version} does not hold its items"
            )
        out = [text_of(t).rstrip(",") for t in items[at : at + count]]
        for j, start, length in self.cuts:
            out[j] = without_cut(out[j], (start, length))
        return out


def parse_ref(text: str) -> WriteRef | None:
    """The reference ``text`` holds, or None for a write stored as its own text;
    ``ValueError`` for a reference that does not read."""
    if not text.startswith(REF_MARK):
        return None
    try:
        data = json.loads(text[1:])
        cuts = tuple((int(j), int(a), int(b)) for j, a, b in data.get("cut", ()))
        ref = WriteRef(str(data["ch"]), str(data["v"]), int(data["back"]), data["n"], cuts)
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"a pending write's reference that does not read: {exc}") from exc
    count = 1 if ref.n is None else ref.n
    if ref.back < count or not (ref.n is None or (isinstance(ref.n, int) and ref.n > 0)):
        raise ValueError("a pending write's reference out of range")
    if any(not 0 <= j < count or a < 0 or b <= 0 for j, a, b in cuts):
        raise ValueError("a pending write's reference cuts out of range")
    return ref


class FreshWrites:
    """The pending writes a saver stored for each thread's newest checkpoint, kept until the
    next checkpoint of the thread is saved (which may refer to them)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # (thread, ns) -> (checkpoint id, {(task id, idx): (channel, text)})
        self._held: dict[tuple[str, str], tuple[str, dict[tuple[str, int], tuple[str, str]]]] = {}

    def hold(
        self,
        thread_id: str,
        ns: str,
        checkpoint_id: str,
        task_id: str,
        rows: list[tuple[int, str, str]],
    ) -> None:
        """Keep a task's writes ``(idx, channel, text)`` to ``checkpoint_id``."""
        with self._lock:
            held = self._held.get((thread_id, ns))
            if held is None or held[0] != checkpoint_id:
                held = self._held[(thread_id, ns)] = (checkpoint_id, {})
            for idx, ch, text in rows:
                held[1][(task_id, idx)] = (ch, text)

    def take(
        self, thread_id: str, ns: str, checkpoint_id: str | None
    ) -> list[tuple[str, int, str, str]]:
        """The writes kept for ``checkpoint_id`` (the parent of the checkpoint being saved)
        as ``(task_id, idx, channel, text)``, forgotten here (the next checkpoint refers to
        them at most once)."""
        with self._lock:
            held = self._held.get((thread_id, ns))
            if held is None or held[0] != checkpoint_id:
                return []
            del self._held[(thread_id, ns)]
        return [(t, i, ch, text) for (t, i), (ch, text) in held[1].items()]

    def forget(self, thread_id: str) -> None:
        with self._lock:
            for key in [k for k in self._held if k[0] == thread_id]:
                del self._held[key]


def find_refs(
    writes: list[tuple[str, int, str, str]],
    channel: str,
    version: str,
    added: list[str],
) -> list[tuple[str, int, str, str]]:
    """``(task_id, idx, old text, reference)`` for each of ``writes`` (``(task_id, idx,
    channel, text)``) to ``channel`` whose text is a run of ``added`` (the texts of the items
    the blob of ``channel`` at ``version`` appended, its last ones): as a list
    (``[a,b]``) or one item, each item as the blob holds it or without the ``"id"`` the
    reducer gave it.  Each item is claimed by one write at most."""
    if not added:
        return []
    out: list[tuple[str, int, str, str]] = []
    claimed: set[int] = set()
    for task_id, idx, ch, text in writes:
        if ch != channel or len(text) < 2:
            continue
        hit = _match(text, added, claimed)
        if hit is None:
            continue
        start, n, cuts = hit
        claimed.update(range(start, start + (n or 1)))
        ref = WriteRef(channel, version, len(added) - start, n, tuple(cuts))
        out.append((task_id, idx, text, ref.text()))
    return out


def without_cut(text: str, cut: tuple[int, int] | None) -> str:
    """``text`` without the ``cut`` (start, length) taken out of it."""
    return text if cut is None else text[: cut[0]] + text[cut[0] + cut[1] :]


_ID_KEY = '"id":"'


def _item_at(inner: str, pos: int, item: str) -> tuple[int, tuple[int, int] | None] | None:
    """The length ``item`` takes in ``inner`` at ``pos``, as it is or without one
    ``"id":"...",`` member, and that cut (None: as it is)."""
    if inner.startswith(item, pos):
        return len(item), None
    p = item.find(_ID_KEY)
    while p >= 0:
        q = item.find('"', p + len(_ID_KEY))
        if q > 0 and item.startswith('",', q):
            cut = (p, q + 2 - p)
            bare = without_cut(item, cut)
            if inner.startswith(bare, pos):
                return len(bare), cut
        p = item.find(_ID_KEY, p + 1)
    return None


def _match(
    text: str, added: list[str], claimed: set[int]
) -> tuple[int, int | None, list[tuple[int, int, int]]] | None:
    """Where ``text`` is a run of ``added`` not ``claimed`` yet: (start, count, cuts), count
    None for one item written bare, each cut (item, start, length) an id taken out."""
    if text[0] != "[":
        for i in range(len(added)):
            if i in claimed:
                continue
            hit = _item_at(text, 0, added[i])
            if hit is not None and hit[0] == len(text):
                return i, None, [] if hit[1] is None else [(0, *hit[1])]
        return None
    if text[-1] != "]":
        return None
    inner = text[1:-1]
    for i in range(len(added)):
        pos, j, cuts = 0, i, []
        while j < len(added) and j not in claimed:
            if j > i:
                if not inner.startswith(",", pos):
                    break
                pos += 1
            hit = _item_at(inner, pos, added[j])
            if hit is None:
                break
            if hit[1] is not None:
                cuts.append((j - i, *hit[1]))
            pos += hit[0]
            j += 1
            if pos == len(inner):
                return i, j - i, cuts
    return None
