"""Docs programs of the memory store, human in the loop, short-term memory and streaming, run
on the real libraries, ported and attached (``port.compare``): store search filters, deletes,
namespaces and ``Item`` reprs (as LangGraph's, a search hit shown as an ``Item``); several
interrupts in one node, validating an answer in a loop, approve / edit, an interrupt in a tool,
reviewing tool calls with ``Command(goto=..., update=...)``; trimming, summarizing and
removing messages; an async fan-out with an interrupt; a tool's custom writes in a subgraph;
parallel async nodes, whose task starts all come first and whose results (``updates``,
``tasks``) come after their own stream writes, as LangGraph streams them from its done
callbacks."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

STORE = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from langgraph.store.memory import InMemoryStore
store = InMemoryStore()
store.put(("users", "1", "memories"), "m1", {"text": "likes pizza", "kind": "food", "score": 5})
store.put(("users", "1", "memories"), "m2", {"text": "lives in sf", "kind": "place", "score": 2})
store.put(("users", "2", "memories"), "m1", {"text": "likes tea", "kind": "food", "score": 9})
store.put(("docs",), "d1", {"title": "x"})
it = store.get(("users", "1", "memories"), "m1")
print(it.key, it.namespace, it.value, type(it).__name__)
print(sorted(it.dict()))
print([i.key for i in store.search(("users", "1"))])
print([(i.namespace, i.key, i.score) for i in store.search(("users",), filter={"kind": "food"})])
print([i.key for i in store.search(("users",), filter={"score": {"$gt": 4}})])
print([i.key for i in store.search(("users",), limit=1, offset=1)])
print(store.list_namespaces())
print(store.list_namespaces(prefix=("users",)))
print(store.list_namespaces(suffix=("memories",), max_depth=2))
store.delete(("users", "1", "memories"), "m2")
print(store.get(("users", "1", "memories"), "m2"))
print([i.key for i in store.search(("users", "1"))])
store.put(("a",), "k", {"v": 1})
store.put(("a",), "k", {"v": 2})
print(store.get(("a",), "k").value)
store.put(("a",), "k", None)
print(store.get(("a",), "k"))
print(repr(store.search(("nope",))))
import re
T = lambda s: re.sub(r"'\d{4}-\d\d-\d\dT[^']*'", "'TS'", s)
it = store.search(("users", "2"))[0]
print(T(repr(it)))
import re
T = lambda s: re.sub(r"'\d{4}-\d\d-\d\dT[^']*'", "'TS'", s)
print(T(repr(store.get(("users", "2", "memories"), "m1"))))
print(T(str(store.search(("users",), filter={"kind": "food"}))))
a = store.get(("users", "2", "memories"), "m1"); b = store.search(("users", "2"))[0]
print(a == b, hash(a) == hash(b), len({a, b}))
"""

MULTI_INTERRUPTS = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.types import interrupt, Command
from langgraph.checkpoint.memory import InMemorySaver

class S(TypedDict):
    name: str
    age: int
    approved: bool
def collect(s):
    name = interrupt("What is your name?")
    age = interrupt("What is your age?")
    return {"name": name, "age": age}
def validate(s):
    q = "age must be positive"
    age = s["age"]
    while not isinstance(age, int) or age < 0:
        age = interrupt({"error": q, "got": age})
        q = f"still bad: {age}"
    return {"age": age}
def approve(s):
    d = interrupt({"action": "approve?", "data": {"name": s["name"], "age": s["age"]}})
    if d["type"] == "edit":
        return Command(update={"name": d["name"], "approved": True}, goto=END)
    return Command(update={"approved": d["type"] == "approve"}, goto=END)
b = StateGraph(S)
b.add_node("collect", collect); b.add_node("validate", validate); b.add_node("approve", approve)
b.add_edge(START, "collect"); b.add_edge("collect", "validate"); b.add_edge("validate", "approve")
g = b.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
def show(r):
    if "__interrupt__" in r:
        print("interrupt:", [i.value for i in r["__interrupt__"]], {k: v for k, v in r.items() if k != "__interrupt__"})
    else:
        print("done:", r)
