"""An agent gated by HumanInTheLoopMiddleware (scenario 21), importable from a subprocess.

The scripted model asks for three tools in one turn - ``send_email`` (every decision
allowed), ``list_files`` (not gated) and ``delete_file`` (approve or reject) - then reports
the tool results it was given.
"""

from __future__ import annotations

from typing import Any

from engine.agents import create_agent
from engine.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from engine.middleware.builtins import HumanInTheLoopMiddleware
from engine.models import ScriptedChatModel
from engine.tools import tool

INTERRUPT_ON: dict[str, Any] = {
    "send_email": True,
    "delete_file": {"allowed_decisions": ["approve", "reject"]},
}
REQUEST = "mail bob, list the files and delete /tmp/x"


@tool
def send_email(to: str, body: str) -> str:
    """Send an email."""
    return f"sent to {to}: {body}"


@tool
def list_files() -> str:
    """List the files."""
    return "a.txt b.txt"


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


def reply(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> AIMessage:
    if isinstance(messages[-1], HumanMessage):
        return AIMessage(
            content="",
            tool_calls=[
                {
                    "name": "send_email",
                    "args": {"to": "bob@example.com", "body": "hi"},
                    "id": "c-send",
                },
                {"name": "list_files", "args": {}, "id": "c-safe"},
                {"name": "delete_file", "args": {"path": "/tmp/x"}, "id": "c-delete"},
            ],
        )
    results = [f"{m.tool_call_id}={m.status}" for m in messages if isinstance(m, ToolMessage)]
    return AIMessage(content="results: " + ", ".join(results))


def build(checkpointer: Any, **options: Any) -> Any:
    model = ScriptedChatModel([reply] * 20, name="scripted")
    return create_agent(
        model,
        [send_email, list_files, delete_file],
        middleware=[HumanInTheLoopMiddleware(INTERRUPT_ON, **options)],
        checkpointer=checkpointer,
    )
