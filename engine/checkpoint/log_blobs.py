"""How a growing log (``messages``, ``operator.add`` lists) is stored: a few blobs per read.

Each version of a log is stored as one blob: either the whole log (a *root*) or the items added
since an older version of the same log (its *base*).  Blobs are numbered along the chain from
the root (the root is 0, each later version one more).  Version ``k`` rests on version
``k - s``, where ``s`` is the largest power of ``SPAN`` dividing ``k`` (a Fenwick tree), and
holds every item added since then: most blobs hold one step's items, every ``SPAN``-th the last
``SPAN`` steps', every ``SPAN**2``-th the last ``SPAN**2`` steps', and so on.  Reading version
``k`` walks the root and one blob per unit of each digit of ``k`` in base ``SPAN`` (the
10,000th: 11 blobs; any of the first 65,536: at most 61), instead of one blob per step, and
each item is written about ``1 + log_SPAN(n)`` times (about 4 copies at 10,000 steps), never
re-encoded: a consolidating blob joins the texts of the blobs it replaces.

Text layout (valid JSON, with one item per line: a reader splits items without parsing them,
and compact JSON never holds a raw newline)::

    {"base":"<version>","k":<k>,"n":<items>,"append":[
    <item JSON>,
    <item JSON>
    ]}

and ``{"k":0,"n":<items>,"messages":[`` (or ``"list":[``) ... for a root.  Blobs written before
this layout (``{"append":[...],"base":"<version>"}``, ``{"messages":[...]}``, one line) are read
as they always were.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from engine.checkpoint.packing import chunks, inflate, inflate_chunk

__all__ = [
    "SPAN",
    "LogBlob",
    "Packed",
    "PackedItem",
    "Segment",
    "Tip",
    "base_of",
    "encode_log",
    "parse_log_blob",
    "parse_packed_log",
    "text_of",
]

SPAN = 16

_APPEND_HEAD = '{"base":"'
_OLD_HEAD = '{"append":'
_OLD_BASE_KEY = ',"base":"'


class Packed:
    """The items of a log blob stored packed (``engine.checkpoint.packing``), inflated when
    one of them is first needed (a long blob chunk by chunk): a cold read of a long log hands
    out its length at once and inflates only the parts of it that are read."""

    __slots__ = ("_data", "_items", "_n", "_parts", "_size")

    def __init__(self, data: bytes, n: int) -> None:
        self._data = data
        self._n = n
        self._size = 0  # lines per chunk (0: packed whole)
        self._parts: list[Any] = []  # the deflated chunks
        self._items: list[list[str] | None] = [None]

    def item(self, i: int) -> str:
        """Item ``i``'s text (``ValueError`` when the blob does not inflate or add up)."""
        if not self._parts and self._size == 0:
            chunked = chunks(self._data)
            if chunked is None:
                self._parts = [None]
                self._size = max(self._n, 1)
            else:
                self._size, self._parts = chunked
                if len(self._parts) != -(-self._n // self._size):
                    raise ValueError(f"a packed log blob whose chunks do not hold {self._n} items")
                self._items = [None] * len(self._parts)
        c = i // self._size
        got = self._items[c]
        if got is None:
            got = self._items[c] = self._inflate(c)
        return got[i - c * self._size]

    def _inflate(self, c: int) -> list[str]:
        part = self._parts[c]
        if part is None:  # packed whole
            rest = inflate(self._data)
            if not rest.endswith("]}"):
                raise ValueError("a packed log blob without its end")
            body = rest[:-3] if len(rest) > 2 else ""
        else:
            body = inflate_chunk(part)
        lines = body.split("\n") if body else []
        want = min(self._size, self._n - c * self._size)
        if len(lines) != want:
            raise ValueError(f"a log blob of {len(lines)} items where it says {want}")
        return lines

    def body(self) -> str:
        return "\n".join(self.item(i) for i in range(self._n))


class PackedItem:
    """A slot of a lazy list for an item of a packed blob: its text when asked."""

    __slots__ = ("_at", "_of")

    def __init__(self, of: Packed, at: int) -> None:
        self._of, self._at = of, at

    def text(self) -> str:
        return self._of.item(self._at)


def text_of(item: str | PackedItem) -> str:
    """An item's stored text, inflating its blob if it is packed."""
    return item if isinstance(item, str) else item.text()


@dataclass(slots=True)
class Segment:
    """A blob on the chain of a log's newest version: its number, version, the log's length
    at that version, and its items' texts joined by ``,\\n`` (the root's are not kept; a
    packed blob's are inflated when a later blob joins them)."""

    k: int
    version: str
    end: int
    body: str | Packed


@dataclass(slots=True)
class Tip:
    """What a saver remembers of the newest version it wrote (or read) of a log: the blobs a
    read of it walks, root first (the next blob replaces the newest of them)."""

    version: str
    value: Any  # the AppendLog at that version
    chain: list[Segment]
    added: list[str] = field(default_factory=list)
    """The texts of the items this version added (when it was written as an append blob):
    its blob's last items (pending writes may refer to them)."""

    @classmethod
    def root(cls, version: str, value: Any) -> Tip:
        return cls(version, value, [Segment(0, version, len(value), "")])


@dataclass(slots=True)
class LogBlob:
    """A log blob in this module's layout, split but not parsed."""

    kind: str  # "append", "messages" or "list"
    base: str | None
    k: int
    body: str | Packed
    items: list[str] | list[PackedItem]  # one JSON text per item (each but a blob's last
    # ends with a comma), or placeholders of them (a packed blob, inflated when first read)


def _texts(items: list[Any], encode: Any) -> list[str]:
    return [json.dumps(encode(x), separators=(",", ":"), ensure_ascii=False) for x in items]


def item_texts(items: list[Any], encode: Any) -> str:
    """The items' compact JSON texts joined by ``,\\n``."""
    return ",\n".join(_texts(items, encode))


def _blob(head: str, body: str) -> str:
    return head + "[\n" + (body + "\n" if body else "") + "]}"


def encode_log(tip: Tip | None, version: str, value: Any, encode: Any) -> tuple[str, Tip]:
    """The blob of ``value`` (an ``AppendLog``) at ``version``, and the new tip."""
    if tip is not None and tip.version != version and value.extends(tip.value):
        k = tip.chain[-1].k + 1
        span = 1
        while k % (span * SPAN) == 0:
            span *= SPAN
        chain = list(tip.chain)
        bodies: list[str] = []
        while len(chain) > 1 and chain[-1].k > k - span:
            b = chain.pop().body
            bodies.append(b if isinstance(b, str) else b.body())
        base = chain[-1]
        bodies.reverse()
        added = _texts(value.delta_since(tip.value), encode)
        bodies.append(",\n".join(added))
        body = ",\n".join(b for b in bodies if b)
        n = len(value) - base.end
        head = f'{{"base":{json.dumps(base.version)},"k":{k},"n":{n},"append":'
        chain.append(Segment(k, version, len(value), body))
        return _blob(head, body), Tip(version, value, chain, added)
    key = "messages" if hasattr(value, "id_position") else "list"
    body = item_texts(list(value), encode)
    return _blob(f'{{"k":0,"n":{len(value)},"{key}":', body), Tip.root(version, value)


def parse_log_blob(text: str) -> LogBlob | None:
    """The blob split into its items' texts, or None for a blob not in this layout (the caller
    parses it whole).  ``ValueError`` for a blob in this layout that does not add up."""
    if not text.startswith(('{"base":', '{"k":')) or not text.endswith("\n]}"):
        return None
    nl = text.find("\n")
    kind, base, k, n = _head(text[:nl])
    body = text[nl + 1 : -3] if len(text) > nl + 3 else ""
    items = body.split("\n") if body else []
    if len(items) != n:
        raise ValueError(f"a log blob of {len(items)} items where it says {n}")
    return LogBlob(kind, base, k, body, items)


def parse_packed_log(data: bytes) -> LogBlob | None:
    """A packed log blob read from its head, its items left packed (``Packed``); None for
    packed bytes that are not a log blob in this layout (the caller unpacks them whole)."""
    nl = data.find(b"\n")
    first = data[:nl].decode(errors="replace") if nl > 0 else ""
    if not first.startswith(('{"base":', '{"k":')):
        return None
    kind, base, k, n = _head(first)
    packed = Packed(data, n)
    return LogBlob(kind, base, k, packed, [PackedItem(packed, i) for i in range(n)])


def _head(first: str) -> tuple[str, str | None, int, int]:
    """kind, base, number and item count from a log blob's first line."""
    head = json.loads(first + "]}")
    kind = next((key for key in ("append", "messages", "list") if key in head), None)
    if kind is None or not isinstance(head.get("k"), int) or not isinstance(head.get("n"), int):
        raise ValueError("a log blob without its kind, number or count")
    base = head.get("base") if kind == "append" else None
    if kind == "append" and not isinstance(base, str):
        raise ValueError("an append blob without its base")
    return kind, base, head["k"], head["n"]


def base_of(text: str) -> str | None:
    """The base version of an append blob, read without parsing its items; None for a root or
    any other text.  A quote inside a version is escaped, so the first quote after the
    head's opening one closes it; in the older layout ``,"base":"`` cannot occur inside a
    JSON string, so its last occurrence is the blob's own last member."""
    if text.startswith(_APPEND_HEAD):
        end = text.find('"', len(_APPEND_HEAD))
        base = text[len(_APPEND_HEAD) : end] if end > 0 else ""
        return base if base and "\\" not in base else None
    if not (text.startswith(_OLD_HEAD) and text.endswith('"}')):
        return None
    i = text.rfind(_OLD_BASE_KEY)
    if i < 0:
        return None
    base = text[i + len(_OLD_BASE_KEY) : -2]
    return None if '"' in base or "\\" in base else base
