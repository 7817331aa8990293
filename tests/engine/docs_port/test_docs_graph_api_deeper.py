"""Graph-API docs programs, run on the real libraries, ported and attached (``port.compare``):
``Runtime`` with a context schema and a store, recursion limits and managed values, deferred
nodes and ``Command`` routing (the drawn edges print as LangChain's ``Edge``), path maps (a
result missing from one raises LangGraph's ``KeyError``), reducers on non-message keys, a
``Command`` starting a thread (its update applied twice, its goto sent by START, its resume
dropped, as on LangGraph), ``output_keys=``; the programs that look at the compiled graph are
in ``test_docs_graph_introspection.py``.

Known difference kept: an attached run refuses ``output_keys=`` (a clear ``TypeError``)."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

RUNTIME_CONTEXT = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from dataclasses import dataclass
from typing import Annotated
import operator
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.runtime import Runtime, get_runtime
from langgraph.store.memory import InMemoryStore
from langgraph.checkpoint.memory import InMemorySaver

@dataclass
class Ctx:
    user_id: str
    lang: str = "en"

class S(TypedDict):
    msgs: Annotated[list, operator.add]

def greet(state: S, runtime: Runtime[Ctx]):
    print("ctx", runtime.context, type(runtime.context).__name__)
    print("store?", runtime.store is not None, "writer?", callable(runtime.stream_writer))
    print("prev", runtime.previous)
    ns = ("users", runtime.context.user_id)
    runtime.store.put(ns, "profile", {"lang": runtime.context.lang})
    item = runtime.store.get(ns, "profile")
    return {"msgs": [f"hello {runtime.context.user_id} {item.value}"]}

def other(state: S):
    rt = get_runtime(Ctx)
    return {"msgs": [f"other {rt.context.lang}"]}

b = StateGraph(S, context_schema=Ctx)
b.add_node("greet", greet); b.add_node("other", other)
b.add_edge(START, "greet"); b.add_edge("greet", "other")
store = InMemoryStore()
g = b.compile(store=store, checkpointer=InMemorySaver())
print(g.invoke({"msgs": []}, {"configurable": {"thread_id": "1"}}, context=Ctx(user_id="u1", lang="fr")))
print(g.invoke({"msgs": []}, {"configurable": {"thread_id": "1"}}, context={"user_id": "u2"}))
for ch in g.stream({"msgs": []}, {"configurable": {"thread_id": "2"}}, context=Ctx("u3"), stream_mode="updates"):
    print(ch)
print([(i.namespace, i.key, i.value) for i in store.search(("users",))])
print(sorted(g.get_context_jsonschema()["properties"]) if hasattr(g, "get_context_jsonschema") else "no ctx schema")
"""

RECURSION = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.errors import GraphRecursionError
from langgraph.managed import RemainingSteps, IsLastStep

class S(TypedDict):
    count: Annotated[int, operator.add]
    remaining_steps: RemainingSteps

def a(s):
    return {"count": 1}
def route(s):
    return "a" if s["remaining_steps"] > 2 else END
b = StateGraph(S); b.add_node("a", a); b.add_edge(START, "a"); b.add_conditional_edges("a", route)
g = b.compile()
print(g.invoke({"count": 0}))
print(g.invoke({"count": 0}, {"recursion_limit": 5}))
b2 = StateGraph(S); b2.add_node("a", a); b2.add_edge(START, "a"); b2.add_edge("a", "a")
try:
    b2.compile().invoke({"count": 0}, {"recursion_limit": 4})
except GraphRecursionError as e:
    print("RAISED", type(e).__name__)
    print(str(e))
try:
    for ch in b2.compile().stream({"count": 0}, {"recursion_limit": 2}):
        print(ch)
except GraphRecursionError as e:
    print("stream RAISED", str(e).splitlines()[0])
class L(TypedDict):
    count: Annotated[int, operator.add]
    is_last_step: IsLastStep
def c(s):
    print("last?", s["is_last_step"])
    return {"count": 1}
