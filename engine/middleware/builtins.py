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
from engine.middleware.file_search import FilesystemFileSearchMiddleware
from engine.middleware.hitl import HumanInTheLoopMiddleware, InterruptOnConfig
from engine.middleware.internal_calls import (
    INTERNAL_CALL_METADATA_KEY,
    InternalCallTransformer,
    internal_call_metadata,
)
from engine.middleware.model_refusal import ModelRefusalMiddleware
from engine.middleware.model_retry import ModelRetryMiddleware
from engine.middleware.pii import (
    PIIDetectionError,
    PIIMatch,
    PIIMiddleware,
    detect_credit_card,
    detect_email,
    detect_ip,
    detect_mac_address,
    detect_url,
)
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
from engine.middleware.summarization_trigger import TriggerClause
from engine.middleware.todo import PlanningState, Todo, TodoListMiddleware
from engine.middleware.tool_emulator import LLMToolEmulator
from engine.middleware.tool_error import ToolErrorMiddleware
from engine.middleware.tool_retry import ToolRetryMiddleware
from engine.middleware.tool_selector import LLMToolSelectorMiddleware
from engine.middleware.tool_timeout import ToolTimeoutError, ToolTimeoutMiddleware

__all__ = [
    "INTERNAL_CALL_METADATA_KEY",
    "ClearToolUsesEdit",
    "CodexSandboxExecutionPolicy",
    "ContextEditingMiddleware",
    "DockerExecutionPolicy",
    "FilesystemFileSearchMiddleware",
    "HostExecutionPolicy",
    "HumanInTheLoopMiddleware",
    "InternalCallTransformer",
    "InterruptOnConfig",
    "LLMToolEmulator",
    "LLMToolSelectorMiddleware",
    "ModelCallLimitExceededError",
    "ModelCallLimitMiddleware",
    "ModelFallbackMiddleware",
    "ModelRefusalMiddleware",
    "ModelRetryMiddleware",
    "PIIDetectionError",
    "PIIMatch",
    "PIIMiddleware",
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
    "ToolErrorMiddleware",
    "ToolRetryMiddleware",
    "ToolTimeoutError",
    "ToolTimeoutMiddleware",
    "TriggerClause",
    "count_tokens_approximately",
    "detect_credit_card",
    "detect_email",
    "detect_ip",
    "detect_mac_address",
    "detect_url",
    "internal_call_metadata",
]