show(g.invoke({"name": "", "age": 0, "approved": False}, cfg))
for answer in ["Ann", -5, "x", -1, 30, {"type": "edit", "name": "Anna"}]:
    show(g.invoke(Command(resume=answer), cfg))
    st = g.get_state(cfg)
    print("  next", st.next, [len(t.interrupts) for t in st.tasks])
for ch in g.stream({"name": "", "age": 0, "approved": False}, {"configurable": {"thread_id": "2"}}, stream_mode="updates"):
    print(ch if "__interrupt__" not in ch else ("INT", [i.value for i in ch["__interrupt__"]]))
for a in ["Bob", 4, {"type": "reject"}]:
    for ch in g.stream(Command(resume=a), {"configurable": {"thread_id": "2"}}, stream_mode=["updates", "values"]):
        print(ch[0], ch[1] if "__interrupt__" not in ch[1] else ("INT", [i.value for i in ch[1]["__interrupt__"]]))
"""

INTERRUPT_IN_TOOL = r'''
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langgraph.graph import StateGraph, START, END, MessagesState
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import interrupt, Command
from langgraph.checkpoint.memory import InMemorySaver

class M(GenericFakeChatModel):
    def bind_tools(self, tools, **kw): return self

@tool
def book_hotel(hotel: str) -> str:
    """Book a hotel."""
    resp = interrupt({"tool": "book_hotel", "args": {"hotel": hotel}, "msg": "approve?"})
    if resp["type"] == "accept":
        return f"booked {hotel}"
    if resp["type"] == "edit":
        return f"booked {resp['args']['hotel']}"
    return "cancelled"

@tool
def weather(city: str) -> str:
    """Weather."""
    return f"sunny {city}"

model = M(messages=iter([
    AIMessage("", tool_calls=[{"name": "book_hotel", "args": {"hotel": "Ritz"}, "id": "b1"}, {"name": "weather", "args": {"city": "sf"}, "id": "w1"}]),
    AIMessage("all set"),
]))
def agent(state: MessagesState):
    return {"messages": [model.invoke(state["messages"])]}
b = StateGraph(MessagesState)
b.add_node("agent", agent); b.add_node("tools", ToolNode([book_hotel, weather]))
b.add_edge(START, "agent"); b.add_conditional_edges("agent", tools_condition); b.add_edge("tools", "agent")
g = b.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "t"}}
for ch in g.stream({"messages": [HumanMessage("book", id="h")]}, cfg, stream_mode="updates"):
    for k, v in ch.items():
        if k == "__interrupt__":
            print("INT", [i.value for i in v])
        else:
            print(k, [(m.type, m.content, getattr(m, "tool_call_id", None)) for m in v["messages"]])
st = g.get_state(cfg)
print(st.next, [(t.name, [i.value["tool"] for i in t.interrupts]) for t in st.tasks])
print([(w[0][:0], w[1]) for w in g.checkpointer.get_tuple(cfg).pending_writes])
for ch in g.stream(Command(resume={"type": "edit", "args": {"hotel": "Hilton"}}), cfg, stream_mode="updates"):
    for k, v in ch.items():
        print(k, [(m.type, m.content, getattr(m, "tool_call_id", None)) for m in v["messages"]])
print([(m.type, m.content) for m in g.get_state(cfg).values["messages"]])
'''

REVIEW_TOOL_CALLS = r'''
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from typing import Literal
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langgraph.graph import StateGraph, START, END, MessagesState
from langgraph.types import interrupt, Command
from langgraph.checkpoint.memory import InMemorySaver

class M(GenericFakeChatModel):
    def bind_tools(self, tools, **kw): return self
@tool
def weather_search(city: str) -> str:
    """Search weather."""
    return f"Sunny in {city}!"
model = M(messages=iter([
    AIMessage("", tool_calls=[{"name": "weather_search", "args": {"city": "SF"}, "id": "t1"}], id="a1"),
    AIMessage("It's sunny in San Francisco", id="a2"),
    AIMessage("", tool_calls=[{"name": "weather_search", "args": {"city": "NYC"}, "id": "t2"}], id="a3"),
    AIMessage("edited answer", id="a4"),
    AIMessage("", tool_calls=[{"name": "weather_search", "args": {"city": "LA"}, "id": "t3"}], id="a5"),
    AIMessage("feedback handled", id="a6"),
]))
def call_llm(state):
    return {"messages": [model.invoke(state["messages"])]}
def human_review_node(state) -> Command[Literal["call_llm", "run_tool"]]:
    last = state["messages"][-1]
    tc = last.tool_calls[-1]
    review = interrupt({"question": "Is this correct?", "tool_call": tc})
    action, data = review["action"], review.get("data")
    if action == "continue":
        return Command(goto="run_tool")
    if action == "update":
        updated = AIMessage(content=last.content, tool_calls=[{"id": tc["id"], "name": tc["name"], "args": data}], id=last.id)
        return Command(goto="run_tool", update={"messages": [updated]})
    if action == "feedback":
        tm = ToolMessage(content=data, name=tc["name"], tool_call_id=tc["id"])
        return Command(goto="call_llm", update={"messages": [tm]})
def run_tool(state):
    out = []
    for tc in state["messages"][-1].tool_calls:
        out.append(ToolMessage(content=weather_search.invoke(tc["args"]), name=tc["name"], tool_call_id=tc["id"]))
    return {"messages": out}
def route_after_llm(state) -> Literal[END, "human_review_node"]:
    return "human_review_node" if state["messages"][-1].tool_calls else END
b = StateGraph(MessagesState)
b.add_node(call_llm); b.add_node(run_tool); b.add_node(human_review_node)
b.add_edge(START, "call_llm"); b.add_conditional_edges("call_llm", route_after_llm); b.add_edge("run_tool", "call_llm")
g = b.compile(checkpointer=InMemorySaver())
def show(ch):
    for k, v in ch.items():
        if k == "__interrupt__":
            print("  INT", v[0].value["tool_call"]["args"])
        elif v is None:
            print("  ", k, None)
        else:
            print("  ", k, [(m.type, m.content, getattr(m, "tool_calls", None) and m.tool_calls[0]["args"]) for m in v["messages"]])
for i, (q, review) in enumerate([("sf?", {"action": "continue"}), ("nyc?", {"action": "update", "data": {"city": "New York"}}), ("la?", {"action": "feedback", "data": "use LA, California"})]):
    cfg = {"configurable": {"thread_id": str(i)}}
    for ch in g.stream({"messages": [HumanMessage(q, id=f"h{i}")]}, cfg, stream_mode="updates"):
        show(ch)
    print(" next", g.get_state(cfg).next)
    for ch in g.stream(Command(resume=review), cfg, stream_mode="updates"):
        show(ch)
    out = g.get_state(cfg).values
    print(" final", [(m.type, m.content) for m in out["messages"]])
model.messages = iter([AIMessage("", tool_calls=[{"name": "weather_search", "args": {"city": "X"}, "id": "t9"}], id="b1"), AIMessage("done", id="b2")])
cfg = {"configurable": {"thread_id": "inv"}}
r = g.invoke({"messages": [HumanMessage("x?", id="hx")]}, cfg)
print(r["__interrupt__"][0].value["question"])
r = g.invoke(Command(resume={"action": "continue"}), cfg)
print([(m.type, m.content) for m in r["messages"]])
'''

SHORT_TERM_MEMORY = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from typing import Annotated
from typing_extensions import TypedDict
from langchain_core.messages import HumanMessage, AIMessage, RemoveMessage, SystemMessage, trim_messages
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langgraph.graph import StateGraph, START, END, MessagesState
from langgraph.graph.message import add_messages, REMOVE_ALL_MESSAGES
from langgraph.checkpoint.memory import InMemorySaver

class M(GenericFakeChatModel):
    def bind_tools(self, tools, **kw): return self
model = M(messages=iter([AIMessage(f"reply {i}", id=f"ai{i}") for i in range(20)]))

class State(MessagesState):
    summary: str

def call_model(state: State):
    msgs = trim_messages(state["messages"], strategy="last", token_counter=count_tokens_approximately, max_tokens=40, start_on="human", end_on=("human", "tool"))
    print("  model sees", [m.content for m in msgs])
    return {"messages": [model.invoke(msgs)]}
def summarize(state: State):
    s = state.get("summary", "")
    new = s + "|" + ",".join(m.content for m in state["messages"][:-2])
    return {"summary": new, "messages": [RemoveMessage(id=m.id) for m in state["messages"][:-2]]}
def should(state: State):
    return "summarize" if len(state["messages"]) > 4 else END
b = StateGraph(State)
b.add_node("call_model", call_model); b.add_node("summarize", summarize)
b.add_edge(START, "call_model"); b.add_conditional_edges("call_model", should); b.add_edge("summarize", END)
saver = InMemorySaver()
g = b.compile(checkpointer=saver)
cfg = {"configurable": {"thread_id": "1"}}
for i in range(4):
    out = g.invoke({"messages": [HumanMessage(f"hi {i}", id=f"h{i}")]}, cfg)
    print(i, [(m.type, m.content) for m in out["messages"]], out.get("summary"))
print(len(list(g.get_state_history(cfg))))
saver.delete_thread("1")
print(g.get_state(cfg).values, len(list(g.get_state_history(cfg))))
print(add_messages([HumanMessage("a", id="1")], [HumanMessage("b", id="1"), AIMessage("c", id="2")]))
print(add_messages([HumanMessage("a", id="1"), AIMessage("x", id="2")], [RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("z", id="3")]))
try:
    add_messages([HumanMessage("a", id="1")], [RemoveMessage(id="nope")])
except Exception as e:
    print("RAISED", type(e).__name__, e)
print(add_messages([], [{"role": "user", "content": "dict msg", "id": "d1"}, ("ai", "tuple msg")])[0])
m = add_messages([HumanMessage("a", id="1")], "plain string")
print([(x.type, x.content) for x in m], m[1].id is not None)
"""

