"""Functional-API docs programs, run on the real libraries, ported and attached (``port.compare``):
``previous`` and ``entrypoint.final``, futures of parallel tasks, tasks in loops that interrupt,
several interrupts in one entrypoint, a task's interrupt streamed (``tasks`` / ``debug``) as the
entrypoint's, which called it, as LangGraph streams it; injected store, writer, runtime and
``previous``, retry and cache policies, async tasks, nested tasks, resuming after an error and
an entrypoint called from another."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

FINAL_AND_PREVIOUS = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import time
from langgraph.func import entrypoint, task
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import interrupt, Command

@task
def double(x: int) -> int:
    return x * 2

@task
def ask(q: str) -> str:
    return interrupt({"question": q})

@entrypoint(checkpointer=InMemorySaver())
def wf(nums: list[int], *, previous=None):
    futs = [double(n) for n in nums]
    res = [f.result() for f in futs]
    total = sum(res) + (previous or 0)
    a = ask(f"total {total}?").result()
    return entrypoint.final(value={"total": total, "answer": a}, save=total)

cfg = {"configurable": {"thread_id": "1"}}
chunks = list(wf.stream([1, 2, 3], cfg))
print(sorted(str(c) for c in chunks if "double" in c))  # parallel tasks finish in any order
for ch in chunks:
    if "double" not in ch:
        print(ch)
st = wf.get_state(cfg)
print(st.next, st.values, [(t.name, [i.value for i in t.interrupts]) for t in st.tasks])
for ch in wf.stream(Command(resume="yes"), cfg):
    print(ch)
print(wf.get_state(cfg).values)
print(wf.invoke([10], cfg))
print(wf.invoke(Command(resume="no"), cfg))
print(wf.get_state(cfg).values)
for ch in wf.stream([1], {"configurable": {"thread_id": "2"}}, stream_mode=["updates", "values", "tasks"]):
    if ch[0] == "tasks":
        print(ch[0], sorted(ch[1]), ch[1].get("name"))
    else:
        print(ch)
print([(h.metadata["step"], h.metadata["source"], h.next) for h in wf.get_state_history(cfg)])
"""

TASKS_IN_A_LOOP = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from langgraph.func import entrypoint, task
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import interrupt, Command

calls = []
@task
def step(i: int) -> str:
    calls.append(i)
    return f"s{i}"

@task
def review(text: str) -> dict:
    ans = interrupt({"text": text})
    return {"text": text, "ok": ans}

@entrypoint(checkpointer=InMemorySaver())
def loop(n: int) -> list:
    out = []
    for i in range(n):
        r = step(i).result()
        out.append(r)
        if i % 2 == 1:
            v = review(r).result()
            out.append(v)
    return out

cfg = {"configurable": {"thread_id": "1"}}
print(loop.invoke(3, cfg))
print(calls)
print(loop.invoke(Command(resume=True), cfg))
print(calls)
cfg = {"configurable": {"thread_id": "2"}}
print(loop.invoke(4, cfg))
print(loop.invoke(Command(resume="a"), cfg))
print(loop.invoke(Command(resume="b"), cfg))
print(calls)
st = loop.get_state(cfg)
print(st.values, st.next)
# multiple interrupts in one entrypoint without tasks
@entrypoint(checkpointer=InMemorySaver())
def two(x: str):
    a = interrupt("first")
    b = interrupt("second")
    return f"{x} {a} {b}"
c = {"configurable": {"thread_id": "z"}}
r = two.invoke("q", c); print(r["__interrupt__"][0].value)
r = two.invoke(Command(resume="A"), c); print(r["__interrupt__"][0].value)
print(two.invoke(Command(resume="B"), c))
"""

TASK_INTERRUPT_STREAMED = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from langgraph.func import entrypoint, task
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import interrupt, Command

@task
def ask(q: str) -> str:
    return interrupt({"question": q})

@entrypoint(checkpointer=InMemorySaver())
def wf(x: int):
    a = ask(f"q{x}").result()
    return a

for ch in wf.stream(1, {"configurable": {"thread_id": "2"}}, stream_mode=["tasks"]):
    d = dict(ch[1]); d.pop("id")
    print(ch[0], d)
for ch in wf.stream(Command(resume="r"), {"configurable": {"thread_id": "2"}}, stream_mode=["tasks"]):
    d = dict(ch[1]); d.pop("id")
    print(ch[0], d)
for ch in wf.stream(2, {"configurable": {"thread_id": "3"}}, stream_mode="debug"):
    p = dict(ch["payload"]); p.pop("id", None); p.pop("config", None); p.pop("parent_config", None); p.pop("tasks", None)
    print(ch["type"], p)
"""

INJECTED_AND_POLICIES = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import asyncio
from dataclasses import dataclass
from langgraph.func import entrypoint, task
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from langgraph.store.base import BaseStore
from langgraph.types import interrupt, Command, RetryPolicy, CachePolicy, StreamWriter
from langgraph.cache.memory import InMemoryCache
from langgraph.runtime import Runtime
from langgraph.config import get_stream_writer

attempts = {"n": 0}
@task(retry_policy=RetryPolicy(max_attempts=3, retry_on=ValueError))
def flaky(x: int) -> int:
    attempts["n"] += 1
    if attempts["n"] < 3:
        raise ValueError("flaky")
    return x + 100

computed = []
@task(cache_policy=CachePolicy(ttl=None))
def slow(x: int) -> int:
    computed.append(x)  # printed at the end (a print here races the stream's consumer)
    return x * x

