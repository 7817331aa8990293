"""Secrets the process knows about, and scrubbing them out of text and data.

Models register every credential they are configured with (API key, header values, the
``user:password`` of a ``base_url``) through ``register_secret`` / ``register_url``.  Errors
(``ErrorInfo``), model errors and the session recorder pass their text through ``scrub``, so a
server that echoes a header back in an error body cannot put it into a traceback, an event, a
session file, an export or replay output.  Database URLs and keyword DSNs register their
passwords too (``register_dsn``: ``user:password@``, ``?password=...``, ``password=...``).  Also
scrubbed whatever the secrets registered: anything shaped like an OpenAI-style key
(``sk-...``), the password of a URL's ``user:password@`` and the value of a ``password=`` in a
DSN or a query string.
"""

from __future__ import annotations

import base64
import re
import threading
from collections.abc import Iterable, Mapping
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

__all__ = [
    "REDACTED",
    "register_dsn",
    "register_headers",
    "register_secret",
    "register_url",
    "scrub",
    "scrub_data",
    "strip_url_credentials",
]

REDACTED = "[REDACTED]"
_KEY_PATTERN = re.compile(r"\bsk-[A-Za-z0-9_\-]{4,}")
_SCHEMES = re.compile(r"^(bearer|basic|token|apikey|api-key)\s+", re.I)
_PASSWORD_WORDS = ("password", "passwd", "pwd", "PASSWORD", "Password", "PWD")
_PASSWORD_PARAM = re.compile(
    r"\b(password|passwd|pwd|sslpassword)(\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&;,'\"\\]+)", re.I
)
"""``password=value`` in a keyword DSN (``host=h password='x y'``) or a query string."""
_URL_PASSWORD = re.compile(r"(://[^\s/@:'\"\\]*:)([^\s/@'\"\\]+)(@)")
"""The password of a URL's ``user:password@``."""
MIN_LENGTH = 6
"""Shorter values are not treated as secrets (they would scrub ordinary words)."""

_lock = threading.Lock()
_secrets: set[str] = set()
_ordered: tuple[str, ...] = ()


def register_secret(value: str | None) -> None:
    """Remember ``value`` (and, for ``Bearer x`` / ``Basic x``, its ``x``) as a secret."""
    global _ordered
    if not isinstance(value, str):
        return
    candidates = {value.strip(), _SCHEMES.sub("", value.strip())}
    new = {c for c in candidates if len(c) >= MIN_LENGTH} - _secrets
    if not new:
        return
    with _lock:
        _secrets.update(new)
        _ordered = tuple(sorted(_secrets, key=len, reverse=True))  # longest first


#: Standard headers that describe the request and never carry a credential.
PLAIN_HEADERS = frozenset(
    {"accept", "accept-encoding", "accept-language", "content-type", "user-agent"}
)


def register_headers(headers: Mapping[str, object] | None) -> None:
    """Every header value is a secret (headers are how tokens are passed), except the values of
    the few standard ``PLAIN_HEADERS`` (``Accept: application/json`` is no secret)."""
    for name, value in (headers or {}).items():
        if isinstance(value, str) and str(name).lower() not in PLAIN_HEADERS:
            register_secret(value)


def register_url(url: str | None) -> None:
    """The credentials in ``url`` (``scheme://user:password@host``), in every spelling."""
    if not url:
        return
    parts = urlsplit(url)
    userinfo = parts.netloc.rpartition("@")[0]
    if not userinfo:
        return
    user, _, password = userinfo.partition(":")
    for raw in (userinfo, password, unquote(password), unquote(userinfo)):
        register_secret(raw)
    plain = f"{unquote(user)}:{unquote(password)}"
    register_secret(base64.b64encode(plain.encode()).decode())


def register_dsn(dsn: str | None) -> None:
    """The passwords in a database URL (``user:password@``, ``?password=...``) or a keyword
    DSN (``host=h user=u password=...``)."""
    if not dsn:
        return
    if "://" in dsn:
        if urlsplit(dsn).password is not None:  # a user name alone (postgres@) is no secret
            register_url(dsn)
        for key, value in parse_qsl(urlsplit(dsn).query, keep_blank_values=False):
            if _PASSWORD_PARAM.fullmatch(f"{key}=x"):
                register_secret(value)
    for match in _PASSWORD_PARAM.finditer(dsn):
        value = match.group(3)
        if value.startswith("'") and value.endswith("'") and len(value) >= 2:
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        register_secret(value)
        register_secret(unquote(value))


def _scrub_shapes(text: str) -> str:
    """Passwords recognisable by where they stand, registered or not (any length)."""
    if "=" in text and any(word in text for word in _PASSWORD_WORDS):
        text = _PASSWORD_PARAM.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    if "@" in text and "://" in text:
        text = _URL_PASSWORD.sub(lambda m: f"{m.group(1)}{REDACTED}{m.group(3)}", text)
    return text


def strip_url_credentials(url: str) -> str:
    """``url`` without its ``user:password@`` part (everything else kept)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def scrub(text: str, extra: Iterable[str | None] = ()) -> str:
    """``text`` with every registered (and every ``extra``) secret replaced by ``[REDACTED]``."""
    secrets = (*(e for e in extra if e and len(e) >= 4), *_ordered) if extra else _ordered
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    if "sk-" in text:  # what every key the pattern matches contains: a fast C search first
        text = _KEY_PATTERN.sub(REDACTED, text)
    return _scrub_shapes(text)


def scrub_data(data: object) -> object:
    """``data`` (JSON-like) with ``scrub`` applied to every string, keys included."""
    if isinstance(data, str):
        return scrub(data)
    if isinstance(data, dict):
        return {scrub(str(k)) if isinstance(k, str) else k: scrub_data(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [scrub_data(v) for v in data]
    return data
