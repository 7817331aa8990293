"""An agent with long-term memory for the Store dock tests: its tool reads, writes, searches
and deletes store items."""

from __future__ import annotations

from typing import Annotated, Any

from engine.agents import create_agent
from engine.messages import AIMessage, HumanMessage
from engine.models import ScriptedChatModel
from engine.store import BaseStore
from engine.tools import InjectedStore, tool


def seed(store: BaseStore) -> None:
    """What the store holds before any run."""
    store.put(("users", "u1"), "prefs", {"theme": "dark", "lang": "nb"})
    store.put(("users", "u2"), "prefs", {"theme": "light", "lang": "en"})
    store.put(("users", "u1"), "scratch", {"tmp": True})
    store.put(("docs",), "readme", {"title": "Read me", "words": 120})


def memory_agent(store: BaseStore) -> Any:
    @tool
    def remember(fact: str, store: Annotated[Any, InjectedStore()]) -> str:
        """Remember a fact about user u1.

        Args:
            fact: the fact
        """
        prefs = store.get(("users", "u1"), "prefs")
        old = store.get(("users", "u1"), "facts")
        facts = [*(old.value["facts"] if old else []), fact]
        store.put(("users", "u1"), "facts", {"facts": facts, "theme": prefs.value["theme"]})
        store.search(("users",), filter={"theme": "dark"})
        store.delete(("users", "u1"), "scratch")
        return "noted"

    model = ScriptedChatModel(
        [
            AIMessage(
                content="",
                tool_calls=[{"name": "remember", "args": {"fact": "likes tea"}, "id": "c1"}],
            ),
            "Noted.",
        ]
    )
    return create_agent(model, [remember], store=store, name="memory")


def memory_input() -> dict[str, Any]:
    return {"messages": [HumanMessage(content="I like tea")]}
