"""The agent's routing functions: ``model_to_tools``, ``tools_to_model``, hook jumps.

Every function labels its decision with ``set_route_reason`` so the debugger shows *why* the
run went where it went ("2 pending tool calls", "jump_to=end from X.before_model").

Jumps: a hook declared with ``can_jump_to`` may return ``{"jump_to": "model"|"tools"|"end"}``.
The hook node records the jump on its own task, and only the routing function of that very
task acts on it, so a jump never leaks into a later node's routing even though the
ephemeral ``jump_to`` channel stays readable for one more step.  (Outside a running task -
``update_state(as_node=...)`` - the state's ``jump_to`` is the update's own.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.graph.runtime import current_task, set_route_reason
from engine.messages import AIMessage, ToolMessage
from engine.tools import BaseTool
from engine.types import Send

__all__ = ["Topology", "last_ai_and_answers", "pending_jump", "remember_jump"]

_JUMP_ATTR = "agent_jump_to"


def remember_jump(jump: str) -> None:
    """Called by a hook node: this task jumps to ``jump``."""
    task = current_task()
    if task is not None:
        setattr(task, _JUMP_ATTR, jump)


def pending_jump(state: Any) -> str | None:
    """The jump the current task decided (see the module docstring)."""
    task = current_task()
    if task is not None:
        return getattr(task, _JUMP_ATTR, None)
    return state.get("jump_to") if isinstance(state, dict) else None


def last_ai_and_answers(messages: Sequence[Any]) -> tuple[AIMessage | None, list[ToolMessage]]:
    """The last AIMessage and the ToolMessages after it."""
    n = len(messages)
    for i in range(n - 1, -1, -1):
        m = messages[i]
        if isinstance(m, AIMessage):
            return m, [
                a for a in (messages[j] for j in range(i + 1, n)) if isinstance(a, ToolMessage)
            ]
    return None, []


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@dataclass(frozen=True)
class Topology:
    """Where the agent loop enters, leaves and ends (spec section 4)."""

    loop_entry: str
    loop_exit: str
    exit: str
    has_tools: bool
    structured_tools: frozenset[str]
    retry_invalid_calls: bool = False
    """Send invalid tool calls to the tools node (answered there, then back to the model)
    instead of ending the run when they are all the model asked for (upstream's way)."""

    def resolve(self, jump: str, source: str) -> str:
        """The node a ``jump_to`` from ``source`` leads to."""
        if jump == "model":
            # the loop entry jumping to "model" goes to the model itself, not to itself
            return "model" if source == self.loop_entry else self.loop_entry
        if jump == "end":
            return self.exit
        if jump == "tools":
            if not self.has_tools:
                raise ValueError(  # as LangGraph words a branch to a node it does not have
                    f"At '{source}' node, 'jump_edge' branch found unknown target 'tools'"
                )
            return "tools"
        raise ValueError(f"{source} returned jump_to={jump!r}; expected 'model', 'tools' or 'end'")

    def jump_destinations(self, source: str, can_jump_to: Sequence[str]) -> list[str]:
        out: list[str] = []
        for j in can_jump_to:
            if j == "tools" and not self.has_tools:
                continue
            out.append(self.resolve(j, source))
        return out

    def _jump(self, state: Any, source: str) -> str | None:
        jump = pending_jump(state)
        if not jump:
            return None
        set_route_reason("jump_to", f"jump_to={jump} from {source}")
        return self.resolve(jump, source)

    def _structured_answer(self, answers: list[ToolMessage]) -> bool:
        return any(a.name in self.structured_tools and a.status != "error" for a in answers)

    @staticmethod
    def _fresh_structured_response(state: Any) -> bool:
        """Whether the model call just made gave a structured response (the model node of an
        agent with a response format clears the state's when a call gives none)."""
        get = getattr(state, "get", None)
        return get is not None and get("structured_response") is not None

    # -- routing functions -------------------------------------------------------------------

    def hook_edge(self, source: str, default: str) -> Callable[[Any], str]:
        def jump(state: Any) -> str:
            target = self._jump(state, source)
            if target is not None:
                return target
            set_route_reason("static", "no jump_to")
            return default

        return jump

    def model_to_tools(self, source: str) -> Callable[[Any], Any]:
        def model_to_tools(state: Any) -> Any:
            target = self._jump(state, source)
            if target is not None:
                return target
            ai, answers = last_ai_and_answers(state["messages"])
            if ai is None:
                set_route_reason("end", "no AIMessage in messages")
                return self.exit
            invalid = ai.invalid_tool_calls if self.retry_invalid_calls else []
            if not ai.tool_calls and not invalid:
                if ai.invalid_tool_calls:
                    set_route_reason(
                        "end",
                        f"only {_plural(len(ai.invalid_tool_calls), 'invalid tool call')}"
                        " (unparseable arguments)",
                    )
                else:
                    set_route_reason("no_tool_calls", "the model answered without tool calls")
                return self.exit
            answered = {a.tool_call_id for a in answers}
            pending: list[Any] = [
                dict(c)
                for c in ai.tool_calls
                if c.get("id") not in answered and c.get("name") not in self.structured_tools
            ]
            pending += [
                {**c, "type": "invalid_tool_call"} for c in invalid if c.get("id") not in answered
            ]
            if pending:
                set_route_reason("tool_calls", _plural(len(pending), "pending tool call"))
                return [Send("tools", c) for c in pending]
            if self._fresh_structured_response(state):
                set_route_reason("structured_response", "structured response ready")
                return self.exit
            set_route_reason("tool_calls", "every tool call is answered; back to the model")
            return self.loop_entry

        return model_to_tools

    def model_to_model(self, source: str) -> Callable[[Any], str]:
        """Without a tools node but with structured-output tools: ask the model again until
        a call gives the structured response (a plain answer too is asked again, as
        LangChain's agent asks)."""

        def model_to_model(state: Any) -> str:
            target = self._jump(state, source)
            if target is not None:
                return target
            if self._fresh_structured_response(state):
                set_route_reason("structured_response", "structured response ready")
                return self.exit
            ai, _ = last_ai_and_answers(state["messages"])
            if ai is None or (not ai.tool_calls and not ai.invalid_tool_calls):
                set_route_reason("no_tool_calls", "no structured response yet; back to the model")
            else:
                set_route_reason("tool_calls", "structured output invalid; back to the model")
            return self.loop_entry

        return model_to_model

    def tools_to_model(self, tools_by_name: dict[str, BaseTool]) -> Callable[[Any], str]:
        def tools_to_model(state: Any) -> str:
            ai, answers = last_ai_and_answers(state["messages"])
            # the tool that ran may differ from the one asked for (a reviewer's edit): the
            # answer's name says which one ran
            ran = {a.tool_call_id: a.name for a in answers if a.name in tools_by_name}
            names = [
                ran.get(c.get("id") or "", c.get("name")) for c in (ai.tool_calls if ai else [])
            ]
            client = [n for n in names if n in tools_by_name]
            if client and all(tools_by_name[str(n)].return_direct for n in client):
                set_route_reason("return_direct", "every executed tool is return_direct")
                return self.exit
            if self._structured_answer(answers):
                set_route_reason("structured_response", "structured response ready")
                return self.exit
            set_route_reason("tool_calls", "tool results ready; back to the model")
            return self.loop_entry

        return tools_to_model
