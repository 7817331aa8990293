"""LangGraph's ``version="v2"`` output, real LangGraph vs ported by its imports vs attached:
``stream`` / ``astream`` give typed parts (``{"type", "ns", "data"}``, a ``values`` part with
its ``interrupts`` apart) for one mode or a list, with ``subgraphs``; ``invoke`` / ``ainvoke``
give a ``GraphOutput``; a pydantic or dataclass state comes back as its class (values parts,
checkpoints, the output); any other ``version`` reads as v1, as on LangGraph."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

_SCRUB = '''
import re
def scrub(obj):
    """The part with what differs from run to run (ids, times) made fixed."""
    text = repr(obj)
    text = re.sub(r"'?id'?[=:] ?'[0-9a-f-]{32,36}'", "id=<id>", text)
    text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>", text)
    text = re.sub(r"'timestamp': '[^']*'", "'timestamp': <t>", text)
    return text
'''

PROGRAM = (
    _SCRUB
    + """
import asyncio
import operator
import warnings
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.types import interrupt, Command

class State(TypedDict):
    x: int
    log: Annotated[list, operator.add]

def a(state):
    get_stream_writer()({"at": "a"})
    return {"x": state["x"] + 1, "log": ["a"]}

def ask(state):
    answer = interrupt({"q": "go on?"})
    return {"log": [f"ask={answer}"]}

b = StateGraph(State)
b.add_node(a); b.add_node(ask)
b.add_edge(START, "a"); b.add_edge("a", "ask"); b.add_edge("ask", END)
g = b.compile(checkpointer=InMemorySaver())

def cfg(n):
    return {"configurable": {"thread_id": str(n)}}

print("-- one mode")
for part in g.stream({"x": 1, "log": []}, cfg(1), stream_mode="updates", version="v2"):
    print(scrub(part))
print("-- values with the interrupt")
for part in g.stream(Command(resume="yes"), cfg(1), stream_mode="values", version="v2"):
    print(scrub(part))
for part in g.stream({"x": 1, "log": []}, cfg(2), stream_mode="values", version="v2"):
    print(scrub(part), sorted(part))
print("-- a list of modes")
for part in g.stream(
    {"x": 1, "log": []}, cfg(3), stream_mode=["values", "updates", "custom"], version="v2"
):
    print(scrub(part))
print("-- tasks, checkpoints, debug")
for part in g.stream(
    {"x": 1, "log": []}, cfg(4), stream_mode=["tasks", "checkpoints", "debug"], version="v2"
):
    data = part["data"]
    if part["type"] == "debug":
        print("debug", data["step"], data["type"], end=" ")
        data = data["payload"]
    if "values" in data:
        print(part["type"], part["ns"], scrub((data["values"], data["next"], data["metadata"])))
    else:
        print(part["type"], part["ns"], scrub(data))
print("-- default mode")
for part in g.stream({"x": 1, "log": []}, cfg(5), version="v2"):
    print(scrub(part))
print("-- invoke")
out = g.invoke({"x": 1, "log": []}, cfg(6), version="v2")
print(type(out).__name__, scrub(out))
print(scrub(out.value), scrub(out.interrupts))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(scrub(out["__interrupt__"]), out["x"], "x" in out, "__interrupt__" in out)
    try:
        out["nope"]
    except KeyError as e:
        print("KeyError", e)
print(sorted({type(w.message).__name__ for w in caught}))
out = g.invoke(Command(resume="ok"), cfg(6), version="v2")
print(scrub(out))
print(scrub(g.invoke({"x": 1, "log": []}, cfg(7), stream_mode="updates", version="v2")))
print(scrub(g.invoke({"x": 1, "log": []}, cfg(8), stream_mode=["values"], version="v2")))
print("-- async")
async def main():
    parts = [p async for p in g.astream({"x": 1, "log": []}, cfg(9), stream_mode=["updates", "values"], version="v2")]
    print(scrub(parts))
    out = await g.ainvoke(Command(resume="later"), cfg(9), version="v2")
    print(scrub(out))
    print(scrub(await g.ainvoke({"x": 1, "log": []}, cfg(10), stream_mode="custom", version="v2")))
asyncio.run(main())
print("-- any other version is v1")
for v in ("v1", "v3", None):
    print(v, scrub(list(g.stream({"x": 1, "log": []}, cfg(f"v{v}"), stream_mode="updates", version=v))))
    print(v, scrub(g.invoke({"x": 1, "log": []}, cfg(f"w{v}"), version=v)))
"""
)


def test_v2_stream_and_invoke_for_every_mode() -> None:
    compare(PROGRAM)