@dataclass
class Ctx:
    who: str

@entrypoint(checkpointer=InMemorySaver(), store=InMemoryStore(), cache=InMemoryCache(), context_schema=Ctx)
def wf(x: int, *, store: BaseStore, writer: StreamWriter, previous: int | None = None, runtime: Runtime[Ctx] = None):
    writer({"start": x, "prev": previous})
    store.put(("runs",), str(x), {"x": x, "who": runtime.context.who})
    a = flaky(x).result()
    b = slow(x).result()
    c = slow(x).result()
    get_stream_writer()("mid")
    return a + b + c

cfg = {"configurable": {"thread_id": "1"}}
for ch in wf.stream(2, cfg, stream_mode=["custom", "updates"], context=Ctx("me")):
    print(ch)
print(attempts, computed)
print(wf.invoke(2, cfg, context=Ctx("you")))
print([(i.key, i.value) for i in wf.store.search(("runs",))] if hasattr(wf, "store") and wf.store else None)
print(wf.get_state(cfg).values)

@task
async def afetch(i: int) -> str:
    await asyncio.sleep(0)
    return f"r{i}"

@entrypoint()
async def afan(n: int) -> list:
    futs = [afetch(i) for i in range(n)]
    return list(await asyncio.gather(*futs))
print(asyncio.run(afan.ainvoke(3)))
async def main():
    async for ch in afan.astream(2, stream_mode="updates"):
        print(ch)
asyncio.run(main())

@task
def inner(x): return x + 1
@task
def outer(x):
    return inner(x).result() * 2
@entrypoint()
def nested(x):
    return outer(x).result()
print(nested.invoke(1))
for ch in nested.stream(1, stream_mode="updates"): print(ch)
for ch in nested.stream(1, stream_mode="debug"):
    print(ch["type"], ch["payload"].get("name"), ch["payload"].get("result") if ch["type"] == "task_result" else "")
"""

PARALLEL_INTERRUPTS = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from langgraph.func import entrypoint, task
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import interrupt, Command

@task
def review(doc: str) -> str:
    return interrupt({"review": doc})

@entrypoint(checkpointer=InMemorySaver())
def wf(docs: list[str]):
    futs = [review(d) for d in docs]
    return [f.result() for f in futs]

cfg = {"configurable": {"thread_id": "1"}}
r = wf.invoke(["a", "b"], cfg)
print(sorted(i.value["review"] for i in r["__interrupt__"]))
st = wf.get_state(cfg)
print(st.next, sorted((t.name, len(t.interrupts)) for t in st.tasks))
ints = {i.value["review"]: i.id for t in st.tasks for i in t.interrupts}
print(sorted(ints))
try:
    wf.invoke(Command(resume="ok"), cfg)
except Exception as e:
    print("RAISED", type(e).__name__, str(e)[:80])
r = wf.invoke(Command(resume={ints["a"]: "A-ok"}), cfg)
print(r if "__interrupt__" not in r else [i.value for i in r["__interrupt__"]])
st = wf.get_state(cfg)
ints = {i.value["review"]: i.id for t in st.tasks for i in t.interrupts}
print(sorted(ints))
r = wf.invoke(Command(resume={ints["b"]: "B-ok"}), cfg)
print(r)
for ch in wf.stream(["x", "y"], {"configurable": {"thread_id": "2"}}, stream_mode="updates"):
    print(sorted(i.value["review"] for i in ch["__interrupt__"]) if "__interrupt__" in ch else ch)
"""

RESUME_AFTER_ERROR = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import time
from langgraph.func import entrypoint, task
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import StreamWriter

attempts = 0
@task
def get_info():
    print("  get_info ran")
    return "OK"
@task
def slow_task():
    print("  slow ran")
    return "Ran slow task."
@task
def unstable():
    global attempts
    attempts += 1
    if attempts < 2:
        raise ValueError("Failure")
    return "Success"

@entrypoint(checkpointer=InMemorySaver())
def main(inputs, writer: StreamWriter):
    writer("start")
    r1 = slow_task().result()
    r2 = get_info().result()
    unstable().result()
    return r1 + r2

cfg = {"configurable": {"thread_id": "1"}}
try:
    main.invoke({"any": 1}, cfg)
except ValueError as e:
    print("RAISED", e)
st = main.get_state(cfg)
print(st.next, [(t.name, repr(t.error)) for t in st.tasks])
print(main.invoke(None, cfg))
print([(h.metadata["step"], h.metadata["source"], h.next) for h in main.get_state_history(cfg)])

@entrypoint()
def sub_ep(x: int) -> int:
    return x * 3
@entrypoint(checkpointer=InMemorySaver())
def outer(x: int) -> dict:
    return {"sub": sub_ep.invoke(x), "double": x * 2}
print(outer.invoke(5, {"configurable": {"thread_id": "o"}}))
for ch in outer.stream(2, {"configurable": {"thread_id": "o2"}}, subgraphs=True):
    print(ch)
"""


def test_final_and_previous() -> None:
    compare(FINAL_AND_PREVIOUS)


def test_tasks_in_a_loop() -> None:
    compare(TASKS_IN_A_LOOP)


def test_task_interrupt_streamed() -> None:
    compare(TASK_INTERRUPT_STREAMED)


def test_injected_and_policies() -> None:
    compare(INJECTED_AND_POLICIES)


def test_parallel_interrupts() -> None:
    compare(PARALLEL_INTERRUPTS)


def test_resume_after_error() -> None:
    compare(RESUME_AFTER_ERROR)