b3 = StateGraph(L); b3.add_node("c", c); b3.add_edge(START, "c")
b3.add_conditional_edges("c", lambda s: END if s["is_last_step"] else "c")
print(b3.compile().invoke({"count": 0}, {"recursion_limit": 3}))
"""

DEFER_AND_COMMAND = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import operator
from typing import Annotated, Literal
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.types import Command

class S(TypedDict):
    agg: Annotated[list, operator.add]
    flag: str
def a(s): return {"agg": ["a"]}
def b(s): return {"agg": ["b"]}
def b2(s): return {"agg": ["b2"]}
def c(s): return {"agg": ["c"]}
def d(s): return {"agg": ["d"]}
bl = StateGraph(S)
for n, f in [("a", a), ("b", b), ("b2", b2), ("c", c)]:
    bl.add_node(n, f)
bl.add_node("d", d, defer=True)
bl.add_edge(START, "a"); bl.add_edge("a", "b"); bl.add_edge("a", "c"); bl.add_edge("b", "b2")
bl.add_edge("b2", "d"); bl.add_edge("c", "d"); bl.add_edge("d", END)
g = bl.compile()
print(g.invoke({"agg": []}))
print(sorted(map(str, g.stream({"agg": []}))))  # parallel sync nodes finish in any order

def router(s) -> Command[Literal["x", "y"]]:
    return Command(update={"flag": "routed", "agg": ["r"]}, goto="y" if s["flag"] == "go-y" else "x")
def x(s): return {"agg": ["x"]}
def y(s): return Command(update={"agg": ["y"]}, goto=END)
bl = StateGraph(S); bl.add_node("router", router); bl.add_node("x", x); bl.add_node("y", y)
bl.add_edge(START, "router")
g = bl.compile()
print(g.invoke({"agg": [], "flag": "go-y"}))
print(g.invoke({"agg": [], "flag": "no"}))
print(list(g.get_graph().edges))
print(g.get_graph().draw_mermaid())
def multi(s): return Command(goto=["x", "y"], update={"agg": ["m"]})
bl = StateGraph(S); bl.add_node("multi", multi, destinations=("x", "y")); bl.add_node("x", x); bl.add_node("y", y)
bl.add_edge(START, "multi")
g = bl.compile()
print(g.invoke({"agg": [], "flag": ""}))
print(g.get_graph().draw_mermaid())
"""

PATH_MAPS = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END

class S(TypedDict):
    val: int
    path: Annotated[list, operator.add]
def start(s): return {"path": ["start"]}
def big(s): return {"path": ["big"]}
def small(s): return {"path": ["small"]}
def both1(s): return {"path": ["both1"]}
def both2(s): return {"path": ["both2"]}
def decide(s): return s["val"] > 10
bl = StateGraph(S)
for f in (start, big, small, both1, both2): bl.add_node(f.__name__, f)
bl.add_edge(START, "start")
bl.add_conditional_edges("start", decide, {True: "big", False: "small"})
bl.add_edge("big", END); bl.add_edge("small", END)
g = bl.compile()
print(g.invoke({"val": 20, "path": []}), g.invoke({"val": 1, "path": []}))
print(g.get_graph().draw_mermaid())
# list path map and list return
bl = StateGraph(S)
for f in (start, big, small, both1, both2): bl.add_node(f.__name__, f)
bl.add_edge(START, "start"); bl.add_edge(START, "small")
bl.add_conditional_edges("start", lambda s: ["both1", "both2"], ["both1", "both2"])
bl.add_edge(["both1", "both2"], "big")
g = bl.compile()
print(g.invoke({"val": 0, "path": []}))
print(sorted(map(str, g.stream({"val": 0, "path": []}))))  # parallel nodes: any order
print(g.get_graph().draw_mermaid())
print(g.get_graph().draw_ascii() if False else "")
# bad path map value
bl = StateGraph(S); bl.add_node("start", start); bl.add_node("big", big)
bl.add_edge(START, "start")
bl.add_conditional_edges("start", lambda s: "nope", {"yes": "big"})
try:
    print(bl.compile().invoke({"val": 0, "path": []}))
