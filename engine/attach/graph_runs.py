"""How an attached graph runs (``AttachedRuns``, a part of ``AttachedGraph``): LangGraph's
``invoke`` / ``stream`` / ``batch`` / ``astream_events`` and their async forms, each a run
through Stepwise (``engine.attach.run``), or the app's own when it is nested in a LangGraph
run with no debugger of its own."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any, cast

from engine.attach.output_keys import OutputKeys
from engine.attach.run_options import (
    options_taken,
    real_stream_options,
    with_context,
    with_durability,
)
from engine.attach.run_output import speaks_v2, v2_output, v2_output_class, v2_parts
from engine.core.aio import iter_sync, run_sync
from engine.core.batch import per_input
from engine.graph.stream_parts import output_from_stream, values_stream_modes
from engine.observe.bus import EventBus, stream_run

if TYPE_CHECKING:
    from engine.attach.echo import Echo
    from engine.attach.factory import GraphFactory
    from engine.attach.graph import AttachedGraph
    from engine.observe.gate import Gate

__all__ = ["AttachedRuns"]


async def _at_root(parts: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """A root graph's ``(mode, data)`` parts as ``(namespace, mode, data)``."""
    async for mode, data in parts:
        yield (), mode, data


class AttachedRuns:
    """``AttachedGraph``'s run API (see the module docstring)."""

    real: Any
    factory: GraphFactory | None
    _made_for_run: Callable[[Any], Any]

    async def _arun(
        self,
        input: Any,
        config: dict[str, Any] | None,
        debugger: Gate | None,
        extra: list[EventBus],
        context: Any = None,
        echo: Echo | None = None,
        options: dict[str, Any] | None = None,
        *,
        asynchronous: bool = False,
    ) -> Any:
        """``asynchronous``: the app's own code called the async API (``ainvoke``,
        ``astream``...): the run goes on LangGraph's ``astream``, so the app's async model,
        tool and node methods are the ones called, as on LangGraph, unless the graph can only
        run sync.  Otherwise Stepwise picks (``AttachedRun.sync``)."""
        from engine.attach.run import AttachedRun

        config = with_durability(config, (options or {}).pop("durability", None))
        kw = {"echo": echo, "options": options, "asynchronous": asynchronous}
        if self.factory is None:
            graph = cast("AttachedGraph", self)
            return await AttachedRun(graph, input, config, debugger, extra, context, **kw).run()
        configurable = dict((config or {}).get("configurable") or {})
        async with self.factory.open(
            "threads.create_run",
            configurable=configurable,
            context=context,
            store=getattr(self.real, "store", None),
        ) as made:
            run = self._made_for_run(made)
            return await AttachedRun(run, input, config, debugger, extra, context, **kw).run()

    def _nested(self, config: dict[str, Any] | None, debugger: Gate | None) -> bool:
        """Is the graph called inside a node of a LangGraph run, with no debugger of its own?
        LangGraph then runs it as that run's nested graph (its checkpoints under the node's
        namespace, its interrupts the enclosing run's): so does the attached graph, and an
        attached enclosing run shows it in its place, as any graph a node calls."""
        from engine.attach.tapped import inside_a_run

        return debugger is None and inside_a_run(config)

    async def _invoked(
        self,
        input: Any,
        config: dict[str, Any] | None,
        debugger: Gate | None,
        context: Any,
        options: dict[str, Any],
        asynchronous: bool,
    ) -> Any:
        """What LangGraph's ``invoke`` returns: the output, or with a ``stream_mode`` other
        than ``values`` the list of what that stream gives (``version="v2"``: a
        ``GraphOutput``, or the list of v2 parts)."""
        mode = options.pop("stream_mode", None)
        version = options.pop("version", None)
        subgraphs = bool(options.pop("subgraphs", False))
        if mode is not None and mode != "values":
            parts = self._astream(
                input, config, mode, subgraphs, debugger, context, options, asynchronous, version
            )
            return [part async for part in parts]
        if subgraphs or options.get("output_keys") is not None:
            # LangGraph reads the output from the stream (of every graph with ``subgraphs``;
            # ``output_keys`` shape the root graph's, ``engine.attach.output_keys``)
            v2 = speaks_v2(version)
            modes = values_stream_modes("v2" if v2 else "v1")
            parts = self._astream(
                input, config, modes, subgraphs, debugger, context, options, asynchronous, version
            )
            if not subgraphs and not v2:
                parts = _at_root(parts)
            return await output_from_stream(parts, "v2" if v2 else "v1", v2_output_class())
        opts = options_taken(options)
        output = await self._arun(
            input, config, debugger, [], context, None, opts, asynchronous=asynchronous
        )
        return v2_output(self.real, output) if speaks_v2(version) else output

    async def ainvoke(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        debugger: Gate | None = None,
        context: Any = None,
        **options: Any,
    ) -> Any:
        """Run through Stepwise and return the output, as LangGraph's ``ainvoke``;
        ``options``: LangGraph's ``stream_mode``, ``version``, ``output_keys``,
        ``durability``, ``interrupt_before``, ``interrupt_after``, ``control``.  Called inside
        another graph's node, the app's graph runs as LangGraph runs it there (``_nested``)."""
        if self._nested(config, debugger):
            return await self.real.ainvoke(input, config, **with_context(options, context))
        return await self._invoked(input, config, debugger, context, options, True)

    def invoke(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        debugger: Gate | None = None,
        context: Any = None,
        **options: Any,
    ) -> Any:
        if self._nested(config, debugger):
            return self.real.invoke(input, config, **with_context(options, context))
        return run_sync(self._invoked(input, config, debugger, context, options, False))

    def _astream(
        self,
        input: Any,
        config: dict[str, Any] | None,
        stream_mode: str | list[str] | None,
        subgraphs: bool,
        debugger: Gate | None,
        context: Any,
        options: dict[str, Any],
        asynchronous: bool,
        version: str | None,
    ) -> AsyncIterator[Any]:
        from engine.attach.echo import echoed

        modes = stream_mode or getattr(self.real, "stream_mode", None) or "values"
        keys = options.pop("output_keys", None)
        opts = options_taken(options)
        return echoed(
            modes,
            subgraphs,
            lambda echo: self._arun(
                input, config, debugger, [], context, echo, opts, asynchronous=asynchronous
            ),
            v2_parts(self.real) if speaks_v2(version) else None,
            None if keys is None else OutputKeys(keys, input),
        )

    def astream(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        stream_mode: str | list[str] | None = None,
        subgraphs: bool = False,
        debugger: Gate | None = None,
        context: Any = None,
        version: str | None = None,
        **options: Any,
    ) -> AsyncIterator[Any]:
        """Run through Stepwise (every event to the subscribers and the debugger) and yield
        what LangGraph's ``astream`` yields for ``stream_mode``, ``subgraphs`` and
        ``version``."""
        if self._nested(config, debugger):
            kw = real_stream_options(options, stream_mode, subgraphs, context, version)
            return self.real.astream(input, config, **kw)  # type: ignore[no-any-return]
        return self._astream(
            input, config, stream_mode, subgraphs, debugger, context, options, True, version
        )

    def stream(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        stream_mode: str | list[str] | None = None,
        subgraphs: bool = False,
        debugger: Gate | None = None,
        context: Any = None,
        version: str | None = None,
        **options: Any,
    ) -> Iterator[Any]:
        """``astream`` from synchronous code (the app's sync methods are called, as by
        LangGraph's ``stream``)."""
        if self._nested(config, debugger):
            kw = real_stream_options(options, stream_mode, subgraphs, context, version)
            return self.real.stream(input, config, **kw)  # type: ignore[no-any-return]
        return iter_sync(
            self._astream(
                input, config, stream_mode, subgraphs, debugger, context, options, False, version
            )
        )

    async def abatch(
        self,
        inputs: list[Any],
        config: dict[str, Any] | list[dict[str, Any]] | None = None,
        *,
        return_exceptions: bool = False,
        **kw: Any,
    ) -> list[Any]:
        """Each input run attached, at once (LangGraph's ``abatch``): one config for all, or
        one each."""
        runs = [
            self.ainvoke(i, c, **kw) for i, c in zip(inputs, per_input(inputs, config), strict=True)
        ]
        return list(await asyncio.gather(*runs, return_exceptions=return_exceptions))

    def batch(
        self,
        inputs: list[Any],
        config: dict[str, Any] | list[dict[str, Any]] | None = None,
        **kw: Any,
    ) -> list[Any]:
        return run_sync(self.abatch(inputs, config, **kw))

    def astream_events(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        version: str = "v2",
        debugger: Gate | None = None,
        context: Any = None,
        **kw: Any,
    ) -> Any:
        """``version="stepwise"``: every event of the run (ours, translated from LangGraph's).
        ``"v2"`` (the default): LangChain's event stream, as LangGraph's own
        ``astream_events`` gives it, with the run going through Stepwise
        (``engine.attach.as_runnable``).  Other versions (LangChain's deprecated ``"v1"``,
        LangGraph's experimental ``"v3"``) are the real graph's own, which Stepwise does not
        see."""
        if version == "stepwise":
            return stream_run(lambda bus: self._arun(input, config, debugger, [bus], context))
        if version == "v2":
            from engine.attach.as_runnable import Attached

            options: dict[str, Any] = {"debugger": debugger, "context": context}
            return Attached(cast("AttachedGraph", self), options).events(input, config, **kw)
        if debugger is not None:
            raise ValueError(f"a debugger cannot follow astream_events(version={version!r})")
        if context is not None:
            kw["context"] = context
        return self.real.astream_events(input, config, version=version, **kw)

    def stream_events(self, input: Any, config: dict[str, Any] | None = None, **kw: Any) -> Any:
        if kw.get("version") != "stepwise":  # LangGraph's own (only its "v3" streams)
            return self.real.stream_events(input, config, **kw)
        return iter_sync(self.astream_events(input, config, **kw))
