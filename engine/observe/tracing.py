"""Trace policies: what the run's events record about a middleware hook's input and output.

A ``TracePolicy(process_inputs=f, process_outputs=g)`` transforms the value *recorded* (never
the value the hook receives or returns). For a middleware hook node (``Name.before_model``
and the others) our events are the trace:

- ``process_inputs`` set: ``hook.started`` carries ``input``, the transformed state the hook
  was given (without one, ``input`` stays empty: the state is already recorded by the
  run's state events);
- ``process_outputs`` set: ``hook.finished`` records the transformed update instead of the
  real one.

The policy in effect for a middleware is its own ``trace_policy`` attribute when set, else
the process-wide default set with ``configure_trace_policy`` (read when the hook runs, so it
applies to agents built before the call as well). A middleware's policy replaces the default
wholesale, field by field nothing is merged. ``omit_payload`` records ``{}``: the hook's span
and timing stay, its payload goes.

Processors fail open: one that raises records the untransformed value (and never breaks the run).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "TracePolicy",
    "configure_trace_policy",
    "effective_trace_policy",
    "omit_payload",
    "traced_value",
]

LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class TracePolicy:
    """How a node's (or a middleware hook's) payloads are recorded."""

    process_inputs: Callable[[Any], Any] | None = None
    """Transforms the input before it is recorded (the node still gets the real one)."""
    process_outputs: Callable[[Any], Any] | None = None
    """Transforms the output before it is recorded (the caller still gets the real one)."""


def omit_payload(_value: Any) -> dict[str, Any]:
    """A processor that records an empty payload."""
    return {}


_default_policy: TracePolicy | None = None


def configure_trace_policy(policy: TracePolicy | None) -> None:
    """Set (or, with None, clear) the process-wide default policy for middleware hooks."""
    global _default_policy
    _default_policy = policy


def effective_trace_policy(owner: Any) -> TracePolicy | None:
    """``owner.trace_policy`` when it has one, else the process-wide default."""
    own = getattr(owner, "trace_policy", None)
    return own if isinstance(own, TracePolicy) else _default_policy


def traced_value(
    policy: TracePolicy | None,
    field: Literal["process_inputs", "process_outputs"],
    value: Any,
) -> tuple[bool, Any]:
    """``(True, recorded value)`` when ``policy`` defines ``field``, else ``(False, value)``."""
    process = getattr(policy, field) if policy is not None else None
    if process is None:
        return False, value
    try:
        return True, process(value)
    except Exception:
        LOGGER.warning("Trace policy %s failed; recording the value as is.", field, exc_info=True)
        return True, value
