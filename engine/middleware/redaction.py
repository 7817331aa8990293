"""Finding and hiding sensitive values in text: detectors, strategies and ``RedactionRule``.

A *detector* maps text to a list of ``PIIMatch`` (``type, value, start, end``). Built in:
``email``, ``credit_card`` (Luhn-checked), ``ip`` (IPv4), ``mac_address``, ``url``. A rule may
instead name a regular expression or any callable returning match dicts (``"text"`` is
accepted for ``"value"``; a missing ``"type"`` is the rule's).

Strategies, applied to every match of a rule:

- ``redact``: ``[REDACTED_EMAIL]``
- ``mask``: keep a recognisable tail (``user@****.com``, ``****-****-****-1111``, ``*.*.*.4``)
- ``hash``: ``<email_hash:1a2b3c4d>`` (first 8 hex digits of the value's sha256)
- ``block``: raise ``PIIDetectionError``
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict
from urllib.parse import urlparse

__all__ = [
    "BUILTIN_DETECTORS",
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

RedactionStrategy = Literal["block", "redact", "mask", "hash"]


class PIIMatch(TypedDict):
    """One sensitive value found in a text."""

    type: str
    value: str
    start: int
    end: int


class PIIDetectionError(Exception):
    """A ``block`` rule found sensitive values."""

    def __init__(self, pii_type: str, matches: Sequence[PIIMatch]) -> None:
        self.pii_type = pii_type
        self.matches = list(matches)
        super().__init__(f"Detected {len(self.matches)} instance(s) of {pii_type} in text content")


Detector = Callable[[str], list[PIIMatch]]


def _found(kind: str, m: re.Match[str]) -> PIIMatch:
    return PIIMatch(type=kind, value=m.group(), start=m.start(), end=m.end())


_EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b")
_CARD = re.compile(r"\b\d{4}[\s-]?\d{4}[\s-]?\d{4}[\s-]?\d{4}\b")
_IPV4 = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")
_MAC = re.compile(r"\b(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}\b")
_URL_WITH_SCHEME = re.compile(r"https?://[^\s<>\"{}|\\^`\[\]]+")
_BARE_URL = re.compile(
    r"\b(?:www\.)?[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
    r"(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+(?:/\S*)?"
)


def detect_email(content: str) -> list[PIIMatch]:
    return [_found("email", m) for m in _EMAIL.finditer(content)]


def luhn_valid(number: str) -> bool:
    """True for 13-19 digits whose Luhn checksum is 0 (separators are ignored)."""
    digits = [int(c) for c in number if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def detect_credit_card(content: str) -> list[PIIMatch]:
    return [_found("credit_card", m) for m in _CARD.finditer(content) if luhn_valid(m.group())]


def detect_ip(content: str) -> list[PIIMatch]:
    out: list[PIIMatch] = []
    for m in _IPV4.finditer(content):
        try:
            ipaddress.ip_address(m.group())
        except ValueError:
            continue
        out.append(_found("ip", m))
    return out


def detect_mac_address(content: str) -> list[PIIMatch]:
    return [_found("mac_address", m) for m in _MAC.finditer(content)]


def detect_url(content: str) -> list[PIIMatch]:
    """``http(s)://`` URLs, and bare ones that start with ``www.`` or carry a path."""
    out: list[PIIMatch] = []
    for m in _URL_WITH_SCHEME.finditer(content):
        parsed = urlparse(m.group())
        if parsed.scheme in ("http", "https") and parsed.netloc:
            out.append(_found("url", m))
    with_scheme = list(out)
    for m in _BARE_URL.finditer(content):
        start, end = m.start(), m.end()
        if any(u["start"] <= start < u["end"] or u["start"] < end <= u["end"] for u in with_scheme):
            continue
        text = m.group()
        if "/" not in text and not text.startswith("www."):
            continue  # "example.com" in prose is not worth flagging
        netloc = urlparse(f"http://{text}").netloc
        if netloc and "." in netloc:
            out.append(_found("url", m))
    return out


