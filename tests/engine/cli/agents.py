"""Small agent graphs for the CLI tests (loaded by file path and by module name)."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, TypedDict

from engine import END, START, StateGraph, interrupt
from engine.checkpoint import InMemorySaver
from engine.messages import AIMessage, add_messages


class Chat(TypedDict, total=False):
    messages: Annotated[list, add_messages]
    n: int


def think(state: Chat) -> dict:
    n = state.get("n", 0)
    return {"messages": [AIMessage(content=f"thought {n}", id=f"ai-{n}")], "n": n + 1}


def act(state: Chat) -> dict:
    return {}


def _route(state: Chat) -> str:
    return "act" if state["n"] < 2 else END


_b = StateGraph(Chat)
_b.add_node("think", think)
_b.add_node("act", act)
_b.add_edge(START, "think")
_b.add_conditional_edges("think", _route, ["act", END])
_b.add_edge("act", "think")
agent = _b.compile(name="loop")
"""think -> act -> think -> END; a messages graph without a checkpointer."""


class Count(TypedDict):
    n: int


def bump(state: Count) -> dict:
    return {"n": state.get("n", 0) + 1}


_c = StateGraph(Count)
_c.add_node("bump", bump)
_c.add_edge(START, "bump")
_c.add_edge("bump", END)
counter = _c.compile(name="counter", checkpointer=InMemorySaver())
"""A graph without a messages key (JSON input); has its own in-memory checkpointer."""

HITL_REQUEST = {
    "action_requests": [
        {"name": "create_file", "args": {"path": "login.tsx"}, "description": "Create login.tsx?"},
        {"name": "delete_file", "args": {"path": "old.tsx"}, "description": "Delete old.tsx?"},
    ],
    "review_configs": [
        {
            "action_name": "create_file",
            "allowed_decisions": ["approve", "edit", "reject", "respond"],
        },
        {"action_name": "delete_file", "allowed_decisions": ["approve", "reject"]},
    ],
}


def review(state: Chat) -> dict:
    answer = interrupt(HITL_REQUEST)
    return {"messages": [AIMessage(content=json.dumps(answer, sort_keys=True), id="decisions")]}


_h = StateGraph(Chat)
_h.add_node("review", review)
_h.add_edge(START, "review")
_h.add_edge("review", END)
hitl = _h.compile(name="hitl")


def approve_one(state: Chat) -> dict:
    answer = interrupt(
        {
            "type": "tool_approval",
            "tool_call_id": "c1",
            "name": "send_email",
            "args": {"to": "bob"},
            "description": "Send the mail to bob?",
        }
    )
    return {"messages": [AIMessage(content=json.dumps(answer, sort_keys=True), id="decision")]}


_p = StateGraph(Chat)
_p.add_node("approve_one", approve_one)
_p.add_edge(START, "approve_one")
_p.add_edge("approve_one", END)
per_call = _p.compile(name="per_call")


def ask(state: Count) -> dict:
    value = interrupt({"question": "how many?"})
    return {"n": state["n"] + int(value["more"])}


_a = StateGraph(Count)
_a.add_node("ask", ask)
_a.add_edge(START, "ask")
_a.add_edge("ask", END)
asker = _a.compile(name="asker")


def explode(state: Count) -> dict:
    raise ValueError("boom")


_e = StateGraph(Count)
_e.add_node("explode", explode)
_e.add_edge(START, "explode")
broken = _e.compile(name="broken")


async def crawl(state: Count) -> dict:
    await asyncio.sleep(60)  # stopped with Ctrl+C long before
    return {"n": 1}


_s = StateGraph(Count)
_s.add_node("crawl", crawl)
_s.add_edge(START, "crawl")
slow = _s.compile(name="slow")

not_a_graph = 42
