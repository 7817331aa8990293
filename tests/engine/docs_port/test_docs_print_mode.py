"""A docs debugging program run on the real libraries, ported and attached
(``port.compare``): ``compile(debug=True)`` and ``invoke(debug=True)`` print each updates and
values part as LangGraph prints them; ``print_mode`` prints the modes it names (streamed only
when asked for too), of a graph with a subgraph."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

PRINTED = """
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START
class S(TypedDict):
    x: int
b = StateGraph(S); b.add_node("a", lambda s: {"x": s["x"] + 1}); b.add_edge(START, "a")
g = b.compile(debug=True)
print(g.invoke({"x": 1}))
print(b.compile().invoke({"x": 5}, debug=True))
print("== nested, printed values only")
sb = StateGraph(S); sb.add_node("inner", lambda s: {"x": s["x"] * 2}); sb.add_edge(START, "inner")
pb = StateGraph(S); pb.add_node("child", sb.compile()); pb.add_edge(START, "child")
pg = pb.compile()
print(pg.invoke({"x": 1}, print_mode="values"))
for chunk in pg.stream({"x": 2}, print_mode=["updates"]):
    print(" got", chunk)
for chunk in pg.stream({"x": 3}, stream_mode="values", print_mode="values"):
    print(" got", chunk)
"""


def test_debug_and_print_mode_print_the_parts() -> None:
    compare(PRINTED)
