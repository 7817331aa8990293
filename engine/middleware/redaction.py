"""Finding and rewriting sensitive values in text: the detectors and strategies of ``PIIMiddleware``.

A *detector* maps a string to the ``PIIMatch`` spans it finds (``type``, ``value``, ``start``,
``end``). Built-in detectors: ``email``, ``credit_card`` (16 digits, optionally grouped by
spaces or dashes, that pass the Luhn checksum), ``ip`` (IPv4, validated by ``ipaddress``),
``mac_address`` and ``url`` (``http(s)://...``, or a bare host that starts with ``www.`` or has a
path). A custom detector is a regex string or a callable; a callable may return plain dicts and
may name the matched text ``text`` instead of ``value`` (both are normalized).

A *strategy* says what happens to the matches:

- ``redact``: ``[REDACTED_<TYPE>]``;
- ``mask``: keep a recognizable tail (``user@****.com``, ``****-****-****-1234``,
  ``*.*.*.42``, ``**:**:**:**:**:ff``, ``[MASKED_URL]``, else ``****`` + last 4 chars);
- ``hash``: ``<type_hash:first 8 hex of sha256(value)>`` (stable, so equal values stay equal);
- ``block``: raise ``PIIDetectionError`` (carrying the type and the matches).
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias
from urllib.parse import urlsplit

from typing_extensions import TypedDict

__all__ = [
    "BUILTIN_DETECTORS",
    "Detector",
    "PIIDetectionError",
    "PIIMatch",
    "RedactionRule",
    "RedactionStrategy",
    "ResolvedRedactionRule",
    "apply_strategy",
    "detect_credit_card",
    "detect_email",
    "detect_ip",
    "detect_mac_address",
    "detect_url",
    "resolve_detector",
]

RedactionStrategy: TypeAlias = Literal["block", "redact", "mask", "hash"]


class PIIMatch(TypedDict):
    """One sensitive value found in a text: its type, the text itself and its span."""

    type: str
    value: str
    start: int
    end: int


class PIIDetectionError(Exception):
    """Raised by the ``block`` strategy when sensitive values are found."""

    def __init__(self, pii_type: str, matches: Sequence[PIIMatch]) -> None:
        self.pii_type = pii_type
        self.matches: list[PIIMatch] = list(matches)
        super().__init__(f"Detected {len(self.matches)} instance(s) of {pii_type} in text content")


Detector: TypeAlias = Callable[[str], list[PIIMatch]]


def _matches(pii_type: str, pattern: re.Pattern[str], text: str) -> list[PIIMatch]:
    return [
        PIIMatch(type=pii_type, value=m.group(), start=m.start(), end=m.end())
        for m in pattern.finditer(text)
    ]


# --- built-in detectors -----------------------------------------------------------------

_EMAIL = re.compile(r"\b[\w.%+-]+@[A-Za-z0-9.-]+\.[A-Za-z|]{2,}\b", re.ASCII)
_CARD = re.compile(r"\b\d{4}(?:[\s-]?\d{4}){3}\b")
_IPV4 = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b", re.ASCII)
_MAC = re.compile(r"\b(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}\b")
_URL_WITH_SCHEME = re.compile(r"https?://[^\s<>\"{}|\\^`\[\]]+")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_BARE_URL = re.compile(rf"\b(?:www\.)?{_LABEL}(?:\.{_LABEL})+(?:/\S*)?")


def detect_email(content: str) -> list[PIIMatch]:
    """Email addresses."""
    return _matches("email", _EMAIL, content)


def luhn_valid(number: str) -> bool:
    """True if the digits of ``number`` (13 to 19 of them) pass the Luhn checksum."""
    digits = [int(c) for c in number if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for position, digit in enumerate(reversed(digits)):
        if position % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def detect_credit_card(content: str) -> list[PIIMatch]:
    """Card numbers: 16 digits (grouped by 4 with spaces/dashes or not) passing Luhn."""
    return [m for m in _matches("credit_card", _CARD, content) if luhn_valid(m["value"])]


def detect_ip(content: str) -> list[PIIMatch]:
    """IPv4 addresses (each octet 0-255)."""
    found: list[PIIMatch] = []
    for m in _matches("ip", _IPV4, content):
        try:
            ipaddress.ip_address(m["value"])
        except ValueError:
            continue
        found.append(m)
    return found


def detect_mac_address(content: str) -> list[PIIMatch]:
    """MAC addresses: six hex pairs separated by ``:`` or ``-``."""
    return _matches("mac_address", _MAC, content)


def _overlaps(start: int, end: int, taken: Sequence[PIIMatch]) -> bool:
    return any(t["start"] <= start < t["end"] or t["start"] < end <= t["end"] for t in taken)


def detect_url(content: str) -> list[PIIMatch]:
    """URLs: with an http(s) scheme, or bare ones that start with ``www.`` or have a path."""
    found: list[PIIMatch] = []
    for m in _matches("url", _URL_WITH_SCHEME, content):
        parts = urlsplit(m["value"])
        if parts.scheme in ("http", "https") and parts.netloc:
            found.append(m)
    with_scheme = list(found)
    for m in _matches("url", _BARE_URL, content):
        if _overlaps(m["start"], m["end"], with_scheme):
            continue
        value = m["value"]
        if "/" not in value and not value.startswith("www."):
            continue  # a bare "example.com" in prose is not reported
        host = urlsplit(f"http://{value}").netloc
        if host and "." in host:
            found.append(m)
    return found


BUILTIN_DETECTORS: dict[str, Detector] = {
    "email": detect_email,
    "credit_card": detect_credit_card,
    "ip": detect_ip,
    "mac_address": detect_mac_address,
    "url": detect_url,
}


# --- strategies -------------------------------------------------------------------------


def _last4(value: str) -> str:
    return "".join(c for c in value if c.isdigit())[-4:]


def mask_value(pii_type: str, value: str) -> str:
    """The masked form of one value (what the ``mask`` strategy writes)."""
    if pii_type == "email":
        local, at, domain = value.partition("@")
        if not at or "@" in domain:
            return "****"
        labels = domain.split(".")
        return f"{local}@****.{labels[-1]}" if len(labels) > 1 else f"{local}@****"
    if pii_type == "credit_card":
        sep = "-" if "-" in value else (" " if " " in value else "")
        return sep.join(["****"] * 3 + [_last4(value)]) if sep else "*" * 12 + _last4(value)
    if pii_type == "ip":
        octets = value.split(".")
        return "*.*.*." + octets[-1] if len(octets) == 4 else "****"
    if pii_type == "mac_address":
        sep = ":" if ":" in value else "-"
        return sep.join(["**"] * 5 + [value[-2:]])
    if pii_type == "url":
        return "[MASKED_URL]"
    return "****" + value[-4:] if len(value) > 4 else "****"


def _replacement(match: PIIMatch, strategy: str) -> str:
    if strategy == "redact":
        return f"[REDACTED_{match['type'].upper()}]"
    if strategy == "mask":
        return mask_value(match["type"], match["value"])
    if strategy == "hash":
        digest = hashlib.sha256(match["value"].encode()).hexdigest()[:8]
        return f"<{match['type']}_hash:{digest}>"
    raise ValueError(f"Unknown redaction strategy: {strategy}")


def apply_strategy(content: str, matches: list[PIIMatch], strategy: RedactionStrategy) -> str:
    """``content`` with every match rewritten by ``strategy`` (``block`` raises instead)."""
    if not matches:
        return content
    if strategy == "block":
        raise PIIDetectionError(matches[0]["type"], matches)
    out = content
    # right to left, so earlier spans keep their offsets
    for match in sorted(matches, key=lambda m: m["start"], reverse=True):
        out = out[: match["start"]] + _replacement(match, strategy) + out[match["end"] :]
    return out


# --- rules ------------------------------------------------------------------------------


def resolve_detector(pii_type: str, detector: Detector | str | None) -> Detector:
    """The detector to run: the built-in for ``pii_type``, a regex, or a normalized callable."""
    if detector is None:
        builtin = BUILTIN_DETECTORS.get(pii_type)
        if builtin is None:
            raise ValueError(
                f"Unknown PII type: {pii_type}. Must be one of {list(BUILTIN_DETECTORS)} "
                "or provide a custom detector."
            )
        return builtin
    if isinstance(detector, str):
        pattern = re.compile(detector)
        return lambda text: _matches(pii_type, pattern, text)
    custom = detector

    def normalized(text: str) -> list[PIIMatch]:
        out: list[PIIMatch] = []
        for raw in custom(text):
            m: Mapping[str, Any] = raw
            out.append(
                PIIMatch(
                    type=str(m.get("type", pii_type)),
                    value=str(m.get("value", m.get("text", ""))),
                    start=int(m["start"]),
                    end=int(m["end"]),
                )
            )
        return out

    return normalized


@dataclass(frozen=True)
class ResolvedRedactionRule:
    """A PII type, its strategy and the detector that finds it."""

    pii_type: str
    strategy: RedactionStrategy
    detector: Detector

    def apply(self, content: str) -> tuple[str, list[PIIMatch]]:
        """``(rewritten content, matches)``; ``block`` raises when anything matches."""
        found = self.detector(content)
        if not found:
            return content, []
        return apply_strategy(content, found, self.strategy), found


@dataclass(frozen=True)
class RedactionRule:
    """How to handle one PII type (``detector`` None = the built-in one)."""

    pii_type: str
    strategy: RedactionStrategy = "redact"
    detector: Detector | str | None = None

    def resolve(self) -> ResolvedRedactionRule:
        """The rule with its detector looked up (an unknown strategy fails when first used)."""
        return ResolvedRedactionRule(
            self.pii_type, self.strategy, resolve_detector(self.pii_type, self.detector)
        )
