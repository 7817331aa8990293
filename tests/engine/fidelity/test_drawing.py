"""get_graph() drawn as LangGraph draws it: its JSON form, Mermaid without styles, implied
ends, breakpoints in metadata, and subgraphs drawn inside their node with ``xray``."""

from __future__ import annotations

import operator
from typing import Annotated, Literal, TypedDict

from engine import END, START, StateGraph
from engine.graph import Command


class S(TypedDict):
    items: Annotated[list[str], operator.add]


def _node(name: str):  # type: ignore[no-untyped-def]
    return lambda s: {"items": [name]}


def test_json_form_is_langgraphs() -> None:
    g = StateGraph(S)
    g.add_node("a", _node("a"), metadata={"team": "x"})
    g.add_node("b", _node("b"))
    g.add_edge(START, "a")
    g.add_conditional_edges("a", lambda s: "go", {"go": "b", "stop": END})
    data = g.compile().get_graph().to_json()
    callable_id = ["langgraph", "_internal", "_runnable", "RunnableCallable"]
    assert data["nodes"] == [
        {"id": "__start__", "type": "runnable", "data": {"id": callable_id, "name": "__start__"}},
        {
            "id": "a",
            "type": "runnable",
            "data": {"id": callable_id, "name": "a"},
            "metadata": {"team": "x"},
        },
        {"id": "b", "type": "runnable", "data": {"id": callable_id, "name": "b"}},
        {"id": "__end__"},
    ]
    assert data["edges"] == [
        {"source": "__start__", "target": "a"},
        {"source": "a", "target": "__end__", "data": "stop", "conditional": True},
        {"source": "a", "target": "b", "data": "go", "conditional": True},
        {"source": "b", "target": "__end__"},  # b leads nowhere: it ends the run
    ]


def test_mermaid_without_styles_is_edges_only_and_a_loop_graph_ends_where_it_stops() -> None:
    g = StateGraph(S)
    g.add_node("human", _node("h"))
    g.add_node("agent", _node("a"))
    g.add_edge(START, "human")
    g.add_edge("human", "agent")
    g.add_edge("agent", "human")
    assert g.compile().get_graph().draw_mermaid(with_styles=False) == (
        "graph TD;\n"
        "\t__start__ --> human;\n"
        "\tagent --> human;\n"
        "\thuman --> agent;\n"
        "\tagent -.-> __end__;\n"
    )


def test_only_command_annotations_are_destinations_and_breakpoints_show() -> None:
    def one(state: S) -> Command[Literal["two"]]:
        return Command(goto="two")

    def two(state: S) -> Literal["x"]:  # returns a value, routes nowhere
        return "x"  # type: ignore[return-value]

    g = StateGraph(S)
    g.add_node("one", one)
    g.add_node("two", two)
    g.add_edge(START, "one")
    drawn = g.compile(interrupt_before=["two"]).get_graph()
    assert [(e.source, e.target, e.conditional) for e in drawn.edges] == [
        ("__start__", "one", False),
        ("one", "two", True),
        ("two", "__end__", False),
    ]
    assert drawn.to_json()["nodes"][2]["metadata"] == {"__interrupt": "before"}
    assert "two<hr/><small><em>__interrupt = before</em></small>" in drawn.draw_mermaid()


def test_xray_draws_a_subgraph_inside_its_node() -> None:
    inner = StateGraph(S)
    inner.add_node("c_one", _node("c1"))
    inner.add_node("c_two", _node("c2"))
    inner.add_edge(START, "c_one")
    inner.add_conditional_edges("c_one", lambda s: END, ["c_two", END])
    inner.add_edge("c_two", "c_one")
    outer = StateGraph(S)
    outer.add_node("p_one", _node("p1"))
    outer.add_node("p_two", inner.compile())
    outer.add_edge(START, "p_one")
    outer.add_conditional_edges("p_one", lambda s: END, ["p_two", END])
    outer.add_edge("p_two", "p_one")
    app = outer.compile()
    assert "p_two:c_one" not in app.get_graph().nodes
    drawn = app.get_graph(xray=True)
    assert "p_two" not in drawn.nodes and "p_two:c_one" in drawn.nodes
    text = drawn.draw_mermaid(with_styles=False)
    assert "\tp_one -.-> p_two\\3a__start__;\n" in text
    assert "\tp_two\\3a__end__ --> p_one;\n" in text
    block = text[text.index("\tsubgraph p_two\n") :]
    assert block.splitlines()[1:6] == [
        "\tp_two\\3a__start__ --> p_two\\3ac_one;",
        "\tp_two\\3ac_one -.-> p_two\\3a__end__;",
        "\tp_two\\3ac_one -.-> p_two\\3ac_two;",
        "\tp_two\\3ac_two --> p_two\\3ac_one;",
        "\tend",
    ]
    styled = drawn.draw_mermaid()
    assert (
        "\tp_two\\3ac_one(c_one)\n" in styled
        and "\t__start__([<p>__start__</p>]):::first\n" in styled
    )


def _branching(lib: str):  # type: ignore[no-untyped-def]
    import importlib

    graph = importlib.import_module(f"{lib}.graph")
    g = graph.StateGraph(S)
    g.add_node("a", _node("a"))
    g.add_node("b", _node("b"))
    g.add_edge(graph.START, "a")
    g.add_conditional_edges("a", lambda s: "b", ["b", graph.END])
    return g.compile()


def test_draw_ascii_is_langgraphs() -> None:
    import pytest

    pytest.importorskip("grandalf")
    pytest.importorskip("langgraph.graph")
    ours = _branching("engine").get_graph().draw_ascii()
    assert ours == _branching("langgraph").get_graph().draw_ascii()
    assert "| __start__ |" in ours and "| b |" in ours


def test_draw_mermaid_png_renders_the_mermaid_text(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The PNG is LangChain's renderer's, given our ``draw_mermaid()`` text and the call's
    rendering options; a styling option other than the default is refused, not ignored."""
    import pytest

    mermaid = pytest.importorskip("langchain_core.runnables.graph_mermaid")
    seen: dict[str, object] = {}

    def render(**kw: object) -> bytes:
        seen.update(kw)
        return b"\x89PNG fake"

    monkeypatch.setattr(mermaid, "draw_mermaid_png", render)
    drawn = _branching("engine").get_graph()
    assert drawn.draw_mermaid_png(background_color="black", padding=3) == b"\x89PNG fake"
    assert seen["mermaid_syntax"] == drawn.draw_mermaid()
    assert (seen["background_color"], seen["padding"]) == ("black", 3)
    assert seen["draw_method"] == mermaid.MermaidDrawMethod.API
    with pytest.raises(ValueError, match="default style"):
        drawn.draw_mermaid_png(node_colors={"first": "#fff"})
    with pytest.raises(TypeError, match="unexpected keyword"):
        drawn.draw_mermaid_png(colour="red")
