"""Long stored texts deflated: a SQLite saver keeps a long blob as bytes, its first line readable.

A checkpoint file's bulk is JSON: message logs (``engine.checkpoint.log_blobs``), whose
consolidating blobs repeat the last 16, 256, ... steps' messages, and channel values.  A text
of at least ``PACK_FROM`` characters is stored as a SQLite BLOB (the column's other rows stay
TEXT, so a file of either kind reads with the same code): its first line as UTF-8 (a log blob's
head, naming its base, so a chain is followed without inflating anything), a newline, then
the rest of the text deflated (``zlib``).  A text of one line (``{"value": ...}``) is stored as
a newline and the whole text deflated.  Only a text that deflating makes shorter is packed.

A log blob of more than ``CHUNK`` items (one per line) is deflated in chunks of ``CHUNK`` lines,
each on its own, with a line listing their lengths after its head (``{"g":64,"z":[...]}``): a
view of a long log's first messages inflates one chunk, not the blob of the last 4,096 steps.
A deflated stream never starts with ``{``, so the two forms are told apart.
"""

from __future__ import annotations

import json
import zlib

__all__ = [
    "CHUNK",
    "PACK_BODY_FROM",
    "PACK_FROM",
    "chunks",
    "head",
    "inflate",
    "inflate_chunk",
    "pack",
    "unpack",
]

CHUNK = 64
"""Lines of a long log blob deflated together."""

_LOG_HEADS = ('{"base":', '{"k":')

PACK_FROM = 200
"""Texts shorter than this stay as they are (deflating them saves little and costs a call)."""

PACK_BODY_FROM = 160
"""A checkpoint row's body (its channel versions, what each node saw) is packed from this
length: its version strings repeat, it deflates to about half."""

_LEVEL = 6

_SMALL = 4096
"""A text shorter than this is deflated with a small window (4 KiB, and little memory):
setting up the default 32 KiB window costs far more than deflating a few hundred bytes."""


def _deflate(raw: bytes) -> bytes:
    if len(raw) >= _SMALL:
        return zlib.compress(raw, _LEVEL)
    z = zlib.compressobj(_LEVEL, zlib.DEFLATED, 12, 4)
    return z.compress(raw) + z.flush()


def pack(text: str, least: int = PACK_FROM) -> str | bytes:
    """``text`` as it is stored: itself when shorter than ``least``, else its packed bytes
    (when that is shorter)."""
    if len(text) < least:
        return text
    nl = text.find("\n")
    first, rest = ("", text) if nl < 0 else (text[:nl], text[nl + 1 :])
    raw = rest.encode()
    if first.startswith(_LOG_HEADS) and rest.endswith("\n]}") and rest.count("\n") > CHUNK:
        lines = rest[:-3].split("\n")
        parts = [
            _deflate("\n".join(lines[i : i + CHUNK]).encode()) for i in range(0, len(lines), CHUNK)
        ]
        index = json.dumps({"g": CHUNK, "z": [len(c) for c in parts]}, separators=(",", ":"))
        packed = b"\n".join((first.encode(), index.encode(), b"".join(parts)))
    else:
        packed = first.encode() + b"\n" + _deflate(raw)
    return packed if len(packed) < len(first) + 1 + len(raw) else text


def unpack(data: str | bytes) -> str:
    """The text ``pack`` stored as ``data`` (a text is returned as it is); ``ValueError`` for
    bytes that are not a packed text."""
    if isinstance(data, str):
        return data
    nl = data.find(b"\n")
    if nl < 0:
        raise ValueError("a stored blob that is neither text nor a packed text")
    rest = inflate(data)
    try:
        first = data[:nl].decode()
    except UnicodeDecodeError as exc:
        raise ValueError(f"a packed blob whose first line is not text: {exc}") from exc
    return first + "\n" + rest if nl else rest


def inflate(data: bytes) -> str:
    """The rest of a packed text: what follows its first line (``ValueError``: it does not
    inflate)."""
    chunked = chunks(data)
    if chunked is not None:
        return "\n".join(inflate_chunk(c) for c in chunked[1]) + "\n]}"
    nl = data.find(b"\n")
    return inflate_chunk(memoryview(data)[nl + 1 :])


def inflate_chunk(deflated: bytes | memoryview) -> str:
    """One deflated stream's text (``ValueError``: it does not inflate)."""
    try:
        return zlib.decompress(deflated).decode()
    except (zlib.error, UnicodeDecodeError) as exc:
        raise ValueError(f"a packed blob that does not inflate: {exc}") from exc


def chunks(data: bytes) -> tuple[int, list[memoryview]] | None:
    """A log blob packed in chunks: lines per chunk and each chunk, deflated; None for a
    blob packed whole.  ``ValueError`` for a chunk list that does not add up."""
    nl = data.find(b"\n")
    if data[nl + 1 : nl + 2] != b"{":
        return None
    end = data.find(b"\n", nl + 1)
    try:
        index = json.loads(data[nl + 1 : end])
        size, lengths = int(index["g"]), [int(z) for z in index["z"]]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"a packed blob whose chunk list does not read: {exc}") from exc
    view, at, out = memoryview(data), end + 1, []
    for z in lengths:
        out.append(view[at : at + z])
        at += z
    if end < 0 or size <= 0 or at != len(data):
        raise ValueError("a packed blob whose chunks do not add up")
    return size, out


def head(data: str | bytes) -> str:
    """The start of the stored text, enough to read a log blob's base: a text itself, or a
    packed text's first line (its head) without inflating the rest."""
    if isinstance(data, str):
        return data
    nl = data.find(b"\n")
    return data[:nl].decode(errors="replace") if nl > 0 else ""
