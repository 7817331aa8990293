"""The Plan dock: a plan-and-execute run's steps as a DAG, coloured by status, live.

``PlanDock(hub)`` subscribes itself.  Live it follows ``plan.step`` events (pending, running,
succeeded, failed, skipped with ``SKIP_UPSTREAM_FAILED`` and the upstream reasons) and the
``plan`` / ``steps`` state the plan agent writes; a selected checkpoint shows that checkpoint's
plan.  The steps are laid out with the Graph dock's layered layout (dependency arrows point
from a step to the steps that need it).  Hovering a step highlights its downstream dependency
chain (red from a failed step) and shows its details.  "Retry failed steps with their
dependency chain" emits ``retryRequested(indices)`` with ``PlanGraphModel.retry_chain()``
(the failed steps plus everything downstream, by ``engine.plan.build_dependency_chain``): the
shell decides how to run it.  A run without a plan shows a short explanation.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QPainter, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsScene,
    QGraphicsView,
    QHBoxLayout,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from engine.events import EventBase, PlanStep, StateUpdated
from studio.docks.graph.edge_items import EdgeItem
from studio.docks.graph.theme import Palette, palette_for
from studio.docks.plan.items import BOX_HEIGHT, PlanFonts, StepItem, status_color, step_lines
from studio.look.palette import Palette as Colors
from studio.look.palette import colors
from studio.models.graph_content import BoxMetrics
from studio.models.graph_layout import LayoutOptions, layout_graph
from studio.models.hub import Hub
from studio.models.plan_graph import PlanGraphModel, StepView, step_node_id
from studio.models.snapshot_reader import SnapshotReader
from studio.widgets.dock_support import bind_state_dock
from studio.widgets.plain_text import plain_label, plain_tip, rich_label

__all__ = ["PlanDock"]

_TITLE_ROW = 20.0


_MIN_FIT = 0.8
"""The plan is shrunk to fit the dock, but never below this: past it, the dock scrolls (a tall
plan in a short dock was drawn at a third of its size, its text unreadable)."""


class PlanCanvas(QGraphicsView):
    """The zoom-to-fit drawing of the plan (never magnified beyond 100 %, never shrunk below
    ``_MIN_FIT``: a larger plan scrolls)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setMouseTracking(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)

    def fit(self) -> None:
        rect = self.scene().itemsBoundingRect().adjusted(-16, -16, 16, 16)
        if rect.isEmpty():
            return
        self.resetTransform()
        view = self.viewport().rect()
        scale = min(1.0, view.width() / rect.width(), view.height() / rect.height())
        scale = max(scale, _MIN_FIT)
        self.scale(scale, scale)
        self.setSceneRect(rect)
        if rect.height() * scale <= view.height() and rect.width() * scale <= view.width():
            self.centerOn(rect.center())
        else:  # scrolls: start where the plan starts (its first steps)
            self.ensureVisible(rect.left(), rect.top(), 1, 1, 0, 0)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit()


