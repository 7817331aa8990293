"""``TodoListMiddleware``: a ``write_todos`` tool, a ``todos`` state key and a planning prompt.

- State: ``todos: list[{"content", "status": "pending" | "in_progress" | "completed"}]``
  (not accepted as graph input).
- Tool: ``write_todos(todos)`` replaces the list and answers
  ``ToolMessage(f"Updated todo list to {todos}")`` (a ``Command`` updating both keys).
- ``wrap_model_call`` appends the planning system prompt to the request's system prompt.
- ``after_model``: when one AIMessage calls ``write_todos`` more than once, every one of those
  calls is answered with an error ToolMessage (and none runs); reported as
  ``middleware.action`` ``todos_parallel_calls_rejected``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any, Literal, NotRequired

from typing_extensions import TypedDict

from engine.events import MiddlewareAction
from engine.graph.runtime import Runtime
from engine.graph.state import OmitFromInput
from engine.messages import AIMessage, BaseMessage, ToolMessage
from engine.middleware.retry_policy import Emit, Steps, drive_async, drive_sync
from engine.middleware.types import (
    AgentMiddleware,
    AgentState,
    ModelCallResult,
    ModelRequest,
    ModelResponse,
)
from engine.tools import BaseTool, InjectedToolCallId, tool
from engine.types import Command

__all__ = [
    "PARALLEL_WRITE_TODOS_ERROR",
    "WRITE_TODOS_SYSTEM_PROMPT",
    "WRITE_TODOS_TOOL_DESCRIPTION",
    "PlanningState",
    "Todo",
    "TodoListMiddleware",
    "make_write_todos",
    "write_todos",
]


class Todo(TypedDict):
    """One item of the todo list."""

    content: str
    status: Literal["pending", "in_progress", "completed"]


class PlanningState(AgentState):
    """The agent state plus the todo list."""

    todos: NotRequired[Annotated[list[Todo], OmitFromInput]]


WRITE_TODOS_TOOL_DESCRIPTION = """Create and update a structured task list for the current work session, to track progress on complex, multi-step work and show the user what you are doing.

Use it when a task needs 3 or more distinct steps, when the user gives you several tasks, or when the user asks for a todo list. Skip it for a single, trivial or purely conversational request.

How to use it:
1. Call it with the whole list every time; it replaces the previous list.
2. Mark a task in_progress BEFORE you start it, and completed as soon as it is FULLY done (never when there are unresolved errors).
3. Keep at least one task in_progress until everything is completed; add tasks you discover, remove ones that became irrelevant.

Statuses: pending (not started), in_progress (being worked on), completed (done)."""

WRITE_TODOS_SYSTEM_PROMPT = """## `write_todos`

You have access to the `write_todos` tool to plan and track complex, multi-step objectives and to give the user visibility into your progress.
Mark todos completed as soon as a step is done; do not batch completions. For simple objectives that need only a few steps, do the work directly instead of writing todos.

## Important To-Do List Usage Notes to Remember
- The `write_todos` tool should never be called multiple times in parallel.
- Revise the list as you go: new information may reveal new tasks, or make old ones irrelevant."""

PARALLEL_WRITE_TODOS_ERROR = (
    "Error: The `write_todos` tool should never be called multiple times in parallel. "
    "Please call it only once per model invocation to update the todo list."
)


def make_write_todos(description: str = WRITE_TODOS_TOOL_DESCRIPTION) -> BaseTool:
    """The ``write_todos`` tool (with a custom description if given)."""

    def write_todos(todos: list[Todo], tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
        """Create and manage a structured task list for your current work session."""
        return Command(
            update={
                "todos": todos,
                "messages": [
                    ToolMessage(
                        content=f"Updated todo list to {todos}",
                        tool_call_id=tool_call_id,
                        name="write_todos",
                    )
                ],
            }
        )

    return tool(description=description)(write_todos)


write_todos: BaseTool = make_write_todos()
"""The ``write_todos`` tool with the default description."""


def _answered_ids(messages: Sequence[BaseMessage]) -> set[str]:
    return {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}


class TodoListMiddleware(AgentMiddleware):
    """Give the agent a todo list it maintains with the ``write_todos`` tool."""

    state_schema = PlanningState

    def __init__(
        self,
        *,
        system_prompt: str = WRITE_TODOS_SYSTEM_PROMPT,
        tool_description: str = WRITE_TODOS_TOOL_DESCRIPTION,
    ) -> None:
        if not isinstance(system_prompt, str) or not system_prompt.strip():
            raise ValueError("system_prompt must be a non-empty string")
        if not isinstance(tool_description, str) or not tool_description.strip():
            raise ValueError("tool_description must be a non-empty string")
        self.system_prompt = system_prompt
        self.tool_description = tool_description
        self.tools = [make_write_todos(tool_description)]

    # -- the planning prompt -------------------------------------------------------------

    def _with_prompt(self, request: ModelRequest) -> ModelRequest:
        current = request.system_prompt
        prompt = f"{current}\n\n{self.system_prompt}" if current else self.system_prompt
        return request.override(system_prompt=prompt)

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelCallResult:
        return handler(self._with_prompt(request))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelCallResult:
        return await handler(self._with_prompt(request))

    # -- no parallel write_todos ----------------------------------------------------------

    def _check_parallel(self, state: Any) -> Steps[dict[str, Any] | None]:
        messages: Sequence[BaseMessage] = state.get("messages") or []
        # only the tail matters: the last AIMessage and the ToolMessages after it (O(1) per
        # turn, however long the conversation is)
        last_ai: AIMessage | None = None
        tail: list[BaseMessage] = []
        for m in reversed(messages):
            if isinstance(m, AIMessage):
                last_ai = m
                break
            tail.append(m)
        if last_ai is None:
            return None
        answered = _answered_ids(tail)
        calls = [
            c
            for c in last_ai.tool_calls
            if c.get("name") == "write_todos" and c.get("id") not in answered
        ]
        if len(calls) < 2:
            return None
        ids = [c.get("id") or "" for c in calls]
        yield Emit(
            MiddlewareAction,
            {
                "middleware": self.name,
                "action": "todos_parallel_calls_rejected",
                "detail": {"tool": "write_todos", "tool_call_ids": ids},
            },
        )
        errors = [
            ToolMessage(content=PARALLEL_WRITE_TODOS_ERROR, tool_call_id=i, status="error")
            for i in ids
        ]
        return {"messages": errors}

    def after_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return drive_sync(self._check_parallel(state))

    async def aafter_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return await drive_async(self._check_parallel(state))