BUILTIN_DETECTORS: dict[str, Detector] = {
    "email": detect_email,
    "credit_card": detect_credit_card,
    "ip": detect_ip,
    "mac_address": detect_mac_address,
    "url": detect_url,
}


def _mask(match: PIIMatch) -> str:
    value, kind = match["value"], match["type"]
    if kind == "email":
        local, at, domain = value.partition("@")
        if not at:
            return "****"
        tld = domain.rsplit(".", 1)
        return f"{local}@****.{tld[1]}" if len(tld) == 2 else f"{local}@****"
    if kind == "credit_card":
        last4 = "".join(c for c in value if c.isdigit())[-4:]
        sep = "-" if "-" in value else " " if " " in value else ""
        return f"****{sep}****{sep}****{sep}{last4}" if sep else f"************{last4}"
    if kind == "ip":
        parts = value.split(".")
        return f"*.*.*.{parts[-1]}" if len(parts) == 4 else "****"
    if kind == "mac_address":
        sep = ":" if ":" in value else "-"
        return sep.join(["**"] * 5) + sep + value[-2:]
    if kind == "url":
        return "[MASKED_URL]"
    return f"****{value[-4:]}" if len(value) > 4 else "****"


def _replacement(match: PIIMatch, strategy: RedactionStrategy) -> str:
    if strategy == "redact":
        return f"[REDACTED_{match['type'].upper()}]"
    if strategy == "mask":
        return _mask(match)
    digest = hashlib.sha256(match["value"].encode()).hexdigest()[:8]
    return f"<{match['type']}_hash:{digest}>"


def apply_strategy(content: str, matches: list[PIIMatch], strategy: RedactionStrategy) -> str:
    """``content`` with every match replaced as ``strategy`` says (``block`` raises)."""
    if not matches:
        return content
    if strategy == "block":
        raise PIIDetectionError(matches[0]["type"], matches)
    if strategy not in ("redact", "mask", "hash"):
        raise ValueError(f"Unknown redaction strategy: {strategy}")
    out = content
    for m in sorted(matches, key=lambda x: x["start"], reverse=True):
        out = out[: m["start"]] + _replacement(m, strategy) + out[m["end"] :]
    return out


def resolve_detector(pii_type: str, detector: Detector | str | None) -> Detector:
    """The detector for a rule: a built-in by type, a regex string, or a custom callable."""
    if detector is None:
        if pii_type not in BUILTIN_DETECTORS:
            raise ValueError(
                f"Unknown PII type: {pii_type}. "
                f"Must be one of {list(BUILTIN_DETECTORS)} or provide a custom detector."
            )
        return BUILTIN_DETECTORS[pii_type]
    if isinstance(detector, str):
        pattern = re.compile(detector)
        return lambda content: [_found(pii_type, m) for m in pattern.finditer(content)]
    custom: Callable[[str], Sequence[Any]] = detector

    def normalized(content: str) -> list[PIIMatch]:
        return [
            PIIMatch(
                type=m.get("type", pii_type),
                value=m.get("value", m.get("text", "")),
                start=m["start"],
                end=m["end"],
            )
            for m in custom(content)
        ]

    return normalized


@dataclass(frozen=True)
class RedactionRule:
    """How to treat one kind of sensitive value (``pii_type``) in text."""

    pii_type: str
    strategy: RedactionStrategy = "redact"
    detector: Detector | str | None = None

    def resolve(self) -> ResolvedRedactionRule:
        return ResolvedRedactionRule(
            self.pii_type, self.strategy, resolve_detector(self.pii_type, self.detector)
        )


@dataclass(frozen=True)
class ResolvedRedactionRule:
    """A rule with its detector looked up, ready to apply."""

    pii_type: str
    strategy: RedactionStrategy
    detector: Detector

    def apply(self, content: str) -> tuple[str, list[PIIMatch]]:
        """(the content after the strategy, the matches found)."""
        matches = self.detector(content)
        if not matches:
            return content, []
        return apply_strategy(content, matches, self.strategy), matches
