"""A thread run through Stepwise holds the app's own types, read back by the app's own process:
a state dataclass written while the app was attached comes back as that dataclass, not as
the plain dict LangGraph falls back to for a type it cannot import."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

pytest.importorskip("langgraph.checkpoint.sqlite")

from engine.attach import attach
from engine.loader import load_agent
from tests.engine.attach.test_attach_langgraph import collect

APP = """
import sqlite3
from dataclasses import dataclass
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.sqlite import SqliteSaver

@dataclass
class Order:
    item: str
    qty: int

class State(TypedDict, total=False):
    request: str
    order: Order

def parse(s: State):
    item, qty = s["request"].split(":")
    return {"order": Order(item, int(qty))}

b = StateGraph(State)
b.add_node("parse", parse)
b.add_edge(START, "parse")
b.add_edge("parse", END)
graph = b.compile(checkpointer=SqliteSaver(sqlite3.connect(DB, check_same_thread=False)))
"""

READ_BACK = """
import json, sys
sys.path.insert(0, sys.argv[1])
import importlib
app = importlib.import_module(sys.argv[2])
values = app.graph.get_state({"configurable": {"thread_id": "orders-1"}}).values
order = values["order"]
print(json.dumps({"type": type(order).__qualname__, "module": type(order).__module__,
                  "qty": getattr(order, "qty", None)}))
"""


def test_the_apps_own_process_reads_back_its_dataclass(tmp_path: Path) -> None:
    stem = f"orders_app_{uuid.uuid4().hex[:8]}"
    db = tmp_path / "orders.db"
    (tmp_path / f"{stem}.py").write_text(f"DB = {str(db)!r}\n" + textwrap.dedent(APP))
    graph = attach(load_agent(f"{tmp_path / stem}.py:graph"))
    events = collect(graph, {"request": "apple:3"}, {"configurable": {"thread_id": "orders-1"}})
    assert events[-1].__dict__["status"] == "done"
    out = subprocess.run(
        [sys.executable, "-c", READ_BACK, str(tmp_path), stem],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    read = json.loads(out.stdout.strip().splitlines()[-1])
    assert read == {"type": "Order", "module": stem, "qty": 3}, out.stderr
    assert "Could not reconstruct" not in out.stderr
