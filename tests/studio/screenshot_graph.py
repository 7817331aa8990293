"""Render the Graph dock mid-run to PNGs for a visual check (not collected by pytest).

    xvfb-run -a .venv/bin/python -m tests.studio.screenshot_graph [OUT_DIR]

Without Xvfb it falls back to the offscreen platform.  Writes, for both themes, the demo agent
(model lit with a retry badge, tool calls in flight, a breakpoint), the 12-middleware agent (a
failed hook, an interrupted hook, the route just taken), the plain and the cycle graphs, and
SVG/PNG exports of the 12-middleware graph.
"""

from __future__ import annotations

import os
import sys
from itertools import count
from pathlib import Path
from typing import Any

if not os.environ.get("DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

from engine.events import (
    AttemptFinished,
    AttemptStarted,
    ErrorInfo,
    EventBase,
    NodeFinished,
    NodeStarted,
    Route,
    ToolStarted,
)
from studio.docks.graph.view import GraphView
from studio.models.graph_state import GraphStateModel
from tests.studio.graph_samples import cycle_graph, demo_graph, plain_graph, twelve_middleware_graph

_seq = count(1)


def ev(cls: type[EventBase], **fields: Any) -> EventBase:
    return cls(run_id="shot", seq=next(_seq), **fields)


def demo_mid_run(state: GraphStateModel) -> None:
    state.apply_all(
        [
            ev(NodeStarted, node="model", task_id="m1"),
            ev(NodeFinished, node="model", task_id="m1"),
            ev(Route, from_node="model", to=["tools"]),
            ev(NodeStarted, node="tools", task_id="t1"),
            ev(ToolStarted, tool="search", tool_call_id="c1"),
            ev(ToolStarted, tool="calculator", tool_call_id="c2"),
            ev(ToolStarted, tool="write_todos", tool_call_id="c3"),
            ev(
                AttemptStarted,
                middleware="ToolRetryMiddleware",
                attempt=2,
                max_attempts=3,
                tool="search",
                tool_call_id="c1",
            ),
            ev(NodeFinished, node="tools", task_id="t1"),
            ev(Route, from_node="tools", to=["model"]),
            ev(NodeStarted, node="model", task_id="m2"),
            ev(AttemptStarted, middleware="ModelRetryMiddleware", attempt=1, max_attempts=3),
            ev(
                AttemptFinished,
                middleware="ModelRetryMiddleware",
                attempt=1,
                max_attempts=3,
                outcome="error",
                error=ErrorInfo(type="TimeoutError", message="model timed out"),
                will_retry=True,
                delay_s=1.0,
            ),
        ]
    )
    # tool calls in flight on `tools` too (as in a parallel step), for the picture
    state.apply_all(
        [
            ev(NodeStarted, node="tools", task_id="t2"),
            ev(ToolStarted, tool="search", tool_call_id="c4"),
            ev(ToolStarted, tool="calculator", tool_call_id="c5"),
            ev(
                AttemptStarted,
                middleware="ToolRetryMiddleware",
                attempt=2,
                max_attempts=3,
                tool="search",
                tool_call_id="c4",
            ),
            ev(
                NodeFinished,
                node="tools",
                task_id="t2",
                status="error",
                error=ErrorInfo(type="ValueError", message="bad"),
            ),
            ev(Route, from_node="tools", to=["model"]),
        ]
    )
    state.set_breakpoint("tools", True)


def demo_parallel_tools(state: GraphStateModel) -> None:
    state.apply_all(
        [
            ev(NodeStarted, node="model", task_id="m1"),
            ev(NodeFinished, node="model", task_id="m1"),
            ev(Route, from_node="model", to=["tools"], reason="tool_calls"),
            ev(NodeStarted, node="tools", task_id="t1"),
            ev(ToolStarted, tool="search", tool_call_id="c1"),
            ev(ToolStarted, tool="calculator", tool_call_id="c2"),
            ev(ToolStarted, tool="write_todos", tool_call_id="c3"),
            ev(
                AttemptStarted,
                middleware="ToolRetryMiddleware",
                attempt=1,
                max_attempts=3,
                tool_call_id="c1",
            ),
            ev(
                AttemptFinished,
                middleware="ToolRetryMiddleware",
                attempt=1,
                max_attempts=3,
                outcome="error",
                error=ErrorInfo(type="ConnectionError", message="reset"),
                will_retry=True,
                delay_s=0.5,
                tool="search",
                tool_call_id="c1",
            ),
            ev(
                AttemptStarted,
                middleware="ToolRetryMiddleware",
                attempt=2,
                max_attempts=3,
                tool_call_id="c1",
            ),
        ]
    )


def plain_mid_run(state: GraphStateModel) -> None:
    for i, (node, nxt) in enumerate([("a", "b"), ("b", "c")]):
        state.apply(ev(NodeStarted, node=node, task_id=f"p{i}"))
        state.apply(ev(NodeFinished, node=node, task_id=f"p{i}"))
        state.apply(ev(Route, from_node=node, to=[nxt]))
    state.apply(ev(NodeStarted, node="c", task_id="p3"))


def cycle_scrubbed(state: GraphStateModel) -> None:
    for i, node in enumerate(["plan", "write", "critique", "write", "critique"]):
        state.apply(ev(NodeStarted, node=node, task_id=f"c{i}"))
        state.apply(ev(NodeFinished, node=node, task_id=f"c{i}"))
    state.show_moment(["polish"], interrupts=["critique"])


def twelve_mid_run(state: GraphStateModel) -> None:
    chain = [
        "AuditMiddleware.before_agent",
        "SummarizationMiddleware.before_model",
        "ModelCallLimitMiddleware.before_model",
        "PIIMiddleware.before_model",
        "model",
        "HumanInTheLoopMiddleware.after_model",
        "TodoListMiddleware.after_model",
    ]
    for i, node in enumerate(chain):
        state.apply(ev(NodeStarted, node=node, task_id=f"k{i}"))
        if node != "TodoListMiddleware.after_model":
            state.apply(ev(NodeFinished, node=node, task_id=f"k{i}"))
        if i + 1 < len(chain):
            state.apply(ev(Route, from_node=node, to=[chain[i + 1]]))
    state.apply(
        ev(
            AttemptFinished,
            middleware="ModelFallbackMiddleware",
            attempt=1,
            max_attempts=2,
            outcome="error",
            error=ErrorInfo(type="RateLimitError", message="429"),
            will_retry=True,
            fallback_model="small-model",
        )
    )
    state.apply(ev(NodeStarted, node="PIIMiddleware.after_model", task_id="x"))
    state.apply(
        ev(NodeFinished, node="PIIMiddleware.after_model", task_id="x", status="interrupted")
    )
    state.apply(ev(NodeStarted, node="ToolCallLimitMiddleware.after_model", task_id="y"))
    state.apply(
        ev(NodeFinished, node="ToolCallLimitMiddleware.after_model", task_id="y", status="error")
    )
    state.set_breakpoint("HumanInTheLoopMiddleware.after_model", True)


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/stepwise-shots")
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication([])
    scenes = [
        ("demo", demo_graph, demo_mid_run, (620, 640)),
        ("demo-parallel", demo_graph, demo_parallel_tools, (620, 640)),
        ("twelve", twelve_middleware_graph, twelve_mid_run, (760, 1100)),
        ("plain", plain_graph, plain_mid_run, (520, 620)),
        ("cycle", cycle_graph, cycle_scrubbed, (520, 620)),
    ]
    for theme in ("light", "dark"):
        for name, build, drive, (w, h) in scenes:
            state = GraphStateModel(build())
            view = GraphView(state, theme=theme)
            view.resize(w, h)
            view.show()
            if drive:
                drive(state)
            app.processEvents()
            view.fit()
            app.processEvents()
            path = out / f"graph-{name}-{theme}.png"
            view.grab().save(str(path))
            if name == "twelve":
                view.export_png(str(out / f"export-{name}-{theme}.png"))
                view.export_svg(str(out / f"export-{name}-{theme}.svg"))
            print(path)
            view.close()
            view.deleteLater()
            app.processEvents()


if __name__ == "__main__":
    main()
