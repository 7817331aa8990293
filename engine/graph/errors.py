"""The import path LangGraph programs use for the runtime's errors; they live in
``engine.errors``."""

from engine.errors import *  # noqa: F403
from engine.errors import __all__  # noqa: F401
