"""One config per input of a ``batch`` / ``abatch``: the one given for all, or one each."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["per_input"]


def per_input(
    inputs: Sequence[Any], config: dict[str, Any] | Sequence[dict[str, Any]] | None
) -> list[dict[str, Any]]:
    """The config of each input; a clear error when a list of configs does not match."""
    if isinstance(config, list | tuple):
        configs = list(config)
        if len(configs) != len(inputs):
            raise ValueError("batch: give one config, or exactly one per input")
        return configs
    one: dict[str, Any] = config if isinstance(config, dict) else {}
    return [one] * len(inputs)
