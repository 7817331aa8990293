"""Graph runtime: a 200-superstep loop (in-memory and SQLite checkpointers), side by side with
LangGraph on the same graph, and the SQLite file size of a 1,000-message agent conversation.

(No ``from __future__ import annotations`` here: the state classes are defined in functions.)
"""

import json
import operator
import os
import sqlite3
import tempfile
import time
import uuid
from types import SimpleNamespace
from typing import Annotated, Any, TypedDict

from tests.bench.report import Figure, best_of, peer_available

STEPS = 200
TURNS = 250  # x 4 messages = a 1,000-message thread

_WORDS = (
    "the agent reads file config module test build deploy error retry schema token user request "
    "response model tool result value state graph node edge step plan check update version data "
    "report summary function parameter output input message thread checkpoint debugger event"
).split()


def text(seed: int, n_words: int) -> str:
    """Deterministic prose of ``n_words`` words, in sentences (LLM-like lengths)."""
    words = [_WORDS[(seed * 7 + i * 13 + (i * i) % 11) % len(_WORDS)] for i in range(n_words)]
    out: list[str] = []
    sentence: list[str] = []
    for i, w in enumerate(words):
        sentence.append(w)
        if len(sentence) >= 9 + (seed + i) % 7:
            out.append(" ".join(sentence).capitalize() + ".")
            sentence = []
    if sentence:
        out.append(" ".join(sentence).capitalize() + ".")
    return " ".join(out)


def ours() -> tuple[Any, Any]:
    import engine
    import engine.messages as messages

    return engine, messages


def theirs() -> tuple[Any, Any]:
    import langgraph.graph as api
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langgraph.graph.message import add_messages

    return api, SimpleNamespace(
        AIMessage=AIMessage,
        HumanMessage=HumanMessage,
        ToolMessage=ToolMessage,
        add_messages=add_messages,
    )


def loop_graph(api: Any, msgs: Any, checkpointer: Any) -> Any:
    """One node looping 200 times, writing a counter, a list and a message each step."""

    class S(TypedDict):
        i: int
        log: Annotated[list, operator.add]
        messages: Annotated[list, msgs.add_messages]

    def step(s: S) -> dict:
        cls = msgs.AIMessage if s["i"] % 2 else msgs.HumanMessage
        return {"i": s["i"] + 1, "log": [s["i"]], "messages": [cls(content=f"step {s['i']}")]}

    g = api.StateGraph(S)
    g.add_node("step", step)
    g.add_edge(api.START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["i"] < STEPS else api.END)
    return g.compile(checkpointer=checkpointer)


def agent_graph(api: Any, msgs: Any, checkpointer: Any) -> Any:
    """model -> tools -> model as a plain StateGraph: per turn a question, a tool call, a tool
    result and an answer, with realistic lengths."""

    class S(TypedDict):
        messages: Annotated[list, msgs.add_messages]

    def model(s: S) -> dict:
        n = len(s["messages"])
        if getattr(s["messages"][-1], "type", "") == "tool":
            return {"messages": [msgs.AIMessage(content=text(n, 70))]}
        call = {"name": "search_docs", "args": {"query": text(n, 6), "limit": 5}, "id": f"call_{n}"}
        return {"messages": [msgs.AIMessage(content="", tool_calls=[call])]}

    def tools(s: S) -> dict:
        call = s["messages"][-1].tool_calls[0]
        result = msgs.ToolMessage(
            content=text(len(s["messages"]), 50), tool_call_id=call["id"], name=call["name"]
        )
        return {"messages": [result]}

    g = api.StateGraph(S)
    g.add_node("model", model)
    g.add_node("tools", tools)
    g.add_edge(api.START, "model")
    g.add_conditional_edges(
        "model", lambda s: "tools" if s["messages"][-1].tool_calls else api.END, ["tools", api.END]
    )
    g.add_edge("tools", "model")
    return g.compile(checkpointer=checkpointer)


