"""Hand-built DrawableGraphs shaped like the engine's: agents with middleware, plain graphs, cycles."""

from __future__ import annotations

import itertools

from engine.graph.drawing import DrawableGraph

HOOKS = ("before_agent", "before_model", "after_model", "after_agent")

#: (middleware, hooks it implements, hooks that may jump to END, wraps model, wraps tools)
TWELVE_MIDDLEWARE: list[tuple[str, tuple[str, ...], tuple[str, ...], bool, bool]] = [
    ("AuditMiddleware", ("before_agent", "after_agent"), (), False, False),
    ("SummarizationMiddleware", ("before_model",), (), False, False),
    ("ModelCallLimitMiddleware", ("before_model",), ("before_model",), False, False),
    ("PIIMiddleware", ("before_model", "after_model"), (), False, False),
    ("ContextEditingMiddleware", (), (), True, False),
    ("LLMToolSelectorMiddleware", (), (), True, False),
    ("ModelRetryMiddleware", (), (), True, False),
    ("ModelFallbackMiddleware", (), (), True, False),
    ("ToolRetryMiddleware", (), (), False, True),
    ("ToolCallLimitMiddleware", ("after_model",), ("after_model",), False, True),
    ("TodoListMiddleware", ("after_model",), (), False, False),
    ("HumanInTheLoopMiddleware", ("after_model",), (), False, False),
]

DEMO_MIDDLEWARE: list[tuple[str, tuple[str, ...], tuple[str, ...], bool, bool]] = [
    ("TodoListMiddleware", (), (), True, False),
    ("ModelRetryMiddleware", (), (), True, False),
    ("ToolRetryMiddleware", (), (), False, True),
]


def agent_graph(
    middleware: list[tuple[str, tuple[str, ...], tuple[str, ...], bool, bool]],
    tools: tuple[str, ...] = ("search", "calculator", "write_todos"),
) -> DrawableGraph:
    """The shape ``create_agent`` compiles to: hook chains around the model/tools loop."""
    g = DrawableGraph(name="agent")
    g.add_node("__start__", "start")
    chains: dict[str, list[str]] = {h: [] for h in HOOKS}
    for name, hooks, _, _, _ in middleware:
        for hook in hooks:
            node_id = f"{name}.{hook}"
            g.add_node(node_id, "hook", middleware=name, hook=hook)
            chains[hook].append(node_id)
    chains["after_model"].reverse()
    chains["after_agent"].reverse()
    model_wrappers = [m for m, *_, wm, _ in middleware if wm]
    tool_wrappers = [m for m, *_, wt in middleware if wt]
    g.add_node("model", "model", wrappers=model_wrappers)
    g.add_node("tools", "tools", wrappers=tool_wrappers, tools=list(tools))
    g.add_node("__end__", "end")

    loop_entry = chains["before_model"][0] if chains["before_model"] else "model"
    exit_node = chains["after_agent"][0] if chains["after_agent"] else "__end__"
    _chain(g, ["__start__", *chains["before_agent"], loop_entry])
    _chain(g, [*chains["before_model"], "model"])
    _chain(g, ["model", *chains["after_model"]])
    _chain(g, [*chains["after_agent"], "__end__"])
    last = chains["after_model"][-1] if chains["after_model"] else "model"
    g.add_edge(last, "tools", conditional=True)
    g.add_edge(last, exit_node, conditional=True)
    if chains["after_model"]:
        g.add_edge(last, loop_entry, conditional=True)
    g.add_edge("tools", loop_entry, conditional=True)
    for name, _, jumps, _, _ in middleware:
        for hook in jumps:
            g.add_edge(f"{name}.{hook}", exit_node, conditional=True)
    return g


def _chain(g: DrawableGraph, nodes: list[str]) -> None:
    for a, b in itertools.pairwise(nodes):
        g.add_edge(a, b)


def demo_graph() -> DrawableGraph:
    return agent_graph(DEMO_MIDDLEWARE)


def twelve_middleware_graph() -> DrawableGraph:
    return agent_graph(TWELVE_MIDDLEWARE)


def plain_graph() -> DrawableGraph:
    """a -> b, b -> c | d (conditional, labelled), c and d join into e."""
    g = DrawableGraph(name="plain")
    g.add_node("__start__", "start")
    for n in "abcde":
        g.add_node(n)
    g.add_node("__end__", "end")
    g.add_edge("__start__", "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c", conditional=True, data="needs_search")
    g.add_edge("b", "d", conditional=True, data="answer_directly")
    g.add_edge("c", "e")
    g.add_edge("d", "e")
    g.add_edge("e", "__end__")
    return g


def cycle_graph() -> DrawableGraph:
    """A writer/critic loop with a labelled back edge, a self loop and a long exit edge."""
    g = DrawableGraph(name="cycle")
    g.add_node("__start__", "start")
    for n in ("plan", "write", "critique", "polish"):
        g.add_node(n)
    g.add_node("__end__", "end")
    g.add_edge("__start__", "plan")
    g.add_edge("plan", "write")
    g.add_edge("write", "critique")
    g.add_edge("critique", "write", conditional=True, data="revise")
    g.add_edge("critique", "polish", conditional=True, data="accept")
    g.add_edge("critique", "plan", conditional=True, data="replan")
    g.add_edge("polish", "polish", conditional=True, data="again")
    g.add_edge("polish", "__end__", conditional=True)
    g.add_edge("plan", "__end__", conditional=True, data="give_up")
    return g
