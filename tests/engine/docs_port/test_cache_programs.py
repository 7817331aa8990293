"""Node caching and durability docs programs, real LangGraph vs ported by their imports:
``CachePolicy`` hits for nodes and ``Send`` tasks (of several tasks of one step with the same
key only the last is served, the others run), ``clear_cache`` for all or some nodes, sync and
async; a cached task's start in the ``tasks`` / ``debug`` streams but no result and no
``messages``; and ``durability="exit" | "async" | "sync"`` histories."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

CACHE_AND_DURABILITY = """
import operator, asyncio
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.cache.memory import InMemoryCache
from langgraph.types import CachePolicy, Send

calls = {"n": 0}
class State(TypedDict):
    x: int
    results: Annotated[list, operator.add]

def expensive(state):
    calls["n"] += 1
    return {"results": [state["x"] * 2]}

def fan(state):
    return [Send("work", {"x": i, "results": []}) for i in (1, 2, 1)]

def work(state):
    calls["n"] += 1
    return {"results": [state["x"] * 100]}

b = StateGraph(State)
b.add_node("expensive", expensive, cache_policy=CachePolicy(key_func=lambda s: str(s["x"])))
b.add_node("work", work, cache_policy=CachePolicy())
b.add_edge(START, "expensive")
b.add_conditional_edges("expensive", fan, ["work"])
g = b.compile(cache=InMemoryCache())
for x in (3, 3, 4):
    out = []
    for chunk in g.stream({"x": x, "results": []}, stream_mode="updates"):
        out.append(chunk)
    print(x, sorted(map(str, out)), calls)
print(sorted(g.invoke({"x": 3, "results": []})["results"]), calls)
g.clear_cache()
print(sorted(g.invoke({"x": 3, "results": []})["results"]), calls)
g.clear_cache(nodes=["work"])
print(sorted(g.invoke({"x": 3, "results": []})["results"]), calls)
async def main():
    print(sorted((await g.ainvoke({"x": 3, "results": []}))["results"]), calls)
    await g.aclear_cache()
    print(sorted((await g.ainvoke({"x": 3, "results": []}))["results"]), calls)
asyncio.run(main())
# a ttl and a checkpointer; cached updates in the debug stream
g2 = b.compile(cache=InMemoryCache(), checkpointer=InMemorySaver())
for t in ("a", "b"):
    lines = []
    for item in g2.stream({"x": 5, "results": []}, {"configurable": {"thread_id": t}}, stream_mode="debug"):
        if item["type"] == "task_result":
            lines.append((t, item["step"], item["payload"]["name"], item["payload"]["result"], item["payload"].get("interrupts")))
        elif item["type"] == "task":
            lines.append((t, item["step"], "start", item["payload"]["name"]))
    for line in sorted(lines, key=str):  # parallel tasks finish in any order
        print(*line)
print(calls)

print("== durability")
class S2(TypedDict):
    n: int
def inc(state):
    return {"n": state["n"] + 1}
def inc2(state):
    return {"n": state["n"] + 1}
b3 = StateGraph(S2); b3.add_node(inc); b3.add_node(inc2); b3.add_edge(START, "inc"); b3.add_edge("inc", "inc2")
for d in ("exit", "async", "sync"):
    saver = InMemorySaver()
    g3 = b3.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": d}}
    print(d, g3.invoke({"n": 0}, cfg, durability=d), [(h.metadata["step"], h.metadata["source"], h.next) for h in g3.get_state_history(cfg)])
    print(" ", g3.invoke({"n": 10}, cfg, durability=d), len(list(g3.get_state_history(cfg))))
"""

CACHED_STREAMS = """
from langgraph.graph import StateGraph, START, MessagesState
from langgraph.cache.memory import InMemoryCache
from langgraph.types import CachePolicy
from langchain.messages import AIMessage
n = {"c": 0}
def reply(state: MessagesState):
    n["c"] += 1
    return {"messages": [AIMessage(f"reply {n['c']}", id=f"r{n['c']}")]}
b = StateGraph(MessagesState)
b.add_node("reply", reply, cache_policy=CachePolicy(key_func=lambda s: "k"))
b.add_edge(START, "reply")
g = b.compile(cache=InMemoryCache())
for i in range(2):
    for mode, item in g.stream({"messages": [{"role": "user", "content": "hi", "id": "h"}]}, stream_mode=["messages", "updates", "tasks"]):
        if mode == "messages":
            print(i, mode, item[0].content, item[1]["langgraph_node"])
        elif mode == "tasks":
            print(i, mode, item["name"], sorted(item))
        else:
            print(i, mode, {k: (v if k == "__metadata__" else [m.content for m in v["messages"]]) for k, v in item.items()})
"""


def test_cache_hits_clearing_and_durability() -> None:
    compare(CACHE_AND_DURABILITY)


def test_a_cached_node_streams_its_update_only() -> None:
    compare(CACHED_STREAMS)
