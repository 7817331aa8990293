"""Call limits: ``ModelCallLimitMiddleware`` and ``ToolCallLimitMiddleware``.

Both count per thread (checkpointed, so it survives across invocations) and per run (an
untracked channel: never checkpointed, so every invocation starts from zero).

- ``ModelCallLimitMiddleware(thread_limit, run_limit, exit_behavior="end" | "error")``:
  ``after_model`` counts the call; ``before_model`` at a limit either ends the run with
  ``AIMessage("Model call limits exceeded: run limit (2/2)")`` or raises
  ``ModelCallLimitExceededError``.
- ``ToolCallLimitMiddleware(tool_name=None, thread_limit, run_limit,
  exit_behavior="continue" | "error" | "end")``: ``after_model`` counts the calls of the last
  AIMessage (only ``tool_name``'s, when given); the calls beyond a limit are answered with
  ``ToolMessage("Tool call limit exceeded. Do not call '{tool}' again.", status="error")`` (or
  "... Do not make additional tool calls." without a tool name) and never run. ``"error"``
  raises ``ToolCallLimitExceededError`` instead; ``"end"`` also stops the whole batch (the
  calls within the limit do not run either, see ``NOT_RUN_MESSAGE``) and ends the run with an
  AIMessage saying which limit was hit.

Every limit hit is reported as ``middleware.action`` ``limit_exceeded``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from engine.events import MiddlewareAction
from engine.graph.channels import UntrackedValue
from engine.graph.runtime import Runtime
from engine.graph.state import PrivateStateAttr
from engine.messages import AIMessage, BaseMessage, ToolCall, ToolMessage
from engine.middleware.retry_policy import Emit, Steps, drive_async, drive_sync
from engine.middleware.types import AgentMiddleware, AgentState, hook_config

__all__ = [
    "NOT_RUN_MESSAGE",
    "ModelCallLimitExceededError",
    "ModelCallLimitMiddleware",
    "ModelCallLimitState",
    "ToolCallLimitExceededError",
    "ToolCallLimitMiddleware",
    "ToolCallLimitState",
]

NOT_RUN_MESSAGE = (  # LangChain's words (the model reads them)
    "Execution stopped before this tool call could run because another tool call in the "
    "same batch exceeded the limit."
)


def _check_limits(thread_limit: int | None, run_limit: int | None) -> None:
    if thread_limit is None and run_limit is None:
        raise ValueError("At least one limit must be specified (thread_limit or run_limit)")
    for label, value in (("thread_limit", thread_limit), ("run_limit", run_limit)):
        if value is not None and (not isinstance(value, int) or value < 0):
            raise ValueError(f"{label} must be an int >= 0, got {value!r}")


def _last_ai(state: Any) -> tuple[AIMessage | None, list[BaseMessage]]:
    messages: list[BaseMessage] = list(state.get("messages") or [])
    return next((m for m in reversed(messages) if isinstance(m, AIMessage)), None), messages


# -- model calls ------------------------------------------------------------------------------


class ModelCallLimitState(AgentState):
    thread_model_call_count: NotRequired[Annotated[int, PrivateStateAttr]]
    run_model_call_count: NotRequired[Annotated[int, UntrackedValue, PrivateStateAttr]]


def _model_limit_text(
    thread: int, run: int, thread_limit: int | None, run_limit: int | None
) -> str:
    hit = []
    if thread_limit is not None and thread >= thread_limit:
        hit.append(f"thread limit ({thread}/{thread_limit})")
    if run_limit is not None and run >= run_limit:
        hit.append(f"run limit ({run}/{run_limit})")
    return f"Model call limits exceeded: {', '.join(hit)}"


class ModelCallLimitExceededError(Exception):
    """Raised (``exit_behavior="error"``) when a model call limit is reached."""

    def __init__(
        self, thread_count: int, run_count: int, thread_limit: int | None, run_limit: int | None
    ) -> None:
        self.thread_count = thread_count
        self.run_count = run_count
        self.thread_limit = thread_limit
        self.run_limit = run_limit
        super().__init__(_model_limit_text(thread_count, run_count, thread_limit, run_limit))


class ModelCallLimitMiddleware(AgentMiddleware):
    """Stop the agent after ``thread_limit`` / ``run_limit`` model calls."""

    state_schema = ModelCallLimitState

    def __init__(
        self,
        *,
        thread_limit: int | None = None,
        run_limit: int | None = None,
        exit_behavior: Literal["end", "error"] = "end",
    ) -> None:
        _check_limits(thread_limit, run_limit)
        if exit_behavior not in ("end", "error"):
            raise ValueError(f"Invalid exit_behavior: {exit_behavior}. Must be 'end' or 'error'")
        self.thread_limit = thread_limit
        self.run_limit = run_limit
        self.exit_behavior = exit_behavior
        self.tools = []

    def _before(self, state: Any) -> Steps[dict[str, Any] | None]:
        thread = int(state.get("thread_model_call_count") or 0)
        run = int(state.get("run_model_call_count") or 0)
        thread_hit = self.thread_limit is not None and thread >= self.thread_limit
        run_hit = self.run_limit is not None and run >= self.run_limit
        if not (thread_hit or run_hit):
            return None
        text = _model_limit_text(thread, run, self.thread_limit, self.run_limit)
        yield Emit(
            MiddlewareAction,
            {
                "middleware": self.name,
                "action": "limit_exceeded",
                "detail": {
                    "limit": "model_calls",
                    "thread_count": thread,
                    "run_count": run,
                    "thread_limit": self.thread_limit,
                    "run_limit": self.run_limit,
                    "exit_behavior": self.exit_behavior,
                    "message": text,
                },
            },
        )
        if self.exit_behavior == "error":
            raise ModelCallLimitExceededError(thread, run, self.thread_limit, self.run_limit)
        return {"jump_to": "end", "messages": [AIMessage(content=text)]}

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return drive_sync(self._before(state))

    @hook_config(can_jump_to=["end"])
    async def abefore_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return await drive_async(self._before(state))

    def after_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return {
            "thread_model_call_count": int(state.get("thread_model_call_count") or 0) + 1,
            "run_model_call_count": int(state.get("run_model_call_count") or 0) + 1,
        }

    async def aafter_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return self.after_model(state, runtime)


# -- tool calls -------------------------------------------------------------------------------


class ToolCallLimitState(AgentState):
    thread_tool_call_count: NotRequired[Annotated[dict[str, int], PrivateStateAttr]]
    run_tool_call_count: NotRequired[Annotated[dict[str, int], UntrackedValue, PrivateStateAttr]]


def _tool_limit_text(
    thread: int, run: int, thread_limit: int | None, run_limit: int | None, tool: str | None
) -> str:
    hit = []
    if thread_limit is not None and thread > thread_limit:
        hit.append(f"thread limit exceeded ({thread}/{thread_limit} calls)")
    if run_limit is not None and run > run_limit:
        hit.append(f"run limit exceeded ({run}/{run_limit} calls)")
    subject = f"'{tool}' tool" if tool else "Tool"
    return f"{subject} call limit reached: {' and '.join(hit)}."


class ToolCallLimitExceededError(Exception):
    """Raised (``exit_behavior="error"``) when a tool call limit would be exceeded."""

    def __init__(
        self,
        thread_count: int,
        run_count: int,
        thread_limit: int | None,
        run_limit: int | None,
        tool_name: str | None = None,
    ) -> None:
        self.thread_count = thread_count
        self.run_count = run_count
        self.thread_limit = thread_limit
        self.run_limit = run_limit
        self.tool_name = tool_name
        super().__init__(
            _tool_limit_text(thread_count, run_count, thread_limit, run_limit, tool_name)
        )


class ToolCallLimitMiddleware(AgentMiddleware):
    """Block tool calls beyond ``thread_limit`` / ``run_limit`` (of one tool, or of all)."""

    state_schema = ToolCallLimitState

    def __init__(
        self,
        *,
        tool_name: str | None = None,
        thread_limit: int | None = None,
        run_limit: int | None = None,
        exit_behavior: Literal["continue", "error", "end"] = "continue",
    ) -> None:
        _check_limits(thread_limit, run_limit)
        behaviors = ("continue", "error", "end")
        if exit_behavior not in behaviors:
            raise ValueError(
                f"Invalid exit_behavior: {exit_behavior!r}. Must be one of {behaviors}"
            )
        if thread_limit is not None and run_limit is not None and run_limit > thread_limit:
            raise ValueError(
                f"run_limit ({run_limit}) cannot exceed thread_limit ({thread_limit}). "
                "The run limit should be less than or equal to the thread limit."
            )
        self.tool_name = tool_name
        self.thread_limit = thread_limit
        self.run_limit = run_limit
        self.exit_behavior = exit_behavior
        self.tools = []

    @property
    def name(self) -> str:
        base = type(self).__name__
        return f"{base}[{self.tool_name}]" if self.tool_name else base

    @property
    def blocked_message(self) -> str:
        if self.tool_name:
            return f"Tool call limit exceeded. Do not call '{self.tool_name}' again."
        return "Tool call limit exceeded. Do not make additional tool calls."

    def _would_exceed(self, thread: int, run: int) -> bool:
        return (self.thread_limit is not None and thread + 1 > self.thread_limit) or (
            self.run_limit is not None and run + 1 > self.run_limit
        )

    def _after(self, state: Any) -> Steps[dict[str, Any] | None]:
        last_ai, messages = _last_ai(state)
        if last_ai is None:
            return None
        answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
        pending = [c for c in last_ai.tool_calls if c.get("id") not in answered]
        mine = [c for c in pending if self.tool_name is None or c.get("name", "") == self.tool_name]
        if not mine:
            return None
        key = self.tool_name or "__all__"
        thread_counts = dict(state.get("thread_tool_call_count") or {})
        run_counts = dict(state.get("run_tool_call_count") or {})
        thread, run = thread_counts.get(key, 0), run_counts.get(key, 0)
        allowed: list[ToolCall] = []
        blocked: list[ToolCall] = []
        for call in mine:
            if self._would_exceed(thread, run):
                blocked.append(call)
            else:
                allowed.append(call)
                thread, run = thread + 1, run + 1
        # what the thread's count would be had the blocked calls run (the messages say it)
        tried_thread = thread + len(blocked)
        if self.exit_behavior == "end" and blocked:
            thread -= len(allowed)  # the batch is stopped: the allowed calls never run
        thread_counts[key] = thread
        run_counts[key] = run + len(blocked)  # attempted in this run, so they count here
        update: dict[str, Any] = {
            "thread_tool_call_count": thread_counts,
            "run_tool_call_count": run_counts,
        }
        if not blocked:
            return update
        yield Emit(
            MiddlewareAction,
            {
                "middleware": self.name,
                "action": "limit_exceeded",
                "detail": {
                    "limit": "tool_calls",
                    "tool": self.tool_name,
                    "blocked": [c.get("id") for c in blocked],
                    "thread_count": tried_thread,
                    "run_count": run_counts[key],
                    "thread_limit": self.thread_limit,
                    "run_limit": self.run_limit,
                    "exit_behavior": self.exit_behavior,
                },
            },
        )
        if self.exit_behavior == "error":
            raise ToolCallLimitExceededError(
                tried_thread, run_counts[key], self.thread_limit, self.run_limit, self.tool_name
            )
        blocked_ids = {c.get("id") for c in blocked}
        # "continue" answers the blocked calls; "end" answers the whole batch: the blocked
        # calls, then the others (as LangChain orders them)
        answers: list[BaseMessage] = [
            ToolMessage(
                content=self.blocked_message,
                tool_call_id=c.get("id") or "",
                name=c.get("name", ""),
                status="error",
            )
            for c in blocked
        ]
        if self.exit_behavior == "end":
            answers += [
                ToolMessage(
                    content=NOT_RUN_MESSAGE,
                    tool_call_id=c.get("id") or "",
                    name=c.get("name", ""),
                    status="error",
                )
                for c in pending
                if c.get("id") not in blocked_ids
            ]
        if self.exit_behavior == "end":
            text = _tool_limit_text(
                tried_thread, run_counts[key], self.thread_limit, self.run_limit, self.tool_name
            )
            answers.append(AIMessage(content=text))
            update["jump_to"] = "end"
        update["messages"] = answers
        return update

    @hook_config(can_jump_to=["end"])
    def after_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return drive_sync(self._after(state))

    @hook_config(can_jump_to=["end"])
    async def aafter_model(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return await drive_async(self._after(state))
