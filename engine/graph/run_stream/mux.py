"""``StreamMux``: the transformers of one scope, their projections and the main event log."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.graph.run_stream.channel import PullSource, StreamChannel
from engine.graph.run_stream.protocol import ProtocolEvent, StreamTransformer

__all__ = ["StreamMux", "TransformerFactory", "ordered_factories"]

TransformerFactory = Callable[[tuple[str, ...]], StreamTransformer]
"""A transformer class, or any callable ``factory(scope) -> StreamTransformer``."""


def ordered_factories(
    builtins: Sequence[TransformerFactory], extra: Sequence[TransformerFactory]
) -> list[TransformerFactory]:
    """``before_builtins`` transformers first, then the built-ins, then the rest in the order
    given; a factory given twice (the same object) is registered once."""
    early = [f for f in extra if getattr(f, "before_builtins", False)]
    late = [f for f in extra if not getattr(f, "before_builtins", False)]
    out: list[TransformerFactory] = []
    for f in [*early, *builtins, *late]:
        if not any(f is g for g in out):
            out.append(f)
    return out


class StreamMux:
    """Hands each event to the transformers in order; an event every transformer kept goes
    to ``events`` (the main log). ``make_child(scope)`` builds the mux of a nested run."""

    def __init__(
        self,
        factories: Sequence[TransformerFactory],
        scope: tuple[str, ...] = (),
        source: PullSource | None = None,
    ) -> None:
        self.scope = scope
        self.source = source or PullSource()
        self.factories = list(factories)
        self.events: StreamChannel[ProtocolEvent] = StreamChannel(self.source)
        self.extensions: dict[str, Any] = {}
        self._transformers: list[StreamTransformer] = []
        self._ended = False
        for factory in self.factories:
            self.register(factory(scope))

    @property
    def transformers(self) -> list[StreamTransformer]:
        return list(self._transformers)

    def register(self, transformer: StreamTransformer) -> None:
        transformer._stream_mux = self  # type: ignore[attr-defined]
        for name, projection in transformer.init().items():
            if isinstance(projection, StreamChannel) and projection._source is None:
                projection._source = self.source
            self.extensions[name] = projection
        self._transformers.append(transformer)
        transformer._on_register(self)

    def required_modes(self) -> set[str]:
        return {m for t in self._transformers for m in t.required_stream_modes}

    def make_child(self, scope: tuple[str, ...]) -> StreamMux:
        return StreamMux(self.factories, scope, self.source)

    def process(self, event: ProtocolEvent) -> None:
        for t in self._transformers:
            if not t.process(event):
                return
        self.events.push(event)

    async def aprocess(self, event: ProtocolEvent) -> None:
        for t in self._transformers:
            if not await t.aprocess(event):
                return
        self.events.push(event)

    def _channels(self) -> list[StreamChannel[Any]]:
        chans = [v for v in self.extensions.values() if isinstance(v, StreamChannel)]
        return [*chans, self.events]

    def finalize(self) -> None:
        if self._ended:
            return
        self._ended = True
        for t in self._transformers:
            t.finalize()
        for ch in self._channels():
            ch.close()

    async def afinalize(self) -> None:
        if self._ended:
            return
        self._ended = True
        for t in self._transformers:
            await t.afinalize()
        for ch in self._channels():
            ch.close()

    def fail(self, err: BaseException) -> None:
        if self._ended:
            return
        self._ended = True
        for t in self._transformers:
            t.fail(err)
        for ch in self._channels():
            ch.fail(err)

    async def afail(self, err: BaseException) -> None:
        if self._ended:
            return
        self._ended = True
        for t in self._transformers:
            await t.afail(err)
        for ch in self._channels():
            ch.fail(err)
