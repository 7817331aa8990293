"""The Events dock's footer: how many events and rows the log holds, what a session left
unloaded, failures, and what is still queued or being filtered (plain Python, no Qt)."""

from __future__ import annotations

from studio.models.event_filter import FilterJob
from studio.models.event_tree import EventTree
from studio.models.older_runs import OlderRuns

__all__ = ["footer_text"]


def footer_text(
    tree: EventTree, older: OlderRuns | None, queued: int, job: FilterJob | None
) -> str:
    """The footer of the log of ``tree`` (``older``: a session's runs left unloaded; ``queued``
    events not ingested yet; ``job``: the filter running)."""
    parts = [f"{tree.event_count:,} events", f"{len(tree.rows):,} rows"]
    if older is not None and older.runs:
        runs, events = older.runs, older.events
        parts.append(
            f"the oldest {runs:,} run{'s' if runs != 1 else ''} ({events:,} events) not loaded"
        )
    if older is not None and older.cut:
        parts.append(f"{older.cut:,} events in the middle of the newest run not loaded")
    if older is not None and older.reading:
        parts.append("counting them…")
    if tree.failures:
        parts.append(f"{tree.failures:,} failed")
    if queued:
        parts.append(f"{queued:,} queued")
    if job is not None:
        parts.append(f"filtering {job.progress:.0%}…")
    elif tree.filter.active:
        parts.append("filtered")
    return " · ".join(parts)
