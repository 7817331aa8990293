"""An agent whose every name and text carries terminal control sequences (the CLI tests of
terminal injection load it): a graph and node name, a tool the model makes up, a tool
result, an error, all with OSC 52 (clipboard), OSC 0 (title), clear screen, C1 CSI, a
carriage return and a right-to-left override."""

from __future__ import annotations

from engine.agents import create_agent
from engine.messages import AIMessage
from engine.models import ScriptedChatModel
from engine.tools import tool

HOSTILE = "\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b[2J\x9b31m\rX\u202eevil\u2066"


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"found {HOSTILE}"


def build() -> object:
    model = ScriptedChatModel(
        [
            AIMessage(
                content=f"calling {HOSTILE}",
                tool_calls=[
                    {"name": f"made_up{HOSTILE}", "args": {"q": HOSTILE}, "id": "c1"},
                    {"name": "lookup", "args": {"query": HOSTILE}, "id": "c2"},
                ],
            ),
            AIMessage(content=f"done {HOSTILE}"),
        ]
    )
    return create_agent(model, tools=[lookup], name=f"agent{HOSTILE}")


agent = build()
INPUT = f"hello {HOSTILE}"
