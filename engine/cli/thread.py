"""``stepwise open AGENT --thread T`` without a display: the saved thread, listed in the terminal
(its checkpoints newest first, where it stands, what it waits for) instead of a window."""

from __future__ import annotations

import json
from typing import Any

from engine.attach.options import AttachError, AttachOptions
from engine.cli.prompt import Console
from engine.cli.run import EXIT_OK, EXIT_USAGE
from engine.loader import AgentLoadError, load_target
from engine.redaction import scrub
from engine.serde import to_jsonable

__all__ = ["show_thread"]


def show_thread(spec: str, thread: str, options: AttachOptions, console: Console) -> int:
    try:
        graph = options.apply(load_target(spec).graph)
    except (AgentLoadError, AttachError) as exc:
        console.err(f"stepwise: {exc}")
        return EXIT_USAGE
    if getattr(graph, "checkpointer", None) in (None, True, False):
        console.err(f"stepwise: {spec} has no checkpointer: there is no saved thread to show")
        return EXIT_USAGE
    config = {"configurable": {"thread_id": thread}}
    try:
        history = list(graph.get_state_history(config))
    except Exception as exc:  # an unreachable database: one line, no password
        console.err(scrub(f"stepwise: cannot read thread {thread}: {type(exc).__name__}: {exc}"))
        return EXIT_USAGE
    if not history:
        console.out(f"thread {thread}: no checkpoints (a run on it would start it)")
        return EXIT_OK
    console.out(f"thread {thread}: {len(history)} checkpoints, newest first")
    for snap in history:
        console.out("  " + _line(snap))
    newest = history[0]
    for intr in getattr(newest, "interrupts", ()) or ():
        value = json.dumps(to_jsonable(intr.value, max_str=200), ensure_ascii=False)
        console.out(f"waiting for an answer (interrupt {intr.id}): {value}")
    console.out("open it in a window to inspect, fork or resume it (a display is needed)")
    return EXIT_OK


def _line(snap: Any) -> str:
    meta = getattr(snap, "metadata", None) or {}
    cid = str(((snap.config or {}).get("configurable") or {}).get("checkpoint_id", ""))
    step = meta.get("step")
    nxt = ", ".join(str(n) for n in snap.next) or "(end)"
    keys = ", ".join(sorted(str(k) for k in snap.values)) if isinstance(snap.values, dict) else ""
    return f"step {step!s:>3}  {meta.get('source', ''):<6}  {cid[:13]}…  next: {nxt}  state: {keys}"