ASYNC_FAN_OUT = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import asyncio, operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import interrupt, Command, Send
from langgraph.config import get_stream_writer

class S(TypedDict):
    items: list
    out: Annotated[list, operator.add]
async def fan(s): return [Send("work", {"item": i}) for i in s["items"]]
async def work(s):
    await asyncio.sleep(0)
    get_stream_writer()({"done": s["item"]})
    return {"out": [s["item"] * 10]}
async def ask(s):
    ans = interrupt({"total": sum(s["out"])})
    return {"out": [ans]}
b = StateGraph(S); b.add_node("work", work); b.add_node("ask", ask)
b.add_conditional_edges(START, fan, ["work"]); b.add_edge("work", "ask")
g = b.compile(checkpointer=InMemorySaver())
async def main():
    cfg = {"configurable": {"thread_id": "1"}}
    async for mode, ch in g.astream({"items": [1, 2, 3], "out": []}, cfg, stream_mode=["updates", "custom"]):
        print(mode, ch if "__interrupt__" not in ch else [i.value for i in ch["__interrupt__"]])
    st = await g.aget_state(cfg)
    print(st.next, st.values)
    print(await g.ainvoke(Command(resume=99), cfg))
    hist = [h async for h in g.aget_state_history(cfg)]
    print([(h.metadata["step"], h.next) for h in hist])
    r = await g.abatch([{"items": [1], "out": []}, {"items": [2], "out": []}], [{"configurable": {"thread_id": "b1"}}, {"configurable": {"thread_id": "b2"}}])
    print([x["__interrupt__"][0].value for x in r])
