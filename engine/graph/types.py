"""The import path LangGraph / LangChain programs use for the graph's value types (Send, Command, Interrupt, StateSnapshot...); they live in
``engine.types``."""

from engine.types import *  # noqa: F403
from engine.types import __all__  # noqa: F401
