"""``langgraph.constants``'s public names, where a ported program imports them: ``START`` and
``END``, the tags that hide a runnable from ``astream_events`` (``TAG_HIDDEN``) or keep a model's
tokens out of the messages stream (``TAG_NOSTREAM``), and ``CONF``, the config key of the
configurable values.  ``Send`` and ``Interrupt`` still resolve here, with a deprecation
warning, as they moved to ``engine.types``."""

from __future__ import annotations

import warnings
from typing import Any

from engine.graph import END, START

__all__ = ["CONF", "END", "START", "TAG_HIDDEN", "TAG_NOSTREAM"]

TAG_HIDDEN = "langsmith:hidden"
TAG_NOSTREAM = "nostream"
CONF = "configurable"


def __getattr__(name: str) -> Any:
    if name in ("Send", "Interrupt"):
        warnings.warn(
            f"{name} is imported from engine.types now; importing it from engine.constants is "
            "deprecated",
            DeprecationWarning,
            stacklevel=2,
        )
        import engine.types

        return getattr(engine.types, name)
    raise AttributeError(f"module 'engine.constants' has no attribute {name!r}")
