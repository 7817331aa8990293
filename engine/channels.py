"""``langgraph.channels``' names, where a ported program imports them: the channel types a
low-level ``Pregel`` graph (or an ``Annotated`` state key) is built from
(``engine.graph.channels`` and its deferred and delta kinds)."""

from engine.graph.channels import (
    BaseChannel,
    BinaryOperatorAggregate,
    EphemeralValue,
    LastValue,
    NamedBarrierValue,
    Topic,
    UntrackedValue,
)
from engine.graph.channels_defer import LastValueAfterFinish
from engine.graph.channels_delta import DeltaChannel

__all__ = [
    "BaseChannel",
    "BinaryOperatorAggregate",
    "DeltaChannel",
    "EphemeralValue",
    "LastValue",
    "LastValueAfterFinish",
    "NamedBarrierValue",
    "Topic",
    "UntrackedValue",
]
