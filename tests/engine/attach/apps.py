"""A small real LangGraph app file the attach-mode tests load (CLI and studio)."""

REVIEW_APP = """
from typing import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.types import interrupt

class State(TypedDict):
    n: int
    verdict: str

def bump(state):
    return {"n": state["n"] + 1}

def review(state):
    return {"verdict": interrupt({"n": state["n"]})}

graph = (
    StateGraph(State)
    .add_node("bump", bump)
    .add_node("review", review)
    .add_edge(START, "bump")
    .add_edge("bump", "review")
    .add_edge("review", END)
    .compile()
)
"""
