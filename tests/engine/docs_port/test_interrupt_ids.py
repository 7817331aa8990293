"""Several interrupts pending at once, real LangGraph vs ported by its imports: parallel nodes
that each interrupt (one twice), resumed by id (``Command(resume={id: value})``) a few at a
time, a bare resume refused while several are pending, an unknown id, and the history."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

PROGRAM = """
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import interrupt, Command

class State(TypedDict):
    answers: Annotated[list, operator.add]

def ask_name(state):
    v = interrupt({"question": "name?"})
    return {"answers": [f"name={v}"]}

def ask_age(state):
    v = interrupt({"question": "age?"})
    return {"answers": [f"age={v}"]}

def ask_both(state):
    a = interrupt("first")
    b = interrupt("second")
    return {"answers": [f"both={a},{b}"]}

def done(state):
    return {"answers": ["done"]}

b = StateGraph(State)
b.add_node(ask_name); b.add_node(ask_age); b.add_node(ask_both); b.add_node(done)
b.add_edge(START, "ask_name"); b.add_edge(START, "ask_age"); b.add_edge(START, "ask_both")
b.add_edge(["ask_name", "ask_age", "ask_both"], "done"); b.add_edge("done", END)
g = b.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
out = g.invoke({"answers": []}, cfg)
ints = out["__interrupt__"]
print(sorted(i.value if isinstance(i.value, str) else i.value["question"] for i in ints))
st = g.get_state(cfg)
print(st.next, sorted(len(t.interrupts) for t in st.tasks))
by_q = {(i.value if isinstance(i.value, str) else i.value["question"]): i.id for i in ints}
# resume two of them by id
out = g.invoke(Command(resume={by_q["name?"]: "Ada", by_q["first"]: "one"}), cfg)
print(sorted(out["answers"]))
print(sorted(i.value if isinstance(i.value, str) else i.value["question"] for i in out["__interrupt__"]))
st = g.get_state(cfg)
print(st.next, sorted((t.name, len(t.interrupts)) for t in st.tasks))
ints = out["__interrupt__"]
by_q = {(i.value if isinstance(i.value, str) else i.value["question"]): i.id for i in ints}
try:
    g.invoke(Command(resume="x"), cfg)
except Exception as e:
    print("RAISED", type(e).__name__, e)
out = g.invoke(Command(resume={i.id: f"v{n}" for n, i in enumerate(sorted(ints, key=lambda i: str(i.value)))}), cfg)
print(sorted(out["answers"]), "__interrupt__" in out)
print(g.get_state(cfg).next)
hist = list(g.get_state_history(cfg))
print([(h.metadata["source"], h.metadata["step"], h.next) for h in hist])
# an unknown id
g2 = b.compile(checkpointer=InMemorySaver())
c2 = {"configurable": {"thread_id": "2"}}
g2.invoke({"answers": []}, c2)
try:
    out = g2.invoke(Command(resume={"nope": 1}), c2)
    print(sorted(out.get("answers", [])), len(out.get("__interrupt__", [])))
except Exception as e:
    print("RAISED", type(e).__name__, e)
# streamed
items = list(g2.stream(Command(resume={i.id: 7 for i in g2.get_state(c2).interrupts}), c2, stream_mode="updates"))
for chunk in sorted(items, key=str):
    k = list(chunk)[0]
    print(k, sorted(map(str, chunk[k])) if k != "__interrupt__" else [str(i.value) for i in chunk[k]])
"""


def test_several_interrupts_resumed_by_id() -> None:
    compare(PROGRAM)
