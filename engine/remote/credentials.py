"""Credentials for a LangGraph server, read from the environment and kept out of everything.

The API key comes from ``LANGGRAPH_API_KEY`` (else ``LANGSMITH_API_KEY``); other headers are
named on the command line as ``NAME=ENV_VAR`` and read from that variable.  Values are never
saved, printed, recorded or put in an event: ``Credentials`` has no ``repr`` of its values,
front ends store only the variable *names*, and every value is registered with
``engine.redaction`` so that a server echoing one back in an error is scrubbed out of errors,
events and session files.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.redaction import register_secret, register_url
from engine.targets.base import TargetError

__all__ = ["API_KEY_VARS", "Credentials", "HeaderSpec", "parse_header_spec"]

API_KEY_VARS = ("LANGGRAPH_API_KEY", "LANGSMITH_API_KEY")
"""Where the API key is read from, first found wins."""

_HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class HeaderSpec:
    """A header whose value is read from an environment variable (``X-Tenant=TENANT_TOKEN``)."""

    header: str
    env_var: str

    def __str__(self) -> str:
        return f"{self.header}={self.env_var}"


def parse_header_spec(text: str) -> HeaderSpec:
    """``NAME=ENV_VAR`` as a ``HeaderSpec`` (``TargetError`` with one line when malformed)."""
    name, sep, var = text.partition("=")
    name, var = name.strip(), var.strip()
    if not sep or not name or not var:
        raise TargetError(
            f"--header {text!r}: expected NAME=ENV_VAR (the value is read from ENV_VAR)"
        )
    if not _HEADER_NAME.match(name):
        raise TargetError(f"--header {text!r}: {name!r} is not a valid header name")
    if not _ENV_NAME.match(var):
        raise TargetError(
            f"--header {name}=...: give the name of an environment variable, not the value"
        )
    return HeaderSpec(name, var)


@dataclass(frozen=True)
class Credentials:
    """Where the credentials of one server come from (names only; values read on demand)."""

    headers: tuple[HeaderSpec, ...] = ()
    use_api_key: bool = True
    """Read the API key from ``API_KEY_VARS`` (off: send none)."""
    env: Mapping[str, str] | None = field(default=None, compare=False)
    """The environment to read (None: ``os.environ``); tests pass their own."""

    @classmethod
    def from_specs(cls, specs: Sequence[str] = (), *, use_api_key: bool = True) -> Credentials:
        return cls(tuple(parse_header_spec(s) for s in specs), use_api_key)

    def _environ(self) -> Mapping[str, str]:
        return os.environ if self.env is None else self.env

    def api_key(self) -> str | None:
        """The API key from the environment (None when no variable is set)."""
        if not self.use_api_key:
            return None
        env = self._environ()
        for var in API_KEY_VARS:
            value = env.get(var)
            if value:
                register_secret(value)
                return value
        return None

    def api_key_source(self) -> str | None:
        """The variable the API key comes from (for a status line: never the value)."""
        env = self._environ()
        return next((v for v in API_KEY_VARS if env.get(v)), None) if self.use_api_key else None

    def header_values(self) -> dict[str, str]:
        """The extra headers with their values (``TargetError`` when a variable is unset)."""
        env = self._environ()
        out: dict[str, str] = {}
        for spec in self.headers:
            value = env.get(spec.env_var)
            if value is None:
                raise TargetError(
                    f"--header {spec.header}={spec.env_var}: the environment variable "
                    f"{spec.env_var} is not set"
                )
            register_secret(value)
            out[spec.header] = value
        return out

    def __repr__(self) -> str:
        names = ", ".join(str(h) for h in self.headers)
        return f"Credentials(api_key={self.api_key_source()!r}, headers=[{names}])"


def register_server_url(url: str) -> None:
    """A ``user:password@`` in the server URL is a secret too."""
    register_url(url)
