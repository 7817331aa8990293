"""``create_react_agent``: LangGraph's prebuilt ReAct agent (deprecated upstream in favour of
``create_agent``, but in countless programs), built as a plain graph of our parts.

Nodes as LangGraph names them: ``agent`` (calls the model), ``tools`` (a ``ToolNode``; with
``version="v2"``, the default, one task per tool call), and when asked for,
``pre_model_hook``, ``post_model_hook`` and ``generate_structured_response``.  The state is
``messages`` (``add_messages``) plus ``structured_response``; a ``pre_model_hook`` may return
``llm_input_messages`` (what the model sees this turn, not kept in the state).

``prompt``: a string or a ``SystemMessage`` put before the messages, a function of the state
(sync or async) returning the model's input, or a runnable invoked with the state.  ``model``:
an instance, a ``"provider:model"`` string, or a function ``(state, runtime) -> model`` chosen
each turn; tools are bound with ``bind_tools`` unless the model already has tools bound.
When the recursion limit leaves no room for the tools and one more model turn, the agent
answers "Sorry, need more steps to process this request." instead of calling tools.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, TypedDict

from typing_extensions import deprecated

from engine.agents.tool_node import ToolNode
from engine.graph.builder import StateGraph
from engine.graph.compiled import CompiledStateGraph
from engine.graph.managed import RemainingSteps
from engine.graph.runtime import get_config, get_runtime
from engine.messages import AIMessage, AnyMessage, SystemMessage, ToolMessage, add_messages
from engine.models.resolve import as_chat_model
from engine.tools import BaseTool, as_tool
from engine.types import END, START, Send
from engine.warnings import LangGraphDeprecatedSinceV10

__all__ = ["ReactAgentState", "create_react_agent"]

OUT_OF_STEPS = "Sorry, need more steps to process this request."


class ReactAgentState(TypedDict, total=False):
    """The state of ``create_react_agent``'s graph (its output: messages and the answer)."""

    messages: Annotated[list[AnyMessage], add_messages]
    remaining_steps: RemainingSteps
    structured_response: Any


def _replace(_old: Any, new: Any) -> Any:
    return new


class _ReactInternal(ReactAgentState, total=False):
    llm_input_messages: Annotated[list[AnyMessage], _replace]


def _internal_schema(state_schema: Any) -> Any:
    """The user's state plus ``llm_input_messages`` (what a pre-model hook hands the model)."""
    hints = dict(getattr(state_schema, "__annotations__", {}))
    for base in reversed(getattr(state_schema, "__mro__", ())):
        hints = {**getattr(base, "__annotations__", {}), **hints}
    hints.setdefault("structured_response", Any)
    hints["llm_input_messages"] = Annotated[list[AnyMessage], _replace]
    return TypedDict(f"{getattr(state_schema, '__name__', 'State')}Internal", hints, total=False)  # type: ignore[operator]


def _has_bound_tools(model: Any) -> bool:
    defaults = getattr(model, "defaults", None)
    if isinstance(defaults, dict) and defaults.get("tools"):
        return True
    kwargs = getattr(model, "kwargs", None)  # a langchain RunnableBinding
    return isinstance(kwargs, dict) and bool(kwargs.get("tools"))


def _is_model_chooser(model: Any) -> bool:
    """A function ``(state, runtime) -> model`` rather than a model."""
    return (
        callable(model)
        and not isinstance(model, str)
        and not hasattr(model, "ainvoke")
        and not hasattr(model, "invoke")
    )


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _remaining_steps() -> int | None:
    config = get_config()
    limit = config.get("recursion_limit")
    step = (config.get("metadata") or {}).get("langgraph_step")
    if not isinstance(limit, int) or not isinstance(step, int):
        return None
    return limit - step


class _Agent:
    """The ``agent`` node: prompt + model, answering with one AI message."""

    def __init__(
        self,
        model: Any,
        tools: list[BaseTool],
        tool_specs: list[Any],
        prompt: Any,
        return_direct: set[str],
        wants_structured: bool,
    ) -> None:
        self.choose = model if _is_model_chooser(model) else None
        self.fixed = None if self.choose is not None else as_chat_model(model)
        self.tool_specs = tool_specs
        self.tools = tools
        self.prompt = prompt
        self.return_direct = return_direct
        self.wants_structured = wants_structured

    async def _model(self, state: Any) -> Any:
        model: Any
        if self.choose is None:
            model = self.fixed
        else:
            model = as_chat_model(await _maybe_await(self.choose(state, get_runtime())))
        if self.tool_specs and not _has_bound_tools(model):
            model = model.bind_tools(self.tool_specs)
        return model

    async def _input(self, state: Any) -> Any:
        messages = state.get("llm_input_messages") or state.get("messages") or []
        prompt = self.prompt
        if prompt is None:
            return list(messages)
        if isinstance(prompt, str):
            return [SystemMessage(content=prompt), *messages]
        if isinstance(prompt, SystemMessage):
            return [prompt, *messages]
        if hasattr(prompt, "ainvoke"):
            return await prompt.ainvoke(state)
        if callable(prompt):
            return await _maybe_await(prompt(state))
        raise TypeError(f"Got unexpected type for prompt: {type(prompt).__name__}")

    def _out_of_steps(self, reply: AIMessage) -> bool:
        if not reply.tool_calls:
            return False
        remaining = _remaining_steps()
        if remaining is None:
            return False
        all_direct = all(c.get("name") in self.return_direct for c in reply.tool_calls)
        if all_direct:
            return remaining < 1
        return remaining < (3 if self.wants_structured else 2)

    async def __call__(self, state: Any) -> dict[str, Any]:
        model = await self._model(state)
        reply = await model.ainvoke(await self._input(state), get_config())
        if isinstance(reply, AIMessage) and self._out_of_steps(reply):
            reply = AIMessage(content=OUT_OF_STEPS, id=reply.id)
        return {"messages": [reply]}


