"""A docs store program run on the real libraries, ported and attached (``port.compare``):
``list_namespaces`` filters, ``Item.dict()``, search filters (operators, nested values), async
methods, and the namespaces LangGraph's stores refuse (``InvalidNamespaceError``: a period, a NUL
byte, an empty label; a put at the empty namespace or under ``"langgraph"``) or take (a read at
the empty namespace)."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

STORE_NAMESPACES = """
import asyncio
from langgraph.store.memory import InMemoryStore
s = InMemoryStore()
s.put(("a", "b"), "k1", {"v": 1})
s.put(("a", "c"), "k2", {"v": 2, "nested": {"x": [1, 2]}})
s.put(("z",), "k3", {"v": 3})
print(s.list_namespaces(prefix=("a",)), s.list_namespaces(suffix=("c",)), s.list_namespaces(max_depth=1), s.list_namespaces(limit=1, offset=1))
it = s.get(("a", "b"), "k1")
d = it.dict()
print(sorted(d), d["value"], d["namespace"], d["key"])
print([i.key for i in s.search(("a",))], [i.key for i in s.search(("a",), filter={"v": {"$gt": 1}})], [i.key for i in s.search((), filter={"v": {"$lte": 2}})])
print([i.key for i in s.search(("a",), filter={"nested": {"x": [1, 2]}})])
s.put(("q",), "k", {"n": 1})
s.put(("q",), "k", None)
print(s.get(("q",), "k"))
async def main():
    await s.aput(("as",), "k", {"y": 1})
    print((await s.aget(("as",), "k")).value, [i.key for i in await s.asearch(("as",))], await s.alist_namespaces(prefix=("as",)))
    await s.adelete(("as",), "k")
    print(await s.aget(("as",), "k"))
asyncio.run(main())
try:
    s.put(("bad.ns",), "k", {"v": 1})
except Exception as e:
    print("RAISED", type(e).__name__, e)
try:
    s.put((), "k", {"v": 1})
except Exception as e:
    print("RAISED", type(e).__name__, e)
try:
    s.put(("langgraph", "x"), "k", {"v": 1})
except Exception as e:
    print("RAISED", type(e).__name__, e)
print(s.get((), "k"), s.get(("a",), "nokey"))
for bad in (("a", ""), ("a", 3), ("x\x00y",)):
    try:
        s.get(bad, "k")
    except ValueError as e:
        print("RAISED", type(e).__name__, e)
try:
    s.search(("bad.prefix",))
except ValueError as e:
    print("RAISED", type(e).__name__, e)
"""


def test_store_namespaces_filters_and_refusals() -> None:
    compare(STORE_NAMESPACES)
