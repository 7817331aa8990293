"""The import path LangGraph / LangChain programs use for LangChain-style callback handlers and tracers; they live in
``engine.observe.callbacks``."""

from engine.observe.callbacks import *  # noqa: F403
from engine.observe.callbacks import __all__  # noqa: F401