def per_step(graph: Any) -> float:
    def once() -> float:
        cfg = {"configurable": {"thread_id": uuid.uuid4().hex}, "recursion_limit": 10_000}
        t = time.perf_counter()
        graph.invoke({"i": 0, "log": [], "messages": []}, cfg)
        return (time.perf_counter() - t) / STEPS

    return best_of(once, 5)


def converse(graph: Any, human: Any, turns: int = TURNS) -> None:
    cfg = {"configurable": {"thread_id": "conv"}}
    for i in range(turns):
        graph.invoke({"messages": [human(content=text(i, 20) + "?")]}, cfg)


def file_size(path: str) -> int:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("VACUUM")
    conn.close()
    return os.path.getsize(path)


def run() -> list[Figure]:
    from engine.checkpoint import InMemorySaver, SqliteSaver

    figs: list[Figure] = []
    tmp = tempfile.mkdtemp(prefix="stepwise-bench-")
    api, msgs = ours()
    mem = per_step(loop_graph(api, msgs, InMemorySaver()))
    sql = per_step(loop_graph(api, msgs, SqliteSaver(os.path.join(tmp, "loop.sqlite"))))
    peer = peer_available("langgraph") and peer_available("langchain_core")
    peer_sql = peer and peer_available("langgraph.checkpoint.sqlite")
    their_mem = their_sql = None
    if peer:
        from langgraph.checkpoint.memory import InMemorySaver as LGMemory

        lapi, lmsgs = theirs()
        their_mem = per_step(loop_graph(lapi, lmsgs, LGMemory()))
        if peer_sql:
            from langgraph.checkpoint.sqlite import SqliteSaver as LGSqlite

            conn = sqlite3.connect(os.path.join(tmp, "loop-lg.sqlite"), check_same_thread=False)
            their_sql = per_step(loop_graph(lapi, lmsgs, LGSqlite(conn)))
    for label, mine, peer_value in (("in-memory", mem, their_mem), ("SQLite", sql, their_sql)):
        figs.append(Figure(f"200-superstep loop, {label} checkpointer", mine * 1e6, "us/superstep"))
        if peer_value is not None:
            figs.append(
                Figure(
                    f"  ratio to LangGraph ({peer_value * 1e6:.0f} us/superstep)",
                    mine / peer_value,
                    "x",
                    "< 1.0",
                    mine / peer_value < 1.0,
                )
            )
    path = os.path.join(tmp, "conversation.sqlite")
    graph = agent_graph(api, msgs, SqliteSaver(path))
    converse(graph, msgs.HumanMessage)
    final = graph.get_state({"configurable": {"thread_id": "conv"}}).values["messages"]
    msg_json = sum(len(json.dumps(m.model_dump(mode="json"))) for m in final)
    size = file_size(path)
    note = f"{len(final)} messages, {msg_json / len(final):.0f} B of JSON each on average"
    figs.append(Figure("SQLite file, 1,000-message agent thread", size / 1024, "KiB", note=note))
    figs.append(
        Figure(
            "  file size / JSON of its final messages",
            size / msg_json,
            "x",
            "<= 3.0",
            size / msg_json <= 3.0,
        )
    )
    if peer_sql:
        from langgraph.checkpoint.sqlite import SqliteSaver as LGSqlite

        lapi, lmsgs = theirs()
        lpath = os.path.join(tmp, "conversation-lg.sqlite")
        conn = sqlite3.connect(lpath, check_same_thread=False)
        converse(agent_graph(lapi, lmsgs, LGSqlite(conn)), lmsgs.HumanMessage)
        conn.close()
        lsize = file_size(lpath)
        figs.append(
            Figure(
                "  LangGraph SqliteSaver, same conversation",
                lsize / 1024,
                "KiB",
                note=f"{lsize / msg_json:.1f}x the messages' JSON",
            )
        )
    return figs


if __name__ == "__main__":
    for f in run():
        print(f.line())
