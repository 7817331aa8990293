"""What an attached or remote run resumes: the interrupts waiting on the thread, by id, node and scope.

The engine reports ``interrupt.resumed`` where ``interrupt()`` returns its answer, with the
interrupt's id and node.  An attached or remote run only sees LangGraph's stream, in which a resumed
``interrupt()`` leaves no trace; the thread's state before the run says what waits: each
interrupt with its task (the node) and, for one raised inside a subgraph, the subgraph's
scope.  A resume of one value then answers the one interrupt waiting, and a resume by
interrupt id answers each id it names, as LangGraph applies them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["PendingInterrupt", "answered", "pending_interrupts"]


@dataclass(frozen=True, slots=True)
class PendingInterrupt:
    interrupt_id: str
    node: str
    ns: str
    """The scope it was raised in (``""``: the graph itself; ``"writer:<task>"``: a subgraph)."""


def pending_interrupts(snapshot: Any) -> list[PendingInterrupt]:
    """The interrupts waiting in a LangGraph ``StateSnapshot`` read with ``subgraphs=True`` (or
    its JSON from a LangGraph server's thread state),
    innermost first: one raised in a subgraph is reported by its own node, not by the parent
    node that runs the subgraph."""
    out: dict[str, PendingInterrupt] = {}
    _collect(snapshot, "", out)
    return list(out.values())


def _collect(snapshot: Any, ns: str, out: dict[str, PendingInterrupt]) -> None:
    for task in _get(snapshot, "tasks") or ():
        inner = _get(task, "state")
        if inner is not None and _get(inner, "tasks") is not None:
            _collect(inner, _ns_of(inner), out)
        for intr in _get(task, "interrupts") or ():
            iid = str(_get(intr, "id") or "")
            if iid and iid not in out:
                out[iid] = PendingInterrupt(iid, str(_get(task, "name") or ""), ns)


def _get(obj: Any, name: str) -> Any:
    """A field of a LangGraph object, or of its JSON as a server sends it."""
    return obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)


def _ns_of(snapshot: Any) -> str:
    if isinstance(snapshot, Mapping):  # a server's JSON: its checkpoint says
        return str((snapshot.get("checkpoint") or {}).get("checkpoint_ns") or "")
    conf = (getattr(snapshot, "config", None) or {}).get("configurable") or {}
    return str(conf.get("checkpoint_ns") or "")


def answered(
    pending: list[PendingInterrupt], resume: Any
) -> list[tuple[PendingInterrupt, Any]] | None:
    """Which waiting interrupts ``Command(resume=resume)`` answers, with their values: each id
    a mapping of interrupt ids names, or the one interrupt waiting.  None when the thread does
    not say (nothing known to wait); ``[]`` when LangGraph will refuse the resume (one value
    for several interrupts: it asks for their ids)."""
    by_id = {p.interrupt_id: p for p in pending}
    if isinstance(resume, Mapping) and resume and all(str(k) in by_id for k in resume):
        return [(by_id[str(k)], v) for k, v in resume.items()]
    if len(pending) == 1:
        return [(pending[0], resume)]
    return [] if pending else None
