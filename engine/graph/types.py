"""The import path LangGraph / LangChain programs use for the graph's value types (Send, Command, Interrupt, StateSnapshot...); they live in
``engine.types`` (the ``version="v2"`` output types in ``engine.stream_types``)."""

from engine.stream_types import *  # noqa: F403
from engine.stream_types import __all__ as _stream_types
from engine.types import *  # noqa: F403
from engine.types import __all__ as _types

__all__ = [*_types, *_stream_types]  # pyright: ignore[reportUnsupportedDunderAll]
