"""Tokens used by model calls, summed per span, node, run and overall (plain Python, no Qt).

``UsageLedger.add(ev)`` reads events in order.  Every span opener is remembered with its parent,
so a ``model.response`` adds its usage to its own call and to every span above it (attempt,
wrapper, node, superstep, run): ``span(id)`` is then the sum below a span, ``node(path, name)``
the sum over every visit of a node (the calls of a subgraph it runs included), ``run(id)`` and
``total()`` the rest.  Each sum keeps its tokens per model (the names a price is looked up by:
the model the provider named first, then the one asked for), so pricing can change afterwards
(``studio.models.pricing``).  Adding one response costs the depth of its span.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.events import SPAN_OPENERS, EventBase, ModelResponse, NodeStarted
from engine.usage import TokenUsage
from studio.models.ns import ns_path

__all__ = ["ModelKey", "ModelUse", "UsageLedger", "UsageSum"]

ModelKey = tuple[str, ...]
"""A call's model names, the one to price by first: (reported by the provider, asked for)."""


@dataclass
class ModelUse:
    """The calls of one model in a sum."""

    tokens: TokenUsage = field(default_factory=TokenUsage)
    calls: int = 0
    largest_input: int = 0
    """The longest prompt of one call (a price may hold only up to a prompt size)."""


@dataclass
class UsageSum:
    by_model: dict[ModelKey, ModelUse] = field(default_factory=dict)
    calls: int = 0
    unreported: int = 0
    """Answered calls whose model reported no usage (their tokens are unknown)."""
    failed: int = 0
    """Calls that failed without an answer (and without usage): a provider error, a timeout."""

    def add(self, key: ModelKey, usage: TokenUsage | None, failed: bool = False) -> None:
        self.calls += 1
        if usage is None:
            if failed:
                self.failed += 1
            else:
                self.unreported += 1
            return
        use = self.by_model.get(key)
        if use is None:
            use = self.by_model[key] = ModelUse()
        use.tokens = use.tokens + usage
        use.calls += 1
        use.largest_input = max(use.largest_input, usage.input)

    def merged(self, other: UsageSum | None) -> UsageSum:
        """A new sum of this one's calls and ``other``'s."""
        out = UsageSum()
        for part in (self, other) if other is not None else (self,):
            out.calls += part.calls
            out.unreported += part.unreported
            out.failed += part.failed
            for key, use in part.by_model.items():
                mine = out.by_model.setdefault(key, ModelUse())
                mine.tokens = mine.tokens + use.tokens
                mine.calls += use.calls
                mine.largest_input = max(mine.largest_input, use.largest_input)
        return out

    @property
    def tokens(self) -> TokenUsage:
        total = TokenUsage()
        for use in self.by_model.values():
            total = total + use.tokens
        return total


@dataclass
class _Span:
    parent: str | None
    node: tuple[tuple[str, ...], str] | None = None
    """(subgraph path, node name) when the span is a node task."""


class UsageLedger:
    """Sums of model usage over a stream of events (see the module docstring)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._spans: dict[str, _Span] = {}
        self._by_span: dict[str, UsageSum] = {}
        self._by_node: dict[tuple[tuple[str, ...], str], UsageSum] = {}
        self._by_run: dict[str, UsageSum] = {}
        self._total = UsageSum()
        self.last_run: str | None = None

    def add_all(self, events: Iterable[EventBase]) -> list[str]:
        """Read ``events``; returns the spans whose sums changed."""
        changed: list[str] = []
        for ev in events:
            changed.extend(self.add(ev))
        return changed

    def add(self, ev: EventBase) -> list[str]:
        kind = ev.kind
        if kind == "run.started" and not ev.ns:
            self.last_run = ev.run_id
        if kind in SPAN_OPENERS and ev.span_id:
            node = (ns_path(ev.ns), str(ev.node or "")) if isinstance(ev, NodeStarted) else None
            self.note_span(ev.span_id, ev.parent_span_id, node)
            return []
        if not isinstance(ev, ModelResponse):
            return []
        usage = TokenUsage.of(ev.usage)
        failed = ev.error is not None
        key = _key(ev.model_name, ev.model)
        self._total.add(key, usage, failed)
        self._by_run.setdefault(ev.run_id, UsageSum()).add(key, usage, failed)
        changed: list[str] = []
        nodes: set[tuple[tuple[str, ...], str]] = set()
        sid = ev.span_id
        seen = 0
        while sid is not None and seen < 256:
            self._by_span.setdefault(sid, UsageSum()).add(key, usage, failed)
            changed.append(sid)
            span = self._spans.get(sid)
            if span is None:
                break
            if span.node is not None and span.node not in nodes:
                nodes.add(span.node)
                self._by_node.setdefault(span.node, UsageSum()).add(key, usage, failed)
            sid = span.parent
            seen += 1
        return changed

    def note_span(
        self, span_id: str, parent: str | None, node: tuple[tuple[str, ...], str] | None = None
    ) -> None:
        """A span opened under ``parent`` (a node task's: ``node`` is its (subgraph path, node
        name)); what a span opener tells the ledger, read from its event or a session's
        outline (``engine.recording.outline``)."""
        self._spans[span_id] = _Span(parent, node)

    # -- reading ---------------------------------------------------------------------------------

    def span(self, span_id: str | None) -> UsageSum | None:
        return self._by_span.get(span_id) if span_id else None

    def node(self, name: str, path: tuple[str, ...] = ()) -> UsageSum | None:
        return self._by_node.get((path, name))

    def node_of(self, span_id: str) -> tuple[tuple[str, ...], str] | None:
        """(subgraph path, node name) when ``span_id`` is a node task's span."""
        span = self._spans.get(span_id)
        return span.node if span is not None else None

    def run(self, run_id: str | None) -> UsageSum | None:
        return self._by_run.get(run_id) if run_id else None

    def total(self) -> UsageSum:
        return self._total


def _key(reported: object, asked: object) -> ModelKey:
    names = [n for n in (reported, asked) if isinstance(n, str) and n]
    return tuple(dict.fromkeys(names)) or ("",)
