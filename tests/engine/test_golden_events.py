"""Golden event sequences: seed 000 and a human-in-the-loop run, event by event.

Each event is projected onto what must not change (kind, node, middleware, hook or wrapper,
attempt numbers and outcomes, tools, routes, checkpoints, interrupts), with ids, timings and
payload details left out.  The golden files in ``tests/engine/golden/`` were generated from a
run and read line by line against the spec; regenerate with ``STEPWISE_REGOLD=1`` only after a
deliberate change, and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from engine import Command
from engine.agents import create_agent
from engine.checkpoint import InMemorySaver
from engine.events import EventBase
from engine.messages import AIMessage, HumanMessage
from engine.middleware.builtins import HumanInTheLoopMiddleware
from engine.models import ScriptedChatModel
from engine.tools import tool
from resources.scenarios.retry_todos import INPUT, build_agent

GOLDEN = Path(__file__).parent / "golden"


def project(ev: EventBase) -> str:
    d = ev.__dict__
    k = ev.kind
    if k == "run.started":
        return f"run.started resumed={d['resumed']}"
    if k == "run.finished":
        return f"run.finished {d['status']}"
    if k == "superstep.started":
        return "superstep.started " + ",".join(t.node for t in d["tasks"])
    if k == "superstep.finished":
        return f"superstep.finished {d['status']}"
    if k in ("node.started", "node.finished"):
        extra = f" {d['status']}" if k == "node.finished" else ""
        return f"{k} {d['node']}{extra}"
    if k in ("hook.started", "hook.finished"):
        jump = f" jump_to={d['jump_to']}" if k == "hook.finished" and d.get("jump_to") else ""
        if k == "hook.finished" and d["outcome"] != "ok":
            jump += f" {d['outcome']}"
        return f"{k} {d['middleware']}.{d['hook']}{jump}"
    if k in ("wrapper.started", "wrapper.finished"):
        tail = f" {d['outcome']} calls={d['handler_calls']}" if k == "wrapper.finished" else ""
        tool_name = f" [{d['tool']}]" if d.get("tool") else ""
        return f"{k} {d['middleware']}.{d['wrapper']}{tool_name}{tail}"
    if k == "attempt.started":
        return f"attempt.started {d['middleware']} {d['attempt']}/{d['max_attempts']}"
    if k == "attempt.finished":
        err = f" {d['error'].type}" if d.get("error") else ""
        retry = f" retry_in={d['delay_s']}" if d.get("will_retry") else ""
        return f"attempt.finished {d['middleware']} {d['attempt']}/{d['max_attempts']} {d['outcome']}{err}{retry}"
    if k == "model.request":
        return f"model.request {d['messages_count']} messages, tools={','.join(d['tools'])}"
    if k == "model.response":
        msg = d.get("message") or {}
        calls = ",".join(c["name"] for c in msg.get("tool_calls", []))
        err = f" error={d['error'].type}" if d.get("error") else ""
        return f"model.response calls=[{calls}]{err}"
    if k in ("tool.started", "tool.finished"):
        status = f" {d['status']}" if k == "tool.finished" else ""
        err = f" {d['error'].type}" if k == "tool.finished" and d.get("error") else ""
        return f"{k} {d['tool']}{status}{err}"
    if k == "route":
        sends = ",".join(f"Send({s['node']})" for s in d["sends"])
        return f"route {d['from_node']} -> {','.join(d['to'])}{sends} ({d['reason']})"
    if k == "state.updated":
        return "state.updated " + ",".join(f"{c['channel']}:{c['op']}" for c in d["changes"])
    if k == "checkpoint.saved":
        return f"checkpoint.saved step={d['step']} {d['source']} next={','.join(d['next'])}"
    if k == "interrupt.raised":
        return f"interrupt.raised {d['node']}" + (
            f" static={d['static']}" if d.get("static") else ""
        )
    if k == "interrupt.resumed":
        return f"interrupt.resumed {d['node']}"
    if k == "middleware.action":
        return f"middleware.action {d['middleware']} {d['action']}"
    return k


def check(name: str, events: list[EventBase]) -> None:
    lines = [project(e) for e in events if e.kind != "model.token"]
    text = "\n".join(lines) + "\n"
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("STEPWISE_REGOLD"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


async def collect(graph: Any, inp: Any, config: dict[str, Any]) -> list[EventBase]:
    return [ev async for ev in graph.astream_events(inp, config, version="stepwise")]


async def test_seed000_event_sequence():
    agent = build_agent(initial_delay=0.0)
    events = await collect(
        agent, {"messages": [HumanMessage(INPUT)]}, {"configurable": {"thread_id": "g"}}
    )
    check("seed000", events)
    # the spec's checkpoints: 13, and the run is done
    assert sum(e.kind == "checkpoint.saved" for e in events) == 13
    assert events[-1].kind == "run.finished" and events[-1].status == "done"  # type: ignore[attr-defined]


async def test_hitl_event_sequence_approve_then_reject():
    @tool
    def delete_file(path: str) -> str:
        """Delete a file."""
        return f"deleted {path}"

    model = ScriptedChatModel(
        [
            AIMessage(
                "", tool_calls=[{"name": "delete_file", "args": {"path": "a.txt"}, "id": "c1"}]
            ),
            "a.txt is gone",
            AIMessage(
                "", tool_calls=[{"name": "delete_file", "args": {"path": "b.txt"}, "id": "c2"}]
            ),
            "I left b.txt alone",
        ]
    )
    agent = create_agent(
        model,
        [delete_file],
        middleware=[HumanInTheLoopMiddleware(interrupt_on={"delete_file": True})],
        checkpointer=InMemorySaver(),
    )
    cfg = {"configurable": {"thread_id": "h"}}
    events = await collect(agent, {"messages": [HumanMessage("delete a.txt")]}, cfg)
    events += await collect(agent, Command(resume={"decisions": [{"type": "approve"}]}), cfg)
    events += await collect(agent, {"messages": [HumanMessage("and b.txt")]}, cfg)
    events += await collect(
        agent, Command(resume={"decisions": [{"type": "reject", "message": "keep it"}]}), cfg
    )
    check("hitl", events)
    decisions = [e.detail["decision"] for e in events if e.kind == "middleware.action"]  # type: ignore[attr-defined]
    assert decisions == ["approve", "reject"]
