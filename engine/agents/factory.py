"""``create_agent``: LangChain v1's middleware agent, built as a ``StateGraph`` (spec section 4).

Nodes: ``model``; ``tools`` (when there are client tools or a middleware wraps tool calls);
``<middleware>.<hook>`` for each hook a middleware implements.  With BA, BM, AM, AA the
middleware having ``before_agent``, ``before_model``, ``after_model``, ``after_agent`` (list
order)::

    entry      = BA[0].before_agent  else BM[0].before_model else model
    loop_entry = BM[0].before_model  else model
    loop_exit  = AM[0].after_model   else model
    exit       = AA[-1].after_agent  else END

    START -> entry;  BA in list order -> loop_entry;  BM in list order -> model;
    model -> AM[-1] ... AM[0] (reverse);  loop_exit -model_to_tools-> tools | loop_entry | exit;
    tools -tools_to_model-> loop_entry | exit;  AA[-1] ... AA[0] (reverse) -> END
    (a hook's ``jump_to``: "model" -> loop_entry, "tools" -> tools, "end" -> exit)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.agents.hooks import HookNode
from engine.agents.model_node import ModelNode
from engine.agents.routing import Topology
from engine.agents.schema import merge_state_schema
from engine.agents.structured import as_strategy, structured_tool_names
from engine.agents.subagent_stream import SubagentTransformer
from engine.agents.tool_call_stream import ToolCallTransformer
from engine.agents.tool_node import ToolNode
from engine.graph.builder import StateGraph
from engine.graph.compiled import CompiledStateGraph
from engine.messages import SystemMessage
from engine.middleware.types import AgentMiddleware, uses
from engine.tools import BaseTool, as_tool
from engine.types import END, START

if TYPE_CHECKING:
    from engine.cache import BaseCache
    from engine.checkpoint.base import BaseCheckpointSaver
    from engine.store import BaseStore

__all__ = ["AGENT_RECURSION_LIMIT", "create_agent"]

AGENT_RECURSION_LIMIT = 9_999


def _collect_tools(
    tools: Sequence[Any] | None, middleware: Sequence[AgentMiddleware]
) -> tuple[dict[str, BaseTool], list[dict[str, Any]]]:
    """Client tools by name (middleware tools first, then the user's; a later duplicate wins)
    and provider tools (plain dicts, bound to the model but never executed here)."""
    client: dict[str, BaseTool] = {}
    provider: list[dict[str, Any]] = []
    for t in [*(t for m in middleware for t in (m.tools or ())), *list(tools or ())]:
        if isinstance(t, dict):
            provider.append(t)
        else:
            bt = as_tool(t)
            client[bt.name] = bt
    return client, provider


def create_agent(
    model: Any,
    tools: Sequence[Any] | None = None,
    *,
    system_prompt: str | SystemMessage | None = None,
    middleware: Sequence[AgentMiddleware] = (),
    response_format: Any = None,
    state_schema: Any = None,
    context_schema: Any = None,
    checkpointer: BaseCheckpointSaver | bool | None = None,
    store: BaseStore | None = None,
    interrupt_before: Sequence[str] | None = None,
    interrupt_after: Sequence[str] | None = None,
    debug: bool = False,
    name: str | None = None,
    cache: BaseCache | None = None,
    retry_invalid_tool_calls: bool = False,
    transformers: Sequence[Any] = (),
) -> CompiledStateGraph:
    """An agent: the model calls tools in a loop until it answers, shaped by ``middleware``.

    ``model`` is a chat model or a ``"provider:model"`` string (``init_chat_model``);
    ``response_format`` a schema or a ``ToolStrategy``/``ProviderStrategy``/``AutoStrategy``;
    ``name`` names the compiled graph and the model's AIMessages.  A reply whose only tool
    calls have unparseable arguments ends the run (the next turn answers them with errors);
    ``retry_invalid_tool_calls=True`` answers them at once and asks the model again (Stepwise's
    option; nothing bounds those retries but the recursion limit).  ``transformers``: stream
    transformer factories for ``stream_events(version="v3")``, registered after the agent's
    own (``ToolCallTransformer``, ``SubagentTransformer``) and the middleware's.  Returns a compiled graph
    (``invoke``/``ainvoke``/``stream``/``astream``/``astream_events``, state and history).
    """
    from engine.models.resolve import as_chat_model

    given = model
    model = as_chat_model(model)  # a "provider:model" string, a langchain_core model
    middleware = list(middleware)
    names = [m.name for m in middleware]
    if len(set(names)) != len(names):
        raise AssertionError("Please remove duplicate middleware instances.")
    strategy = as_strategy(response_format)
    client, provider = _collect_tools(tools, middleware)
    wrap_model = [m for m in middleware if uses(m, "wrap_model_call")]
    wrap_tool = [m for m in middleware if uses(m, "wrap_tool_call")]
    hooks = {
        h: [m for m in middleware if uses(m, h)]
        for h in ("before_agent", "before_model", "after_model", "after_agent")
    }
    ba, bm, am, aa = (
        hooks[h] for h in ("before_agent", "before_model", "after_model", "after_agent")
    )
    has_tools = bool(client) or bool(wrap_tool)
    structured = structured_tool_names(strategy)

    def node(m: AgentMiddleware, hook: str) -> str:
        return f"{m.name}.{hook}"

    entry = node(ba[0], "before_agent") if ba else node(bm[0], "before_model") if bm else "model"
    topo = Topology(
        loop_entry=node(bm[0], "before_model") if bm else "model",
        loop_exit=node(am[0], "after_model") if am else "model",
        exit=node(aa[-1], "after_agent") if aa else END,
        has_tools=has_tools,
        structured_tools=frozenset(structured),
        retry_invalid_calls=retry_invalid_tool_calls,
    )

    graph = StateGraph(merge_state_schema(middleware, state_schema), context_schema)
    graph.add_node(
        "model",
        ModelNode(
            model=model,
            given_model=None if isinstance(given, str) else given,
            system_prompt=system_prompt,
            tools=[*client.values(), *provider],
            known_tools=set(client),
            response_format=strategy,
            wrappers=wrap_model,
            allow_unknown_tools=bool(wrap_tool),
            name=name,
        ),
        metadata={"kind": "model", "wrappers": [m.name for m in wrap_model]},
    )
    tool_node: ToolNode | None = None
    if has_tools:
        tool_node = ToolNode(list(client.values()), wrappers=wrap_tool)
        graph.add_node(
            "tools",
            tool_node,
            metadata={
                "kind": "tools",
                "wrappers": [m.name for m in wrap_tool],
                "tools": list(client),
            },
        )
    hook_nodes: dict[str, HookNode] = {}
    for m in middleware:  # each middleware's hook nodes together, in hook order (upstream's)
        for hook, ms in hooks.items():
            if m not in ms:
                continue
            hn = HookNode(m, hook)
            hook_nodes[hn.node] = hn
            graph.add_node(
                hn.node, hn, metadata={"kind": "hook", "middleware": m.name, "hook": hook}
            )

    def hook_edge(name: str, default: str) -> None:
        jumps = hook_nodes[name].can_jump_to
        if not jumps:
            graph.add_edge(name, default)
            return
        destinations = list(dict.fromkeys([default, *topo.jump_destinations(name, jumps)]))
        graph.add_conditional_edges(name, topo.hook_edge(name, default), destinations)

    graph.add_edge(START, entry)
    for i, m in enumerate(ba):
        hook_edge(
            node(m, "before_agent"),
            node(ba[i + 1], "before_agent") if i + 1 < len(ba) else topo.loop_entry,
        )
    for i, m in enumerate(bm):
        hook_edge(
            node(m, "before_model"), node(bm[i + 1], "before_model") if i + 1 < len(bm) else "model"
        )
    if am:
        graph.add_edge("model", node(am[-1], "after_model"))
        for i in range(len(am) - 1, 0, -1):
            hook_edge(node(am[i], "after_model"), node(am[i - 1], "after_model"))
    _loop_exit_edges(
        graph,
        topo,
        tool_node,
        hook_nodes,
        has_wrappers=bool(wrap_model),
        has_format=strategy is not None,
    )
    if aa:
        for i in range(len(aa) - 1, 0, -1):
            hook_edge(node(aa[i], "after_agent"), node(aa[i - 1], "after_agent"))
        # the last one to run ends the run, unless it jumps: "end" goes to ``exit`` (the
        # first after_agent to run, so the chain runs again), "model" to the loop entry
        hook_edge(node(aa[0], "after_agent"), END)

    compiled = graph.compile(
        checkpointer=checkpointer,
        store=store,
        cache=cache,
        interrupt_before=interrupt_before,
        interrupt_after=interrupt_after,
        debug=debug,
        name=name,
        transformers=agent_transformers(middleware, transformers),
    )
    compiled.default_recursion_limit = AGENT_RECURSION_LIMIT
    metadata: dict[str, Any] = {"ls_integration": "langchain_create_agent"}
    if name:
        metadata["lc_agent_name"] = name  # in every task's metadata (e.g. messages stream)
    compiled.config = {
        **compiled.config,
        "recursion_limit": AGENT_RECURSION_LIMIT,
        "metadata": metadata,
    }
    return compiled


def agent_transformers(middleware: Sequence[AgentMiddleware], extra: Sequence[Any]) -> list[Any]:
    """The agent's stream transformers: its own, each middleware's (in middleware order),
    then the caller's; a factory named twice is registered once."""
    out: list[Any] = []
    for f in [
        ToolCallTransformer,
        SubagentTransformer,
        *(f for m in middleware for f in getattr(m, "transformers", ())),
        *extra,
    ]:
        if not any(f is g for g in out):
            out.append(f)
    return out


def _loop_exit_edges(
    graph: StateGraph,
    topo: Topology,
    tool_node: ToolNode | None,
    hook_nodes: dict[str, HookNode],
    *,
    has_wrappers: bool,
    has_format: bool,
) -> None:
    """The edges out of ``loop_exit`` and ``tools``."""
    src = topo.loop_exit
    jumps = hook_nodes[src].can_jump_to if src in hook_nodes else []
    jump_targets = topo.jump_destinations(src, jumps)
    if tool_node is not None:
        # loop_entry is reachable when something besides the model shapes the messages
        destinations = ["tools", topo.exit, *jump_targets]
        if has_format or has_wrappers or src != "model":
            destinations.append(topo.loop_entry)
        graph.add_conditional_edges(
            src, topo.model_to_tools(src), list(dict.fromkeys(destinations))
        )
        back = [topo.loop_entry]
        if topo.structured_tools or any(t.return_direct for t in tool_node.tools_by_name.values()):
            back.append(topo.exit)
        graph.add_conditional_edges("tools", topo.tools_to_model(tool_node.tools_by_name), back)
    elif topo.structured_tools:
        destinations = [topo.loop_entry, topo.exit, *jump_targets]
        graph.add_conditional_edges(
            src, topo.model_to_model(src), list(dict.fromkeys(destinations))
        )
    elif src == "model":
        graph.add_edge("model", topo.exit)
    elif jumps:
        destinations = [topo.exit, *jump_targets]
        graph.add_conditional_edges(
            src, topo.hook_edge(src, topo.exit), list(dict.fromkeys(destinations))
        )
    else:
        graph.add_edge(src, topo.exit)
