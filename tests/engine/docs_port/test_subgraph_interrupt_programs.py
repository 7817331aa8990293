"""Interrupts and streams across graphs, real LangGraph vs ported by their imports: a subgraph
node that interrupts, streamed with ``subgraphs=True`` and in ``values`` mode (what its nodes
print while the parent's stream is consumed), ``get_state(subgraphs=True)``, an update of the
waiting subgraph's state, resumes; a functional-API entrypoint whose tasks stream ``tasks``,
``custom`` and ``updates`` (sync and async) around an interrupt."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

SUBGRAPH_INTERRUPT = """
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import interrupt, Command

class State(TypedDict):
    log: Annotated[list, operator.add]

def ask(state):
    print("ask runs")
    answer = interrupt({"q": "ok?"})
    print("ask resumed with", answer)
    return {"log": [f"ask:{answer}"]}

def after(state):
    # (no print here: with subgraphs=True, this node runs while the consumer prints, on LangGraph too)
    return {"log": ["after"]}

sb = StateGraph(State)
sb.add_node(ask); sb.add_node(after)
sb.add_edge(START, "ask"); sb.add_edge("ask", "after")
sub = sb.compile()

def before(state):
    print("before runs")
    return {"log": ["before"]}

pb = StateGraph(State)
pb.add_node(before); pb.add_node("sub", sub); pb.add_node("last", lambda s: {"log": ["last"]})
pb.add_edge(START, "before"); pb.add_edge("before", "sub"); pb.add_edge("sub", "last")
g = pb.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
for ns, chunk in g.stream({"log": []}, cfg, stream_mode="updates", subgraphs=True):
    print("chunk", tuple(n.split(":")[0] for n in ns), {k: (v if k != "__interrupt__" else [i.value for i in v]) for k, v in chunk.items()})
st = g.get_state(cfg, subgraphs=True)
print(st.next, [(t.name, [i.value for i in t.interrupts], t.state.next if t.state else None) for t in st.tasks])
sub_state = st.tasks[0].state
print(sub_state.values, sub_state.next, sub_state.config["configurable"]["checkpoint_ns"].split(":")[0])
print([i.value for i in st.interrupts])
for ns, chunk in g.stream(Command(resume="yes"), cfg, stream_mode="updates", subgraphs=True):
    print("chunk", tuple(n.split(":")[0] for n in ns), chunk)
print(g.get_state(cfg).values)
print(len(list(g.get_state_history(cfg))))
# values mode with an interrupt
cfg2 = {"configurable": {"thread_id": "2"}}
for v in g.stream({"log": []}, cfg2, stream_mode="values"):
    print("values", v if "__interrupt__" not in v else {**v, "__interrupt__": [i.value for i in v["__interrupt__"]]})
for v in g.stream(Command(resume="sure"), cfg2, stream_mode="values"):
    print("values", v)
# update the subgraph's state while it waits
cfg3 = {"configurable": {"thread_id": "3"}}
g.invoke({"log": []}, cfg3)
sub_cfg = g.get_state(cfg3, subgraphs=True).tasks[0].state.config
g.update_state(sub_cfg, {"log": ["edited"]})
print(g.get_state(cfg3, subgraphs=True).tasks[0].state.values)
print(g.invoke(Command(resume="fine"), cfg3))
"""

FUNCTIONAL_STREAMS = """
import asyncio
from langgraph.func import entrypoint, task
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import interrupt, Command
from langgraph.config import get_stream_writer

@task
def step_one(x: int) -> int:
    pass
    return x + 1

@task
def step_two(x: int) -> int:
    pass
    get_stream_writer()({"progress": x})
    return x * 2

@entrypoint(checkpointer=InMemorySaver())
def flow(x: int) -> dict:
    a = step_one(x).result()
    pass
    b = step_two(a).result()
    ok = interrupt(f"approve {b}?")
    pass
    return {"a": a, "b": b, "ok": ok}

cfg = {"configurable": {"thread_id": "1"}}
for mode, chunk in flow.stream(3, cfg, stream_mode=["updates", "custom", "tasks"]):
    if mode == "updates" and "__interrupt__" in chunk:
        print("got", mode, [i.value for i in chunk["__interrupt__"]])
    elif mode == "tasks":
        print("got", mode, chunk["name"], "result" in chunk, chunk.get("triggers"))
    else:
        print("got", mode, chunk)
for mode, chunk in flow.stream(Command(resume=True), cfg, stream_mode=["updates", "tasks"]):
    print("got", mode, chunk if mode == "updates" else (chunk["name"], "result" in chunk))
async def main():
    cfg2 = {"configurable": {"thread_id": "2"}}
    async for chunk in flow.astream(5, cfg2, stream_mode="updates"):
        print("async got", {k: ([i.value for i in v] if k == "__interrupt__" else v) for k, v in chunk.items()})
    async for chunk in flow.astream(Command(resume="y"), cfg2, stream_mode="values"):
        print("async got", chunk)
asyncio.run(main())
"""


def test_a_subgraphs_interrupt_streamed_inspected_edited_and_resumed() -> None:
    compare(SUBGRAPH_INTERRUPT)


def test_an_entrypoints_tasks_stream_around_an_interrupt() -> None:
    compare(FUNCTIONAL_STREAMS)
