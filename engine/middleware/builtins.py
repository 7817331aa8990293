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
from engine.middleware.provider_tool_search import ProviderToolSearchMiddleware
from engine.middleware.redaction import RedactionRule
from engine.middleware.shell_execution import (
    CodexSandboxExecutionPolicy,
    DockerExecutionPolicy,
    HostExecutionPolicy,
)
from engine.middleware.shell_session import ShellSession
from engine.middleware.shell_tool import ShellToolMiddleware, ShellToolState
from engine.middleware.summarization import SummarizationMiddleware
from engine.middleware.todo import PlanningState, Todo, TodoListMiddleware
from engine.middleware.tool_retry import ToolRetryMiddleware
from engine.middleware.tool_selector import LLMToolSelectorMiddleware

__all__ = [
    "ClearToolUsesEdit",
    "CodexSandboxExecutionPolicy",
    "ContextEditingMiddleware",
    "DockerExecutionPolicy",
    "HostExecutionPolicy",
    "HumanInTheLoopMiddleware",
    "InterruptOnConfig",
    "LLMToolSelectorMiddleware",
    "ModelCallLimitExceededError",
    "ModelCallLimitMiddleware",
    "ModelFallbackMiddleware",
    "ModelRetryMiddleware",
    "PlanningState",
    "PromptCachingMiddleware",
    "ProviderToolSearchMiddleware",
    "RedactionRule",
    "ShellSession",
    "ShellToolMiddleware",
    "ShellToolState",
    "SummarizationMiddleware",
    "Todo",
    "TodoListMiddleware",
    "ToolCallLimitExceededError",
    "ToolCallLimitMiddleware",
    "ToolRetryMiddleware",
    "count_tokens_approximately",
]
