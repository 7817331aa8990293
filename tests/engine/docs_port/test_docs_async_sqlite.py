"""A docs persistence program run on the real libraries, ported and attached
(``port.compare``): ``async with AsyncSqliteSaver.from_conn_string(path)`` from
``langgraph.checkpoint.sqlite.aio``, an async run interrupted and resumed, its state and history,
the saver's own ``alist`` / ``aget_tuple``, the file opened again."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

ASYNC_SQLITE = """
import asyncio, os, tempfile
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.types import interrupt, Command
class S(TypedDict):
    n: int
def ask(s):
    return {"n": s["n"] + interrupt("how many?")}
b = StateGraph(S); b.add_node("ask", ask); b.add_edge(START, "ask")
async def main():
    path = os.path.join(tempfile.mkdtemp(), "checkpoints.sqlite")
    async with AsyncSqliteSaver.from_conn_string(path) as saver:
        g = b.compile(checkpointer=saver)
        cfg = {"configurable": {"thread_id": "1"}}
        out = await g.ainvoke({"n": 1}, cfg)
        print([i.value for i in out["__interrupt__"]])
        print(await g.ainvoke(Command(resume=41), cfg))
        st = await g.aget_state(cfg)
        print(st.values, st.next, st.metadata["source"], st.metadata["step"])
        print([h.metadata["step"] async for h in g.aget_state_history(cfg)])
        print([c.metadata["source"] async for c in saver.alist(cfg)])
        print((await saver.aget_tuple(cfg)).checkpoint["channel_values"]["n"])
    async with AsyncSqliteSaver.from_conn_string(path) as saver:
        g = b.compile(checkpointer=saver)
        print((await g.aget_state({"configurable": {"thread_id": "1"}})).values)
asyncio.run(main())
"""


def test_async_sqlite_saver() -> None:
    compare(ASYNC_SQLITE)