except Exception as e:
    print("RAISED", type(e).__name__, e)
bl = StateGraph(S); bl.add_node("start", start)
bl.add_edge(START, "start")
bl.add_conditional_edges("start", lambda s: "ghost")
try:
    print(bl.compile().invoke({"val": 0, "path": []}))
except Exception as e:
    print("RAISED", type(e).__name__, e)
"""

REDUCERS = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.types import Overwrite, Send
from langgraph.errors import InvalidUpdateError

def merge(a: dict, b: dict) -> dict:
    return {**a, **b}
def maxr(a: int, b: int) -> int:
    return max(a, b)
class S(TypedDict):
    d: Annotated[dict, merge]
    m: Annotated[int, maxr]
    s: Annotated[set, lambda a, b: a | b]
    plain: int
def one(st): return {"d": {"one": 1}, "m": 3, "s": {"x"}}
def two(st): return {"d": {"two": 2}, "m": 7, "s": {"y"}}
def three(st): return {"d": Overwrite({"only": 3}), "m": 1}
bl = StateGraph(S)
bl.add_node("one", one); bl.add_node("two", two); bl.add_node("three", three)
bl.add_edge(START, "one"); bl.add_edge(START, "two"); bl.add_edge(["one", "two"], "three")
out = bl.compile().invoke({"d": {"init": 0}, "m": 5, "s": set(), "plain": 0})
print(out["d"], out["m"], sorted(out["s"]))
def p1(st): return {"plain": 1}
def p2(st): return {"plain": 2}
bl = StateGraph(S); bl.add_node("p1", p1); bl.add_node("p2", p2)
bl.add_edge(START, "p1"); bl.add_edge(START, "p2")
try:
    bl.compile().invoke({"plain": 0})
except InvalidUpdateError as e:
    print("RAISED", type(e).__name__, str(e).splitlines()[0])
def o1(st): return {"d": Overwrite({"a": 1})}
def o2(st): return {"d": Overwrite({"b": 1})}
bl = StateGraph(S); bl.add_node("o1", o1); bl.add_node("o2", o2)
bl.add_edge(START, "o1"); bl.add_edge(START, "o2")
try:
    print(bl.compile().invoke({"d": {}}))
except Exception as e:
    print("RAISED", type(e).__name__, str(e).splitlines()[0])
print(bl.compile().invoke({"d": Overwrite({"z": 9})}) if False else "")
def bad(st): return {"nokey": 1}
bl = StateGraph(S); bl.add_node("bad", bad); bl.add_edge(START, "bad")
try:
    print(bl.compile().invoke({"plain": 1}))
except Exception as e:
    print("RAISED", type(e).__name__, str(e).splitlines()[0])
def notdict(st): return 5
bl = StateGraph(S); bl.add_node("nd", notdict); bl.add_edge(START, "nd")
try:
    print(bl.compile().invoke({"plain": 1}))
except Exception as e:
    print("RAISED", type(e).__name__, str(e).splitlines()[0])
"""

COMMAND_FRESH_THREAD = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.types import Command
from langgraph.checkpoint.memory import InMemorySaver

class S(TypedDict):
    a: str
    log: Annotated[list, operator.add]
def n1(s): return {"log": ["n1"], "a": s.get("a", "") + "1"}
def n2(s): return {"log": ["n2"]}
b = StateGraph(S); b.add_node("n1", n1); b.add_node("n2", n2)
b.add_edge(START, "n1"); b.add_edge("n1", "n2")
g = b.compile(checkpointer=InMemorySaver())
print("-- Command on a fresh thread")
for cmd in [Command(update={"a": "x"}), Command(goto="n2"), Command(update={"a": "y"}, goto="n1"), Command(resume="r")]:
    try:
        print(g.invoke(cmd, {"configurable": {"thread_id": repr(cmd)}}))
    except Exception as e:
        print("RAISED", type(e).__name__, e)