asyncio.run(main())
"""

SUBGRAPH_TOOL_WRITER = r'''
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from typing_extensions import TypedDict
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langgraph.graph import StateGraph, START, END, MessagesState
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.config import get_stream_writer

class M(GenericFakeChatModel):
    def bind_tools(self, tools, **kw): return self

@tool
def lookup(city: str) -> str:
    """Look up weather."""
    w = get_stream_writer()
    w({"tool_progress": f"looking {city}"})
    w(f"done {city}")
    return f"sunny in {city}"

model = M(messages=iter([
    AIMessage("", tool_calls=[{"name": "lookup", "args": {"city": "sf"}, "id": "c1"}]),
    AIMessage("It is sunny"),
]))
def agent(state: MessagesState):
    get_stream_writer()({"agent": len(state["messages"])})
    return {"messages": [model.invoke(state["messages"])]}
sb = StateGraph(MessagesState)
sb.add_node("agent", agent); sb.add_node("tools", ToolNode([lookup]))
sb.add_edge(START, "agent"); sb.add_conditional_edges("agent", tools_condition); sb.add_edge("tools", "agent")
sub = sb.compile()
def prep(state: MessagesState):
    get_stream_writer()("prep")
    return {}
pb = StateGraph(MessagesState)
pb.add_node("prep", prep); pb.add_node("weather", sub)
pb.add_edge(START, "prep"); pb.add_edge("prep", "weather")
g = pb.compile()
for ns, mode, chunk in g.stream({"messages": [HumanMessage("weather?", id="h")]}, stream_mode=["custom", "updates"], subgraphs=True):
    nsn = tuple(n.split(":")[0] for n in ns)
    if mode == "updates":
        chunk = {k: ([(m.type, m.content) for m in v["messages"]] if v and "messages" in v else v) for k, v in chunk.items()}
    print(nsn, mode, chunk)
print("-- no subgraphs")
model.messages = iter([AIMessage("", tool_calls=[{"name": "lookup", "args": {"city": "ny"}, "id": "c2"}]), AIMessage("ok")])
for mode, chunk in g.stream({"messages": [HumanMessage("w?", id="h2")]}, stream_mode=["custom", "updates"]):
    if mode == "updates":
        chunk = {k: ([(m.type, m.content) for m in v["messages"]] if v and "messages" in v else v) for k, v in chunk.items()}
    print(mode, chunk)
'''


ASYNC_PARALLEL_STREAMS = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import asyncio, operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.config import get_stream_writer

class S(TypedDict):
    out: Annotated[list, operator.add]

def make(name, awaits):
    async def node(state):
        for _ in range(awaits):
            await asyncio.sleep(0)
        get_stream_writer()({"done": name})
        return {"out": [name]}
    return node

async def main():
    for awaits in (0, 1, 3):
        b = StateGraph(S)
        for n in ("a", "b", "c"):
            b.add_node(n, make(n, awaits))
            b.add_edge(START, n)
        b.add_node("join", make("join", 0))
        b.add_edge(["a", "b", "c"], "join")
        g = b.compile()
        async for mode, chunk in g.astream({"out": []}, stream_mode=["updates", "custom"]):
            print(awaits, mode, chunk)
        async for chunk in g.astream({"out": []}, stream_mode=["custom", "values", "tasks"]):
            print(awaits, chunk[0], chunk[1] if chunk[0] != "tasks" else (chunk[1]["name"], "result" in chunk[1]))
asyncio.run(main())
"""


def test_store() -> None:
    compare(STORE)


def test_multi_interrupts() -> None:
    compare(MULTI_INTERRUPTS)


def test_interrupt_in_tool() -> None:
    compare(INTERRUPT_IN_TOOL)


def test_review_tool_calls() -> None:
    compare(REVIEW_TOOL_CALLS)


def test_short_term_memory() -> None:
    compare(SHORT_TERM_MEMORY)


def test_async_fan_out() -> None:
    compare(ASYNC_FAN_OUT)


def test_subgraph_tool_writer() -> None:
    compare(SUBGRAPH_TOOL_WRITER)


def test_async_parallel_streams() -> None:
    compare(ASYNC_PARALLEL_STREAMS)
