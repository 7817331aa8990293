"""Every built-in middleware in one import (``from engine.middleware.builtins import *``)."""

from engine.middleware.call_limits import (
    ModelCallLimitExceededError,
    ModelCallLimitMiddleware,
    ToolCallLimitExceededError,
    ToolCallLimitMiddleware,
)
from engine.middleware.context_editing import (
    ClearToolUsesEdit,
    ContextEditingMiddleware,
    count_tokens_approximately,
)
from engine.middleware.fallback import ModelFallbackMiddleware
from engine.middleware.hitl import HumanInTheLoopMiddleware, InterruptOnConfig
from engine.middleware.model_retry import ModelRetryMiddleware
from engine.middleware.prompt_caching import PromptCachingMiddleware
from engine.middleware.summarization import SummarizationMiddleware
from engine.middleware.todo import PlanningState, Todo, TodoListMiddleware
from engine.middleware.tool_retry import ToolRetryMiddleware
from engine.middleware.tool_selector import LLMToolSelectorMiddleware
from engine.middleware.tool_timeout import ToolTimeoutError, ToolTimeoutMiddleware

__all__ = [
    "ClearToolUsesEdit",
    "ContextEditingMiddleware",
    "HumanInTheLoopMiddleware",
    "InterruptOnConfig",
    "LLMToolSelectorMiddleware",
    "ModelCallLimitExceededError",
    "ModelCallLimitMiddleware",
    "ModelFallbackMiddleware",
    "ModelRetryMiddleware",
    "PlanningState",
    "PromptCachingMiddleware",
    "SummarizationMiddleware",
    "Todo",
    "TodoListMiddleware",
    "ToolCallLimitExceededError",
    "ToolCallLimitMiddleware",
    "ToolRetryMiddleware",
    "ToolTimeoutError",
    "ToolTimeoutMiddleware",
    "count_tokens_approximately",
]
