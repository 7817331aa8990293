"""The import path LangGraph / LangChain programs use for run-scoped facts a node reads (ExecutionInfo, RunControl); they live in
``engine.core.execution``."""

from engine.core.execution import *  # noqa: F403
from engine.core.execution import __all__  # noqa: F401
