"""Protocol events and the ``StreamTransformer`` extension point of ``stream_events(version="v3")``."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NotRequired, TypedDict

if TYPE_CHECKING:
    from engine.graph.run_stream.channel import PullSource
    from engine.graph.run_stream.mux import StreamMux

__all__ = ["EventParams", "ProtocolEvent", "StreamTransformer", "make_event", "message_part"]


class EventParams(TypedDict):
    namespace: list[str]
    timestamp: int
    """Wall-clock milliseconds; ``ProtocolEvent.seq`` is the order."""
    data: Any


class ProtocolEvent(TypedDict):
    """One stream part (``values``, ``updates``, ``messages``, ``tools``, ``custom``...) in a
    uniform envelope: ``method`` is the stream mode, ``params.data`` the part."""

    type: Literal["event"]
    seq: NotRequired[int]
    method: str
    params: EventParams


def make_event(seq: int, method: str, namespace: tuple[str, ...], data: Any) -> ProtocolEvent:
    return {
        "type": "event",
        "seq": seq,
        "method": method,
        "params": {
            "namespace": list(namespace),
            "timestamp": int(time.time() * 1000),
            "data": data,
        },
    }


def message_part(event: ProtocolEvent, scope: tuple[str, ...]) -> tuple[Any, Any] | None:
    """``(message or chunk, metadata)`` of a ``messages`` event of the graph at ``scope``;
    None for any other event (another mode, another graph, a malformed part)."""
    params = event["params"]
    if event["method"] != "messages" or tuple(params["namespace"]) != scope:
        return None
    data = params["data"]
    if not (isinstance(data, tuple | list) and len(data) == 2):
        return None
    return data[0], data[1]


class StreamTransformer(ABC):
    """Observes every protocol event of a run and builds projections from them.

    ``init()`` returns the projections (name -> ``StreamChannel`` or any object); they become
    ``run.extensions[name]`` and ``run.<name>``. ``process(event)`` may rewrite the event in
    place; returning False drops it: the transformers registered after this one and the main
    event log do not see it. ``finalize()`` / ``fail(error)`` run when the run ends;
    the channels a transformer returned from ``init`` are closed / failed for it.

    ``scope`` is the namespace the transformer's mux watches (``()`` at the root).
    ``required_stream_modes`` are the stream modes the run must produce for it;
    ``before_builtins = True`` registers it ahead of the built-in transformers (e.g. to drop
    or rewrite events before the messages projection sees them).
    """

    required_stream_modes: ClassVar[tuple[str, ...]] = ()
    before_builtins: ClassVar[bool] = False

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        self.scope: tuple[str, ...] = scope

    @abstractmethod
    def init(self) -> dict[str, Any]: ...

    def process(self, event: ProtocolEvent) -> bool:
        raise NotImplementedError(f"{type(self).__name__} must override process() or aprocess()")

    async def aprocess(self, event: ProtocolEvent) -> bool:
        return self.process(event)

    def finalize(self) -> None:  # noqa: B027 - an optional hook: by default nothing to do
        """The run ended normally."""

    async def afinalize(self) -> None:
        self.finalize()

    def fail(self, err: BaseException) -> None:  # noqa: B027 - an optional hook
        """The run ended with ``err``."""

    async def afail(self, err: BaseException) -> None:
        self.fail(err)

    def _on_register(self, mux: StreamMux) -> None:  # noqa: B027 - an optional hook
        """Called once the mux has wired this transformer in."""

    @property
    def pull_source(self) -> PullSource | None:
        """What a channel this transformer creates later pulls the run with."""
        mux: StreamMux | None = getattr(self, "_stream_mux", None)
        return None if mux is None else mux.source