class PlanDock(QWidget):
    """The Plan dock (see the module docstring)."""

    retryRequested = Signal(list)

    def __init__(self, hub: Hub, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hub = hub
        self.model = PlanGraphModel()
        self.items: dict[int, StepItem] = {}
        self.edges: list[tuple[int, int, EdgeItem]] = []
        self.highlighted: set[int] = set()
        self.hovered: int | None = None
        self._shape: Any = None
        self._live_plan: dict[str, Any] = {}
        self._colors: Colors = colors("light")
        self._palette: Palette = palette_for("light")
        self._fonts = PlanFonts()
        self.reader = SnapshotReader(hub, self._loaded)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(6)
        head = QHBoxLayout()
        titles = QVBoxLayout()
        titles.setSpacing(2)
        self.objective_label = plain_label()
        self.objective_label.setObjectName("Title")
        self.objective_label.setWordWrap(True)
        self.summary_label = rich_label()
        self.summary_label.setObjectName("Info")
        self.summary_label.setTextFormat(Qt.TextFormat.RichText)
        titles.addWidget(self.objective_label)
        titles.addWidget(self.summary_label)
        head.addLayout(titles, 1)
        self.retry_button = QPushButton("⟲ Retry failed steps")  # short: a laptop's dock
        self.retry_button.setToolTip("Retry failed steps with their dependency chain")
        self.retry_button.setObjectName("Retry")
        self.retry_button.clicked.connect(self.request_retry)
        head.addWidget(self.retry_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(head)

        self.pages = QStackedWidget()
        self.explanation_label = plain_label(
            "This run has no plan.\n\nPlan-and-execute agents (engine.plan.create_plan_agent) "
            "show their steps here as a dependency graph, coloured by status as they run."
        )
        self.explanation_label.setObjectName("Muted")
        self.explanation_label.setWordWrap(True)
        self.explanation_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.canvas = PlanCanvas()
        self.pages.addWidget(self.explanation_label)
        self.pages.addWidget(self.canvas)
        layout.addWidget(self.pages, 1)
        self.details_label = rich_label()
        self.details_label.setObjectName("Details")
        self.details_label.setWordWrap(True)
        self.details_label.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.details_label)

        self.rebuilds = 0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.redraw)
        self.model.listeners.append(self._timer.start)
        self._unsubscribe = bind_state_dock(self, self, hub)
        self.set_theme(hub.theme)
        self.reload()

    # -- feeding -------------------------------------------------------------------------

    def set_theme(self, name: str) -> None:
        c = self._colors = colors(name)
        self._palette = palette_for(c.name)
        self.setStyleSheet(
            f"PlanDock {{ background: {c.window}; }} QLabel {{ color: {c.text}; }}"
            f" QLabel#Muted, QLabel#Info {{ color: {c.muted}; }}"
            f" QLabel#Title {{ font-size: 14px; font-weight: 600; }}"
            f" QLabel#Details {{ background: {c.panel}; border: 1px solid {c.border};"
            " border-radius: 6px; padding: 6px 8px; }"
            f" QPushButton#Retry {{ color: {c.danger}; background: {c.panel};"
            f" border: 1px solid {c.tint(c.danger, 0.5)}; border-radius: 6px; padding: 5px 12px;"
            " font-weight: 600; }"
            f" QPushButton#Retry:hover {{ background: {c.tint(c.danger, 0.08)}; }}"
            f" QPushButton#Retry:disabled {{ color: {c.muted}; border-color: {c.border}; }}"
        )
        self.canvas.setBackgroundBrush(self._palette.color("background"))
        self._shape = None
        self.redraw()

    def reload(self) -> asyncio.Task[None] | None:
        """Show the plan of the selected checkpoint (or the live tip); read on the running
        loop when there is one (the task is returned)."""
        return self.reader.read(self.hub.selected_checkpoint)

    def _loaded(self, snapshot: Any, _parent: Any) -> None:
        if isinstance(snapshot, Exception):  # a checkpoint not readable (yet): keep the view
            return
        values = getattr(snapshot, "values", None)
        values = values if isinstance(values, dict) else {}
        self._live_plan = {k: values.get(k) for k in ("plan", "steps")}
        if not self.model.load_state(values) and self.hub.selected_checkpoint is None:
            self.model.apply_all([e for e in self.hub.events if isinstance(e, PlanStep)])
        self.redraw()

    def _on_reset(self) -> None:
        self._live_plan = {}
        self.model.clear()
        self.redraw()

    def _on_events(self, batch: list[EventBase]) -> None:
        if self.hub.selected_checkpoint is not None:
            return
        steps: list[EventBase] = []
        for event in batch:
            if isinstance(event, StateUpdated) and not event.ns:
                changed = {c.get("channel"): c for c in event.changes}
                if "plan" in changed or "steps" in changed:
                    self.model.apply_all(steps)
                    steps = []
                    for key in ("plan", "steps"):
                        if key in changed:
                            self._live_plan[key] = changed[key].get("value")
                    self.model.load_state(self._live_plan)
            elif isinstance(event, PlanStep):
                steps.append(event)
        self.model.apply_all(steps)

    # -- drawing -------------------------------------------------------------------------

    def redraw(self) -> None:
        """Rebuild the scene (coalesced: model changes schedule one call per loop turn)."""
        self._timer.stop()
        model = self.model
        self.pages.setCurrentIndex(1 if model.has_plan else 0)
        self.objective_label.setText(model.objective or ("Plan" if model.has_plan else ""))
        self._refresh_controls()
        if not model.has_plan:
            self.canvas.scene().clear()
            self.items, self.edges = {}, []
            return
        self.rebuilds += 1
        shape = [(s.name, s.tool, s.depends_on) for s in model.steps]
        relayout = shape != self._shape
        self._shape = shape
        scene = self.canvas.scene()
        scene.clear()
        self.items, self.edges = {}, []
        widths = {step_lines(s).title: self._fonts.width(s) for s in model.steps}
        metrics = BoxMetrics(
            pad_y=(BOX_HEIGHT - _TITLE_ROW) / 2, title_row=_TITLE_ROW, node_min_width=0, pad_x=0
        )

        def text_width(text: str, role: str) -> float:
            return widths.get(text, 8.0 * len(text)) if role == "title" else 6.6 * len(text)

        drawable = model.drawable()
        for node in drawable.nodes.values():
            node.name = step_lines(model.steps[node.metadata["index"]]).title
        layout = layout_graph(drawable, text_width, LayoutOptions(metrics=metrics, layer_gap=40))
        for route in layout.edges:
            edge = EdgeItem(route, self._palette)
            scene.addItem(edge)
            self.edges.append((_index(route.source), _index(route.target), edge))
        for step in model.steps:
            box = layout.nodes[step_node_id(step.index)].rect
            item = StepItem(
                step, QRectF(box.x, box.y, box.w, box.h), self._fonts, self._colors, self.hover_step
            )
            scene.addItem(item)
            self.items[step.index] = item
        scene.setSceneRect(QRectF(0, 0, layout.width, layout.height))
        self._apply_highlight()
        if relayout:
            self.canvas.fit()

    def hover_step(self, index: int | None) -> None:
        """Highlight ``index``'s downstream dependency chain (None clears), as hovering does."""
        self.hovered = index
        self._apply_highlight()

    def _apply_highlight(self) -> None:
        index = self.hovered if self.hovered in self.items else None
        self.highlighted = self.model.downstream(index) if index is not None else set()
        failed = index is not None and self.model.steps[index].status == "failed"
        role = "failed" if failed else "focus"
        chain_palette = (
            dataclasses.replace(self._palette, route=self._colors.danger)
            if failed
            else self._palette
        )
        for i, item in self.items.items():
            item.set_chain(role if i in self.highlighted else None)
            item.setOpacity(1.0 if not self.highlighted or i in self.highlighted else 0.35)
        for src, dst, edge in self.edges:
            on = src in self.highlighted and dst in self.highlighted
            edge.set_palette(chain_palette if on else self._palette)
            edge.set_highlighted(on)
            edge.setOpacity(1.0 if not self.highlighted or on else 0.3)
        self._show_details(index)

    def _show_details(self, index: int | None) -> None:
        c = self._colors
        if index is None:
            chain = self.model.retry_chain()
            failed = [s.index for s in self.model.steps if s.status == "failed"]
            self.details_label.setText(
                f"Failed: step {', '.join(map(str, failed))}. Hover a step to see the steps that "
                f"depend on it. A retry re-runs steps {', '.join(map(str, chain))}, in dependency order."
                if failed
                else "Hover a step to see its details and the steps that depend on it."
            )
            self.details_label.setVisible(self.model.has_plan)
            return
        s: StepView = self.model.steps[index]
        color = status_color(c, s.status)
        rows = [
            f"<b>{s.index} · {_esc(s.name)}</b> <span style='color:{c.muted}'>[{_esc(s.tool)}]</span>"
            f" &nbsp;<span style='color:{color}; font-weight:600'>{_esc(step_lines(s).status)}</span>"
        ]
        if s.reasons:
            rows.append("Skipped because upstream steps did not succeed:")
            rows += [f"&nbsp;&nbsp;• {_esc(r)}" for r in s.reasons]
        elif s.message:
            rows.append(_esc(s.message))
        downstream = sorted(self.highlighted - {index})
        if downstream:
            rows.append(f"Downstream: steps {', '.join(map(str, downstream))}")
        self.details_label.setText("<br>".join(rows))
        self.details_label.setVisible(True)

    def _refresh_controls(self) -> None:
        c = self._colors
        counts = self.model.counts()
        parts = [f"{len(self.model.steps)} steps"]
        for status, n in counts.items():
            if n:
                parts.append(
                    f"<span style='color:{status_color(c, status)}'>{n} {_esc(status)}</span>"
                )
        self.summary_label.setText(" · ".join(parts) if self.model.has_plan else "")
        chain = self.model.retry_chain()
        running = self.hub.status in ("running", "paused") or counts["running"] > 0
        self.retry_button.setVisible(self.model.has_plan)
        self.retry_button.setEnabled(bool(chain) and not running)
        where = (
            "from this checkpoint (a fork: the later branch stays)"
            if self.hub.selected_checkpoint
            else "from the latest state"
        )
        self.retry_button.setToolTip(
            plain_tip(
                f"Re-run steps {chain} {where}: the failed steps and every step downstream of them"
                if chain
                else "No step failed"
            )
        )

    def request_retry(self) -> list[int]:
        """Emit ``retryRequested`` with the failed steps and their downstream chain."""
        chain = self.model.retry_chain()
        if chain:
            self.retryRequested.emit(chain)
        return chain


def _index(node_id: str) -> int:
    return int(node_id.removeprefix("step"))


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
