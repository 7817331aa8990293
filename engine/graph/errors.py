"""The import path LangGraph programs use for the runtime's errors; they live in
``engine.core.errors``."""

from engine.core.errors import *  # noqa: F403
from engine.core.errors import __all__  # noqa: F401