g2 = b.compile()
for cmd in [Command(update={"a": "x"}), Command(goto="n2")]:
    try:
        print(g2.invoke(cmd))
    except Exception as e:
        print("RAISED", type(e).__name__, e)
class T(TypedDict):
    a: str
    log: Annotated[list, operator.add]
def ask(s):
    v = interrupt("q")
    return {"log": ["ask"], "a": str(v)}
from langgraph.types import interrupt
b = StateGraph(T); b.add_node("ask", ask); b.add_node("n2", n2)
b.add_edge(START, "ask"); b.add_edge("ask", "n2")
g = b.compile(checkpointer=InMemorySaver())
r = g.invoke(Command(resume="r"), {"configurable": {"thread_id": "x"}})
print({k: v for k, v in r.items() if k != "__interrupt__"}, [i.value for i in r["__interrupt__"]])
r = g.invoke(Command(resume="r2", update={"a": "z"}), {"configurable": {"thread_id": "y"}})
print({k: v for k, v in r.items() if k != "__interrupt__"}, [i.value for i in r["__interrupt__"]])
r = g.invoke(Command(goto="n2", update={"log": ["u"]}), {"configurable": {"thread_id": "w"}})
print({k: v for k, v in r.items() if k != "__interrupt__"}, [i.value for i in r["__interrupt__"]])
print([(h.metadata["step"], h.metadata["source"], h.next, h.values) for h in g.get_state_history({"configurable": {"thread_id": "w"}})])
try:
    b.compile().invoke(Command(resume="r"))
except RuntimeError as e:
    print("RAISED", e)
"""

OUTPUT_KEYS = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.types import Command
from langgraph.checkpoint.memory import InMemorySaver

class S(TypedDict):
    a: str
    log: Annotated[list, operator.add]
def n1(s): return {"log": ["n1"], "a": s.get("a", "") + "1"}
def n2(s): return {"log": ["n2"]}
b = StateGraph(S); b.add_node("n1", n1); b.add_node("n2", n2)
b.add_edge(START, "n1"); b.add_edge("n1", "n2")
g = b.compile(checkpointer=InMemorySaver())
g2 = b.compile()
print("-- output_keys")
print(g2.invoke({"a": "q", "log": []}, output_keys=["log"]))
print(g2.invoke({"a": "q", "log": []}, output_keys="a"))
print(list(g2.stream({"a": "q", "log": []}, output_keys=["a"], stream_mode="values")))
print(list(g2.stream({"a": "q", "log": []}, output_keys="log", stream_mode="updates")))
print(list(g2.stream({"a": "q", "log": []}, output_keys=["a"], stream_mode="updates")))
print(list(g2.stream({"a": "q", "log": []}, output_keys=["a", "log"], stream_mode=["updates", "values"])))
print(g2.invoke({"a": "q", "log": []}, output_keys=["a"], stream_mode="updates"))
import asyncio
print(asyncio.run(g2.ainvoke({"a": "q", "log": []}, output_keys="log")))
g3 = b.compile(checkpointer=InMemorySaver(), interrupt_before=["n2"])
c3 = {"configurable": {"thread_id": "ok"}}
print(g3.invoke({"a": "q", "log": []}, c3, output_keys=["a"]))
print(g3.invoke(None, c3, output_keys="log"))
"""


def test_runtime_context() -> None:
    compare(RUNTIME_CONTEXT)


def test_recursion() -> None:
    compare(RECURSION)


def test_defer_and_command() -> None:
    compare(DEFER_AND_COMMAND)


def test_path_maps() -> None:
    compare(PATH_MAPS)


def test_reducers() -> None:
    compare(REDUCERS)


def test_command_fresh_thread() -> None:
    compare(COMMAND_FRESH_THREAD)


def test_output_keys() -> None:
    # an attached run refuses output_keys (engine.attach.run_options)
    compare(OUTPUT_KEYS, attached=False)
