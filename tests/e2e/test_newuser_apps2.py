"""A new user's own apps in the studio window, attached on the real libraries, round two (a
map-reduce graph, a supervisor of agents, structured output with human review, streams and a
store): the problems found by driving them as a user does (see each test)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

from tests.e2e.attach_window import Studio
from tests.fixtures.docs_apps import write_app

MAP_REDUCE_APP = '''
"""Map-reduce: Send fans out one joke per subject; a pydantic state; a SqliteSaver file."""
import operator
import sqlite3
from typing import Annotated

from pydantic import BaseModel, Field
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send


class OverallState(BaseModel):
    topic: str
    subjects: list[str] = Field(default_factory=list)
    jokes: Annotated[list[str], operator.add] = Field(default_factory=list)
    best: str = ""


class JokeState(BaseModel):
    subject: str


def generate_topics(state: OverallState):
    return {"subjects": [f"{state.topic} {x}" for x in ("cats", "dogs", "birds")]}


def continue_to_jokes(state: OverallState):
    return [Send("generate_joke", JokeState(subject=s)) for s in state.subjects]


def generate_joke(state: JokeState):
    return {"jokes": [f"A joke about {state.subject}"]}


def best_joke(state: OverallState):
    return {"best": max(state.jokes, key=len)}


builder = StateGraph(OverallState)
builder.add_node("generate_topics", generate_topics)
builder.add_node("generate_joke", generate_joke)
builder.add_node("best_joke", best_joke)
builder.add_edge(START, "generate_topics")
builder.add_conditional_edges("generate_topics", continue_to_jokes, ["generate_joke"])
builder.add_edge("generate_joke", "best_joke")
builder.add_edge("best_joke", END)
graph = builder.compile(checkpointer=SqliteSaver(sqlite3.connect(DB, check_same_thread=False)))
'''


def map_reduce(tmp_path: Path) -> tuple[Any, Path]:
    db = tmp_path / "jokes.sqlite"
    return write_app(tmp_path, MAP_REDUCE_APP.replace("DB", repr(str(db))), "jokes"), db


def test_a_breakpoint_on_a_node_sent_three_times_stops_at_each_and_the_run_ends(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """A breakpoint on the node ``Send`` runs three times at once: the second Continue (or
    Step) hung the run for good, "running" with nothing running.  Continue woke the two
    waiting tasks together, both paused, and the debugger kept the second pause's resume
    only: the other task waited forever."""
    app, db = map_reduce(tmp_path)
    studio = Studio(qtbot, qloop, tmp_path, app)
    try:
        studio.ctl.default_input = {"topic": "funny"}
        studio.window.graph_panel.breakpoints.set_node("generate_joke", True)
        assert studio.trigger("run") == "paused"
        assert studio.paused_at() == ("node.started", "generate_joke")
        assert studio.trigger("run") == "paused"
        assert studio.paused_at() == ("node.started", "generate_joke")
        assert studio.trigger("step_over") == "paused"  # the third, then the reducer
        assert studio.paused_at() == ("node.started", "generate_joke")
        assert studio.trigger("step_over") == "paused"
        assert studio.paused_at() == ("node.started", "best_joke")
        assert studio.trigger("run") == "done", studio.ctl.last_error
        with sqlite3.connect(db) as conn:  # the app's own file holds the whole run
            assert conn.execute("select count(*) from checkpoints").fetchone()[0] == 5
    finally:
        studio.close()
