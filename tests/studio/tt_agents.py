"""Seed 000 for the time-travel tests: create_agent + todo and retry middleware, scripted model.

``resources/scenarios/retry_todos.py`` is the studio's built-in version of this scenario; the
tests build their own copy so they can script different continuations, change the prompt and
count tool runs, with retry delays near zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.agents import create_agent
from engine.checkpoint import InMemorySaver
from engine.events import EventBase
from engine.messages import AIMessage, HumanMessage
from engine.middleware.builtins import ModelRetryMiddleware, TodoListMiddleware, ToolRetryMiddleware
from engine.models.scripted import ScriptedChatModel
from engine.tools import tool

TASK = "Create login.tsx and register.tsx"
SYSTEM_PROMPT = "You are a careful front-end engineer."
TODOS = [
    {"content": "create login.tsx", "status": "in_progress"},
    {"content": "create register.tsx", "status": "pending"},
]


def call(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id}])


def seed_script() -> list[Any]:
    """Timeout, write_todos, create login (disk full once), create register, final answer."""
    return [
        TimeoutError("model timed out"),
        call("write_todos", {"todos": TODOS}, "call_todos"),
        call("create_file", {"path": "login.tsx"}, "call_login"),
        call("create_file", {"path": "register.tsx"}, "call_register"),
        AIMessage("Both files are created."),
    ]


@dataclass
class Seed:
    """A seed-000 agent and what its tools did."""

    agent: Any
    model: Any
    files: list[str] = field(default_factory=list)
    events: list[EventBase] = field(default_factory=list)
    fail_next: dict[str, int] = field(default_factory=dict)

    def config(self, thread_id: str = "seed", checkpoint_id: str | None = None) -> dict[str, Any]:
        conf: dict[str, Any] = {"thread_id": thread_id}
        if checkpoint_id:
            conf["checkpoint_id"] = checkpoint_id
        return {"configurable": conf}


def build_seed(
    model: Any = None,
    *,
    checkpointer: Any = None,
    system_prompt: str = SYSTEM_PROMPT,
    disk_full_once: bool = True,
    record_events: bool = True,
) -> Seed:
    """The agent of seed 000 (``model`` defaults to the scripted seed conversation)."""
    model = model if model is not None else ScriptedChatModel(seed_script())
    seed = Seed(agent=None, model=model, fail_next={"login.tsx": 1} if disk_full_once else {})

    @tool
    def create_file(path: str, content: str = "") -> str:
        """Create a file in the project.

        Args:
            path: the file to create
            content: what to write into it
        """
        if seed.fail_next.get(path):
            seed.fail_next[path] -= 1
            raise OSError("Disk full")
        seed.files.append(path)
        return f"File {path} created"

    middleware = [
        TodoListMiddleware(),
        ModelRetryMiddleware(
            max_retries=2, retry_on=(TimeoutError,), initial_delay=0.0, jitter=False
        ),
        ToolRetryMiddleware(max_retries=1, retry_on=(OSError,), initial_delay=0.0, jitter=False),
    ]
    seed.agent = create_agent(
        model,
        [create_file],
        system_prompt=system_prompt,
        middleware=middleware,
        checkpointer=checkpointer if checkpointer is not None else InMemorySaver(),
    )
    if record_events:
        seed.agent.subscribe(seed.events.append)
    return seed


def seed_input() -> dict[str, Any]:
    return {"messages": [HumanMessage(TASK)]}
