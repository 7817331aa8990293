"""The agent's Mermaid export is laid out like LangGraph's (ids escaped, edges sorted)."""

from __future__ import annotations

from typing import Any

from engine import create_agent
from engine.graph.drawing import DrawableGraph
from engine.middleware import AgentMiddleware
from engine.models import ScriptedChatModel


class Audit(AgentMiddleware):
    def before_model(self, state: Any, runtime: Any) -> None:
        return None

    def after_model(self, state: Any, runtime: Any) -> None:
        return None


class Guard(AgentMiddleware):
    def before_model(self, state: Any, runtime: Any) -> None:
        return None


def body(text: str) -> list[str]:
    lines = text.splitlines()
    return lines[
        lines.index("graph TD;") + 1 : lines.index(
            "\tclassDef default fill:#f2f0ff,line-height:1.2"
        )
    ]


def test_hook_nodes_grouped_per_middleware_and_edges_sorted():
    agent = create_agent(ScriptedChatModel(["x"]), middleware=[Audit(), Guard()])
    assert body(agent.get_graph().draw_mermaid()) == [
        "\t__start__([<p>__start__</p>]):::first",
        "\tmodel(model)",
        "\tAudit\\2ebefore_model(Audit.before_model)",
        "\tAudit\\2eafter_model(Audit.after_model)",
        "\tGuard\\2ebefore_model(Guard.before_model)",
        "\t__end__([<p>__end__</p>]):::last",
        "\tAudit\\2ebefore_model --> Guard\\2ebefore_model;",
        "\tGuard\\2ebefore_model --> model;",
        "\t__start__ --> Audit\\2ebefore_model;",
        "\tmodel --> Audit\\2eafter_model;",
        "\tAudit\\2eafter_model --> __end__;",
    ]


def test_labels_and_markdown_like_names():
    g = DrawableGraph()
    g.add_node("__start__", "start")
    g.add_node("_hidden_")
    g.add_node("a b")
    g.add_edge("__start__", "a b")
    g.add_edge("a b", "_hidden_", conditional=True, data="go")
    assert body(g.draw_mermaid()) == [
        "\t__start__([<p>__start__</p>]):::first",
        "\t_hidden_(<p>_hidden_</p>)",
        "\ta\\20b(a b)",
        "\t__start__ --> a\\20b;",
        "\ta\\20b -. &nbsp;go&nbsp; .-> _hidden_;",
    ]