def _pending_calls(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """The last AI message's tool calls that no ToolMessage after it answers."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if isinstance(m, AIMessage):
            answered = {t.tool_call_id for t in messages[i + 1 :] if isinstance(t, ToolMessage)}
            return [dict(c) for c in m.tool_calls if c.get("id") not in answered]
    return []


@deprecated(  # as LangGraph 1.x warns, whenever it is called
    "create_react_agent has been moved to `langchain.agents`. Please update your import to "
    "`from langchain.agents import create_agent`.",
    category=LangGraphDeprecatedSinceV10,
)
def create_react_agent(
    model: Any,
    tools: Sequence[Any] | ToolNode | None = None,
    *,
    prompt: Any = None,
    response_format: Any = None,
    pre_model_hook: Callable[..., Any] | None = None,
    post_model_hook: Callable[..., Any] | None = None,
    state_schema: Any = None,
    context_schema: Any = None,
    checkpointer: Any = None,
    store: Any = None,
    interrupt_before: list[str] | None = None,
    interrupt_after: list[str] | None = None,
    debug: bool = False,
    version: Literal["v1", "v2"] = "v2",
    name: str | None = None,
    **deprecated: Any,
) -> CompiledStateGraph:
    """LangGraph's prebuilt ReAct agent (see the module docstring)."""
    if version not in ("v1", "v2"):
        raise ValueError(f"Invalid version {version}. Supported versions are 'v1' and 'v2'.")
    if deprecated.get("config_schema") is not None and context_schema is None:
        context_schema = deprecated.pop("config_schema")
    if deprecated:
        raise TypeError(f"create_react_agent() got unexpected arguments: {sorted(deprecated)}")
    if isinstance(tools, ToolNode):
        tool_node: ToolNode | None = tools
        runnable_tools = list(tools.tools_by_name.values())
        tool_specs: list[Any] = list(runnable_tools)
    else:
        given = list(tools or [])
        runnable_tools = [as_tool(t) for t in given if not isinstance(t, dict)]
        # bound as LangGraph binds them: the tools, then the provider's (dicts, never run here)
        tool_specs = [*runnable_tools, *(t for t in given if isinstance(t, dict))]
        tool_node = ToolNode(runnable_tools) if runnable_tools else None
    return_direct = {t.name for t in runnable_tools if getattr(t, "return_direct", False)}

    schema = state_schema or ReactAgentState
    graph = StateGraph(
        _internal_schema(schema), context_schema, input_schema=schema, output_schema=schema
    )
    agent = _Agent(
        model, runnable_tools, tool_specs, prompt, return_direct, response_format is not None
    )
    graph.add_node("agent", agent)
    entry = "agent"
    if pre_model_hook is not None:
        graph.add_node("pre_model_hook", pre_model_hook)
        graph.add_edge("pre_model_hook", "agent")
        entry = "pre_model_hook"
    graph.add_edge(START, entry)

    after_agent = "agent"
    if post_model_hook is not None:
        graph.add_node("post_model_hook", post_model_hook)
        graph.add_edge("agent", "post_model_hook")
        after_agent = "post_model_hook"

    finish: str = END
    if response_format is not None:
        graph.add_node("generate_structured_response", _structured(model, response_format))
        graph.add_edge("generate_structured_response", END)
        finish = "generate_structured_response"

    def route(state: Any) -> Any:
        pending = _pending_calls(state.get("messages") or [])
        if tool_node is None or not pending:
            return finish
        if version == "v1":
            return "tools"
        return [Send("tools", call) for call in pending]

    destinations = [finish, *(["tools"] if tool_node is not None else [])]
    graph.add_conditional_edges(after_agent, route, destinations)

    if tool_node is not None:
        graph.add_node("tools", tool_node)

        def after_tools(state: Any) -> str:
            answers: list[ToolMessage] = []
            for m in reversed(state.get("messages") or []):
                if not isinstance(m, ToolMessage):
                    break
                answers.append(m)
            if any(a.name in return_direct for a in answers):
                return END
            return entry

        if return_direct:
            graph.add_conditional_edges("tools", after_tools, [entry, END])
        else:
            graph.add_edge("tools", entry)

    return graph.compile(
        checkpointer=checkpointer,
        store=store,
        interrupt_before=interrupt_before,
        interrupt_after=interrupt_after,
        debug=debug,
        name=name or "LangGraph",
    )


def _structured(model: Any, response_format: Any) -> Callable[..., Any]:
    """The ``generate_structured_response`` node: the conversation, answered in the schema."""
    system: str | None = None
    schema = response_format
    if isinstance(response_format, tuple) and len(response_format) == 2:
        system, schema = response_format

    async def generate_structured_response(state: Any) -> dict[str, Any]:
        chosen = model(state, get_runtime()) if _is_model_chooser(model) else model
        llm = as_chat_model(await _maybe_await(chosen)).with_structured_output(schema)
        messages = list(state.get("messages") or [])
        if system is not None:
            messages = [SystemMessage(content=system), *messages]
        return {"structured_response": await llm.ainvoke(messages, get_config())}

    return generate_structured_response
