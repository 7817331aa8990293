"""Model and tool retries: the model times out once and create_file("login.tsx") hits a full disk once.

Seed 000, the default demo, offline on the scripted model. The user asks for login.tsx and
register.tsx. ``ModelRetryMiddleware`` wraps the model call, ``ToolRetryMiddleware`` the tool
calls, and ``TodoListMiddleware`` gives the model a ``write_todos`` tool:

    model   TimeoutError, retried after ~0.5 s     -> write_todos([login: in_progress, register: pending])
    tools   write_todos                            -> todos set
    model                                          -> create_file("login.tsx")
    tools   IOError("Disk full"), retried ~0.5 s   -> "created login.tsx", its todo completed
    model                                          -> create_file("register.tsx")
    tools                                          -> "created register.tsx", its todo completed
    model                                          -> the final answer

While an attempt is being retried the state does not change: a failed attempt writes nothing.
The run ends with 8 messages and 13 checkpoints. ``build_agent`` also makes the seed's failure
variants (more timeouts or full disks than retries, ``on_failure="continue"`` or ``"error"``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from engine.agents import create_agent
from engine.checkpoint.base import BaseCheckpointSaver
from engine.checkpoint.memory import InMemorySaver
from engine.graph.compiled import CompiledStateGraph
from engine.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from engine.middleware.builtins import ModelRetryMiddleware, TodoListMiddleware, ToolRetryMiddleware
from engine.models import ScriptedChatModel
from engine.tools import BaseTool, InjectedState, InjectedToolCallId, tool
from engine.types import Command

__all__ = [
    "FILES",
    "FINAL_TODOS",
    "INPUT",
    "TODOS",
    "Workspace",
    "agent",
    "build_agent",
    "reply",
    "scripted_model",
]

INPUT = "帮我创建 login.tsx 和 register.tsx 两个文件"
FILES = ("login.tsx", "register.tsx")
TODOS = [
    {"content": "创建 login.tsx", "status": "in_progress"},
    {"content": "创建 register.tsx", "status": "pending"},
]
FINAL_TODOS = [{**t, "status": "completed"} for t in TODOS]
ANSWER = "已完成 login.tsx 和 register.tsx 两个文件的创建。"

OnFailure = Literal["continue", "error"]


class Workspace:
    """The files the agent writes (in memory), and how many writes of each will fail."""

    def __init__(self, disk_full: int = 1) -> None:
        self.files: dict[str, str] = {}
        self.failures: dict[str, int] = {"login.tsx": disk_full}
        self.attempts: list[str] = []


def todos_after(todos: list[dict[str, str]] | None, path: str) -> list[dict[str, str]] | None:
    """The todo list once ``path`` is created: its item completed, the others as they were."""
    if not todos:
        return todos
    return [
        {**t, "status": "completed"} if t.get("content") == f"创建 {path}" else dict(t)
        for t in todos
    ]


def make_tools(workspace: Workspace) -> list[BaseTool]:
    @tool
    def create_file(
        path: str,
        content: str = "",
        todos: Annotated[list[dict[str, str]] | None, InjectedState("todos")] = None,
        tool_call_id: Annotated[str, InjectedToolCallId] = "",
    ) -> Command:
        """Create a file in the project.

        Args:
            path: the file's path, e.g. "login.tsx"
            content: what to write into it
        """
        workspace.attempts.append(path)
        if workspace.failures.get(path, 0) > 0:
            workspace.failures[path] -= 1
            raise OSError("Disk full")
        workspace.files[path] = content
        update: dict[str, Any] = {
            "messages": [ToolMessage(f"created {path}", tool_call_id=tool_call_id)]
        }
        if todos:  # the file's todo is done (seed 000's state_4: the list follows the work)
            update["todos"] = todos_after(todos, path)
        return Command(update=update)

    return [create_file]


def _create(path: str) -> AIMessage:
    component = path.removesuffix(".tsx").capitalize()
    body = f"export default function {component}() {{\n  return <form id={path!r} />;\n}}\n"
    return AIMessage(
        content="",
        tool_calls=[
            {
                "name": "create_file",
                "args": {"path": path, "content": body},
                "id": f"call_{component.lower()}",
            }
        ],
    )


def reply(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> AIMessage:
    """The scripted model's policy: plan with write_todos, create each file, then answer."""
    last = messages[-1] if messages else None
    if isinstance(last, HumanMessage):
        return AIMessage(
            content="",
            tool_calls=[{"name": "write_todos", "args": {"todos": TODOS}, "id": "call_todos"}],
        )
    if isinstance(last, ToolMessage) and last.status == "error":
        return AIMessage(content=f"创建文件失败：{last.text}")
    created = [
        p
        for p in FILES
        if any(isinstance(m, ToolMessage) and m.text == f"created {p}" for m in messages)
    ]
    missing = [p for p in FILES if p not in created]
    if missing:
        return _create(missing[0])
    return AIMessage(content=ANSWER)


def scripted_model(timeouts: int = 1) -> ScriptedChatModel:
    """The offline model: ``timeouts`` TimeoutErrors, then ``reply`` for every call."""
    faults: list[Any] = [TimeoutError("model call timed out") for _ in range(timeouts)]
    return ScriptedChatModel([*faults, *([reply] * 200)], name="scripted-coder")


def build_agent(
    *,
    initial_delay: float = 0.5,
    model_timeouts: int = 1,
    disk_full: int = 1,
    model_on_failure: OnFailure = "continue",
    tool_on_failure: OnFailure = "continue",
    model: Any = None,
    workspace: Workspace | None = None,
    checkpointer: BaseCheckpointSaver | None = None,
) -> CompiledStateGraph:
    """A fresh agent: the seed's middleware around the scripted model (or ``model``).

    ``model_timeouts`` / ``disk_full``: how many times the model call / the login.tsx write
    fail (the retries cover 2 and 1 of them); ``initial_delay`` is the first retry's delay.
    """
    return create_agent(
        model or scripted_model(model_timeouts),
        make_tools(workspace or Workspace(disk_full)),
        system_prompt="You are a coding assistant. Plan multi-file work with write_todos.",
        middleware=[
            ModelRetryMiddleware(
                max_retries=2,
                retry_on=(TimeoutError,),
                on_failure=model_on_failure,
                initial_delay=initial_delay,
            ),
            ToolRetryMiddleware(
                max_retries=1,
                retry_on=(IOError,),
                on_failure=tool_on_failure,
                initial_delay=initial_delay,
            ),
            TodoListMiddleware(),
        ],
        checkpointer=checkpointer or InMemorySaver(),
        name="retry_todos",
    )


agent = build_agent()
