"""Text crafted to be misread as rich text, and a session full of it.

``<img src='/dev/zero'>`` is the probe's string: a label rendering it as HTML reads /dev/zero as
an image until memory runs out.  ``record_crafted_session`` records a run in which every piece of
text the studio shows (thread id, graph and node names, messages, tool names and calls, todos,
the plan's objective and steps, errors) is one of these strings; the run id is then rewritten
in the file to one too.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Annotated, Any, TypedDict

from engine.graph import END, START, StateGraph
from engine.messages import AIMessage, HumanMessage, ToolMessage, add_messages
from engine.recording import SessionRecorder

IMG = "<img src='/dev/zero'>"
LINK = "<a href='https://example.com/x'>click me</a>"
BOLD = "<b>bold</b> text"
NODE = "<b>work</b>"
CRAFTED = (IMG, LINK, BOLD, NODE)
PROBE = "<img src='stepwise-probe-missing.png'>"
"""An image tag safe to render by mistake (in-process tests use it instead of ``IMG``)."""
SAFE = (PROBE, LINK, BOLD)


class CraftedState(TypedDict, total=False):
    messages: Annotated[list[Any], add_messages]
    todos: list[dict[str, Any]]
    plan: dict[str, Any]
    steps: list[dict[str, Any]]


def _work(_: CraftedState) -> dict[str, Any]:
    call = {"name": IMG, "args": {"text": LINK}, "id": BOLD}
    return {
        "messages": [
            AIMessage(content=LINK, tool_calls=[call], name=BOLD),
            ToolMessage(content=IMG, tool_call_id=BOLD, name=IMG, status="error"),
        ],
        "todos": [
            {"content": IMG, "status": "pending"},
            {"content": LINK, "status": "in_progress"},
            {"content": BOLD, "status": "completed"},
        ],
        "plan": {
            "objective": IMG,
            "steps": [
                {"name": IMG, "tool": LINK, "depends_on": []},
                {"name": BOLD, "tool": IMG, "depends_on": [0]},
            ],
        },
        "steps": [
            {"index": 0, "status": "failed", "code": "E", "message": IMG},
            {"index": 1, "status": "skipped", "message": LINK},
        ],
    }


def crafted_graph(checkpointer: Any = None) -> Any:
    g = StateGraph(CraftedState)
    g.add_node(NODE, _work)
    g.add_edge(START, NODE)
    g.add_edge(NODE, END)
    return g.compile(checkpointer=checkpointer, name=LINK)


INPUT = BOLD
agent = crafted_graph()
"""``stepwise open tests/studio/crafted_text.py`` runs the crafted graph live."""


def record_crafted_session(path: Path) -> str:
    """Record the crafted run into ``path``; returns the (crafted) run id written in it."""
    rec = SessionRecorder(path)
    graph = crafted_graph(rec.checkpointer)
    rec.attach(graph)
    graph.invoke({"messages": [HumanMessage(content=BOLD)]}, {"configurable": {"thread_id": IMG}})
    rec.close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE session_runs SET run_id=?", (IMG,))
        rows = conn.execute("SELECT id, data FROM session_events").fetchall()
        for row_id, data in rows:
            event = json.loads(data)
            if "run_id" in event:
                event["run_id"] = IMG
                conn.execute(
                    "UPDATE session_events SET data=? WHERE id=?", (json.dumps(event), row_id)
                )
    return IMG
