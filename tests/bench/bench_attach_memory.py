"""Peak memory of a 2,000-turn attached run, vs the same app run alone.

A LangChain ``create_agent`` without a checkpointer of its own runs a 2,000-model-turn
conversation (a tool call per turn, then an answer) in one ``invoke``:

- app alone: ``agent.invoke`` directly;
- attached: as ``stepwise run`` does it: ``AttachOptions().apply(agent)`` (attach mode on
  LangGraph's in-memory saver, since the app has none of its own) with a ``SessionRecorder``
  attached (every event written, every checkpoint copied into the session file).

Each runs in a fresh process, so its peak resident memory (``ru_maxrss``) is its own; both
import the same libraries (engine included) before starting, so the figure compares the
run's footprint, not import sizes.  Issue 26 goal: attached <= 2x the app alone.

Run: ``.venv/bin/python -m tests.bench.bench_attach_memory``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

from tests.bench.report import Figure, goal, peer_available

TURNS = 2_000

_CHILD = """
import json, resource, sys, time
from tests.bench.bench_attach_memory import lc_agent, TURNS
import engine.attach  # noqa: F401  (same imports in both variants)
from langchain_core.messages import HumanMessage
mode = sys.argv[1]
agent = lc_agent(TURNS)
events = [0]
recorder = None
cfg = {"recursion_limit": 10 * TURNS, "configurable": {"thread_id": "t"}}
if mode == "attached":
    import tempfile, pathlib
    from engine.attach.options import AttachOptions
    from engine.recording import SessionRecorder
    agent = AttachOptions().apply(agent)
    recorder = SessionRecorder(pathlib.Path(tempfile.mkdtemp()) / "m.stepwise")
    recorder.attach(agent)
    agent.subscribe(lambda ev: events.__setitem__(0, events[0] + 1))
t0 = time.perf_counter()
out = agent.invoke({"messages": [HumanMessage("go")]}, cfg)
if recorder is not None:
    recorder.close()
spent = time.perf_counter() - t0
assert len(out["messages"]) == 2 * TURNS, len(out["messages"])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"peak_mb": peak, "seconds": spent, "events": events[0]}))
"""


def lc_agent(turns: int) -> Any:
    """A LangChain agent scripted for ``turns`` model turns, without a checkpointer."""
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool

    class FakeToolModel(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    @tool
    def echo(text: str) -> str:
        """Repeat the text."""
        return text

    script = [
        AIMessage(
            content="",
            tool_calls=[{"name": "echo", "args": {"text": f"step {i}"}, "id": f"call_{i}"}],
        )
        for i in range(turns - 1)
    ]
    script.append(AIMessage(content="all done"))
    return create_agent(FakeToolModel(messages=iter(script)), [echo])


def _child(mode: str) -> dict[str, float]:
    p = subprocess.run(
        [sys.executable, "-c", _CHILD, mode], capture_output=True, text=True, timeout=900
    )
    if p.returncode != 0:
        raise RuntimeError(f"{mode} run failed: {p.stderr.strip().splitlines()[-1:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def run() -> list[Figure]:
    if not (peer_available("langchain.agents") and peer_available("langgraph")):
        return [Figure("attach memory: langgraph / langchain not installed", 0, "", note="skipped")]
    t0 = time.perf_counter()
    alone = _child("alone")
    attached = _child("attached")
    _ = time.perf_counter() - t0
    return [
        Figure(
            f"{TURNS:,}-turn app run alone, no checkpointer: peak memory",
            alone["peak_mb"],
            "MB",
            note=f"{alone['seconds']:.1f} s",
        ),
        Figure(
            "  attached as `stepwise run` does (in-memory saver, recorded): peak memory",
            attached["peak_mb"],
            "MB",
            note=f"{attached['seconds']:.1f} s, {attached['events']:,} events",
        ),
        goal("  attached vs alone, peak memory", attached["peak_mb"] / alone["peak_mb"], 2),
    ]


if __name__ == "__main__":
    for f in run():
        print(f.line())
