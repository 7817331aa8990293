"""Tools get the run's ``ToolRuntime`` however they ask for it; agents expose their config."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine import create_agent
from engine.messages import ToolMessage
from engine.models import ScriptedChatModel
from engine.tools import ToolRuntime, tool

from .helpers import ai, ask, call


@dataclass
class Ctx:
    user: str


def test_generic_and_name_based_runtime_parameters_are_injected():
    seen: dict[str, Any] = {}

    @tool
    def typed(x: int, runtime: ToolRuntime[Ctx]) -> str:
        """Typed runtime."""
        seen["typed"] = runtime.context.user
        return "t"

    @tool
    def by_name(x: int, runtime: Any) -> str:
        """Untyped runtime."""
        seen["by_name"] = isinstance(runtime, ToolRuntime)
        seen["limit"] = runtime.config.get("recursion_limit")
        seen["meta"] = runtime.config.get("metadata", {}).get("lc_agent_name")
        return "n"

    assert set(typed.args) == {"x"} and set(by_name.args) == {"x"}
    model = ScriptedChatModel([ai(call("typed", "1", x=1), call("by_name", "2", x=2)), "done"])
    agent = create_agent(model, [typed, by_name], context_schema=Ctx, name="helper")
    out = agent.invoke(ask(), context=Ctx(user="ada"))
    assert [m.status for m in out["messages"] if isinstance(m, ToolMessage)] == [
        "success",
        "success",
    ]
    assert seen == {"typed": "ada", "by_name": True, "limit": 9_999, "meta": "helper"}
