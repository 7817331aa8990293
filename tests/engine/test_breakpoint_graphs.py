"""A breakpoint set in one graph stops there only: the root graph's ``work`` node and the
``work`` node of the subgraph the node ``inner`` runs are two nodes (``Breakpoint.graph``);
a breakpoint without a graph stops at a node of that name in any graph."""

from __future__ import annotations

import asyncio

from engine.debug import Breakpoint, Debugger
from engine.debug.breakpoints import graph_path
from engine.events import NodeStarted, ToolStarted
from tests.fixtures.two_work_nodes import two_work_nodes


async def _pauses(dbg: Debugger) -> list[tuple[str, tuple[str, ...]]]:
    """Run the graph to its end, continuing at every pause: (node, graph path) of each."""
    pauses: list[tuple[str, tuple[str, ...]]] = []

    def on_pause(d: Debugger) -> None:
        ev = d.current_event
        assert ev is not None
        pauses.append((str(ev.__dict__.get("node")), graph_path(ev.ns)))
        asyncio.get_running_loop().call_soon(d.continue_)

    dbg.on_pause.append(on_pause)
    config = {"configurable": {"thread_id": "t"}}
    async for _ev in two_work_nodes().astream_events(
        {"log": []}, config, debugger=dbg, version="stepwise"
    ):
        pass
    return pauses


def test_a_breakpoint_in_the_root_graph_does_not_stop_in_a_subgraph() -> None:
    dbg = Debugger()
    dbg.break_before("work", graph=())
    assert asyncio.run(_pauses(dbg)) == [("work", ())]


def test_a_breakpoint_in_a_subgraph_stops_there_only() -> None:
    dbg = Debugger()
    bp = dbg.break_before("work", graph=("inner",))
    assert asyncio.run(_pauses(dbg)) == [("work", ("inner",))]
    assert bp.describe() == "before node work (in inner)"


def test_a_breakpoint_without_a_graph_stops_in_every_graph() -> None:
    dbg = Debugger()
    bp = dbg.break_before("work")
    assert asyncio.run(_pauses(dbg)) == [("work", ("inner",)), ("work", ())]
    assert bp.describe() == "before node work"


def test_graph_paths_and_tool_breakpoints() -> None:
    assert graph_path("") == ()
    assert graph_path("outer:1f0a|inner:2b3c") == ("outer", "inner")
    started = ToolStarted(run_id="r", tool="search", ns="research:abc", tool_call_id="c1")
    assert Breakpoint("tool", "search", graph=("research",)).matches(started, lambda: None)
    assert not Breakpoint("tool", "search", graph=()).matches(started, lambda: None)
    assert Breakpoint("tool", "search").matches(started, lambda: None)
    node = NodeStarted(run_id="r", node="tools", task_id="t1", ns="")
    assert Breakpoint("before_node", "tools", graph=()).matches(node, lambda: None)
    assert not Breakpoint("before_node", "tools", graph=("a",)).matches(node, lambda: None)


def test_run_to_stops_once_and_is_gone() -> None:
    dbg = Debugger()
    bp = dbg.run_to("work", graph=())
    assert bp.describe() == "run to node work"
    assert asyncio.run(_pauses(dbg)) == [("work", ())]
    assert dbg.breakpoints == [] and bp.hits == 1
    dbg.run_to("work")  # any graph: the first work node it meets, the subgraph's
    assert asyncio.run(_pauses(dbg)) == [("work", ("inner",))]
