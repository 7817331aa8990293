"""A run on LangGraph's sync ``stream`` is translated on the stream's own thread, part by part
as it comes, and the thread does not wait for the run's loop (nor wake it for every part and event:
issue 26): the events are the very ones the loop's translation of ``astream`` gives, in the
same order, and the same as with a debugger (which translates on the loop)."""

from __future__ import annotations

import asyncio
import itertools
import threading
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")

from engine.attach import attach
from engine.events import EventBase
from engine.observe.request_log import resolve
from engine.types import Command
from tests.engine.attach.test_attach_langgraph import collect
from tests.engine.attach.test_attach_stream_modes import agent, review_graph, shown


def events_of(make: Any, inputs: list[Any], *, sync: bool) -> list[EventBase]:
    g = attach(make(), sync=sync)
    events: list[EventBase] = []
    for inp in inputs:
        events += collect(g, inp, {"configurable": {"thread_id": "t"}})
    return events


@pytest.mark.parametrize(
    ("make", "inputs"),
    [
        (lambda: agent(middleware=False), [{"messages": [("user", "hi")]}]),
        (lambda: agent(middleware=False, saver=False), [{"messages": [("user", "hi")]}]),
        (review_graph, [{"n": 1}, Command(resume="ok")]),
    ],
    ids=["agent", "agent-without-saver", "interrupt-and-resume"],
)
def test_the_sync_stream_shows_what_astream_shows(make: Any, inputs: list[Any]) -> None:
    on_thread = shown(events_of(make, inputs, sync=True))
    on_loop = shown(events_of(make, inputs, sync=False))
    assert on_thread == on_loop
    assert len(on_thread) > 20


def test_a_sync_run_does_not_wake_its_loop_for_every_superstep_nor_event(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    woken: list[Any] = []
    real = asyncio.BaseEventLoop.call_soon_threadsafe

    def counting(self: Any, callback: Any, *args: Any, **kw: Any) -> Any:
        woken.append(callback)
        return real(self, callback, *args, **kw)

    monkeypatch.setattr(asyncio.BaseEventLoop, "call_soon_threadsafe", counting)
    g = attach(agent(middleware=True))
    assert g.sync  # sync-only middleware
    events: list[EventBase] = []
    g.subscribe(events.append)
    g.invoke({"messages": [("user", "hi")]}, {"configurable": {"thread_id": "t"}})
    supersteps = len([e for e in events if e.kind == "checkpoint.saved"])
    assert supersteps >= 6 and len(events) > 6 * supersteps
    # the stream's thread never waits for the loop: it is woken for the stream's end (and
    # the thread's own end), not once a superstep
    assert len(woken) <= 3
    # a model request still names the earlier request it continues, numbered on delivery
    requests = [e for e in events if e.kind == "model.request"]
    assert len(requests) == 3
    by_seq = {e.seq: e for e in events}
    for earlier, later in itertools.pairwise(requests):
        assert later.messages_base == earlier.seq
        assert later.messages_reused > 0
        full, _ = resolve(later, by_seq.get)
        assert full is not None and len(full) == later.messages_count


def test_with_a_debugger_the_sync_stream_shows_the_same() -> None:
    from engine.debug import Debugger

    def run(debugger: Debugger | None) -> list[str]:
        g = attach(agent(middleware=True))
        events: list[EventBase] = []
        g.subscribe(events.append)
        cfg = {"configurable": {"thread_id": "t"}}
        g.invoke({"messages": [("user", "hi")]}, cfg, debugger=debugger)
        return shown(events)

    assert run(Debugger()) == run(None)


def test_a_sync_run_goes_on_while_the_app_saver_saves_and_shows_the_save_in_order() -> None:
    """The stream's thread does not wait for a checkpoint's save before LangGraph starts the
    next superstep: the save runs alongside it, and its ``checkpoint.saved`` still comes before
    anything of the next superstep (issue 26).  Here the save of the first node's checkpoint
    can only end once the next node has started (an app's own callback sees it start first);
    waiting for that save before going on would hold it until its timeout."""
    from langchain_core.callbacks import BaseCallbackHandler
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    b_started = threading.Event()
    waited: list[bool] = []

    class SeesB(BaseCallbackHandler):
        def on_chain_start(self, serialized: Any, inputs: Any, **kw: Any) -> None:
            if (kw.get("metadata") or {}).get("langgraph_node") == "b":
                b_started.set()

    class SavesOnceBStarts(InMemorySaver):
        def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
            if metadata.get("step") == 1:  # the checkpoint after node a
                waited.append(b_started.wait(timeout=20))
            return super().put(config, checkpoint, metadata, new_versions)

    class S(TypedDict):
        n: int

    graph = (
        StateGraph(S)
        .add_node("a", lambda s: {"n": s["n"] + 1})
        .add_node("b", lambda s: {"n": s["n"] * 10})
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_edge("b", END)
        .compile(checkpointer=SavesOnceBStarts())
    )
    g = attach(graph, sync=True)
    events: list[EventBase] = []
    g.subscribe(events.append)
    out = g.invoke({"n": 1}, {"configurable": {"thread_id": "t"}, "callbacks": [SeesB()]})
    assert out == {"n": 20}
    assert waited == [True]
    kinds = [(e.kind, getattr(e, "node", None), e.step) for e in events]
    saved_after_a = kinds.index(("checkpoint.saved", None, 1))
    b_start = kinds.index(("node.started", "b", 2))
    assert saved_after_a < b_start
    assert [e.seq for e in events] == sorted(e.seq for e in events)
