"""Text the CLI prints, made safe for a terminal: characters a terminal acts on are shown, not
obeyed.

A model picks tool names, a server writes error messages, a session file holds whatever it was
given: printed raw, an ``ESC ]52`` sequence writes the clipboard, ``ESC ]0`` sets the window
title, ``ESC [2J`` clears the screen, ``\\r`` overwrites a line and U+202E turns text around.
``terminal_safe`` writes every such character as a visible escape (``\\x1b``, ``\\u202e``):
the C0 controls but newline and tab, DEL, the C1 controls, and the bidirectional overrides,
embeddings, isolates and marks.  ``json_safe`` does the same to JSON text with JSON's own
``\\uXXXX`` escapes, so the data stays the same.
"""

from __future__ import annotations

import re

__all__ = ["json_safe", "styled_safe", "terminal_safe"]

_BIDI = "\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")
_UNSAFE_ONE_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")
_SGR = re.compile(r"\x1b\[[0-9;]*m")
"""A colour sequence (the tree's own colours; ``styled_safe`` keeps them)."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str, *, one_line: bool = False) -> str:
    """``text`` with every character a terminal would act on written as an escape
    (``one_line``: newlines and tabs too)."""
    pattern = _UNSAFE_ONE_LINE if one_line else _UNSAFE
    return pattern.sub(_escape, text) if pattern.search(text) else text


def styled_safe(line: str) -> str:
    """``terminal_safe`` for a line coloured by the CLI: its colour sequences are kept."""
    if "\x1b" not in line:
        return terminal_safe(line)
    parts = _SGR.split(line)
    codes = _SGR.findall(line)
    out = [terminal_safe(parts[0])]
    for code, part in zip(codes, parts[1:], strict=True):
        out += [code, terminal_safe(part)]
    return "".join(out)


def json_safe(text: str) -> str:
    """JSON text with the characters a terminal acts on written as ``\\uXXXX`` (valid JSON,
    the same data: raw, they can only stand inside strings)."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if _UNSAFE.search(text) else text
