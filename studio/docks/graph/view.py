"""The Graph dock's canvas: a zoomable, pannable drawing of the compiled graph, live.

``GraphView`` draws ``GraphStateModel.graph`` with the layered layout and listens to the model.
Model changes are coalesced: dirty nodes and the route flag are collected and applied once per
event-loop turn (a zero-timer), and only items whose visible state changed repaint.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from PySide6.QtCore import QPoint, QRect, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QContextMenuEvent,
    QImage,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsItem,
    QGraphicsScene,
    QGraphicsView,
    QMenu,
    QWidget,
)

from engine.graph.drawing import DrawableGraph, Edge
from studio.docks.graph.edge_items import EdgeItem, EdgeLabelItem
from studio.docks.graph.node_item import NodeItem
from studio.docks.graph.theme import Fonts, Palette, palette_for
from studio.models.graph_content import BoxMetrics
from studio.models.graph_layout import GraphLayout, LayoutOptions, layout_graph
from studio.models.graph_state import GraphChange, GraphStateModel

__all__ = ["GraphView"]

_ZOOM_STEP = 1.2
_ZOOM_RANGE = (0.15, 4.0)
MIN_FIT_SCALE = 0.8
_KEPT_IN_SIGHT = frozenset({"running", "failed", "interrupted", "pending"})
"""Node states the view scrolls to when the graph does not fit (``_keep_in_sight``)."""
"""Fitting never zooms out further: the 11 px detail text stays about 9 px on screen, and a
graph taller or wider than the view scrolls (wheel, drag) instead of shrinking to unreadable."""
_PAN_ROOM = 4000.0


class GraphView(QGraphicsView):
    """Live graph canvas.

    Signals: ``nodeClicked(node_id)`` on a click (not a drag) on a node: it selects the node
    (for F9) and nothing more; ``nodeActivated(node_id)`` on a double-click or the context
    menu's "Show events of this node" (the log filters on it); ``breakpointToggled(node_id,
    enabled)`` after F9 / the context menu / ``toggle_breakpoint``; ``runToRequested(node_id)``
    from the context menu's "Run to here".
    """

    nodeClicked = Signal(str)
    nodeActivated = Signal(str)
    breakpointToggled = Signal(str, bool)
    runToRequested = Signal(str)

    def __init__(
        self,
        state: GraphStateModel | None = None,
        parent: QWidget | None = None,
        theme: str = "light",
    ) -> None:
        super().__init__(parent)
        self._state = state or GraphStateModel()
        self._palette: Palette = palette_for(theme)
        self._fonts = Fonts()
        self._options = LayoutOptions(metrics=BoxMetrics())
        self._scene = QGraphicsScene(self)
        self.setScene(self._scene)
        self._nodes: dict[str, NodeItem] = {}
        self._edges: list[EdgeItem] = []
        self._labels: dict[int, EdgeLabelItem] = {}
        self._layout: GraphLayout | None = None
        self._drawn_graph: DrawableGraph | None = None
        self._selected: str | None = None
        self._press: QPoint | None = None
        self._auto_fit = True
        """Keep the whole graph in view on resize until the user zooms or pans."""
        self._dirty: set[str] = set()
        self._route_dirty = False
        self._edges_dirty = False
        self.flushes = 0
        """How many coalesced updates were applied (for tests and diagnostics)."""
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._flush)

        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._apply_background()
        self._state.add_listener(self._on_change)
        self._rebuild()

    # --- public API -------------------------------------------------------------------

    @property
    def state(self) -> GraphStateModel:
        return self._state

    @property
    def layout_result(self) -> GraphLayout | None:
        return self._layout

    @property
    def theme(self) -> str:
        return self._palette.name

    @property
    def selected_node(self) -> str | None:
        return self._selected

    @property
    def zoom(self) -> float:
        return self.transform().m11()

    def set_graph(self, graph: DrawableGraph) -> None:
        """Draw ``graph`` (shorthand for ``state.set_graph``: the view follows its model)."""
        self._state.set_graph(graph)

    def node_item(self, node_id: str) -> NodeItem | None:
        return self._nodes.get(node_id)

    def edge_items(self, source: str, target: str) -> list[EdgeItem]:
        return [e for e in self._edges if (e.route.source, e.route.target) == (source, target)]

    def node_at(self, view_pos: QPoint) -> str | None:
        for item in self.items(view_pos):
            while item is not None and not isinstance(item, NodeItem):
                item = item.parentItem()
            if isinstance(item, NodeItem):
                return item.node_id
        return None

    def select_node(self, node_id: str | None) -> None:
        if self._selected in self._nodes:
            self._nodes[self._selected].set_selected(False)
        self._selected = node_id if node_id in self._nodes else None
        if self._selected:
            self._nodes[self._selected].set_selected(True)

    def toggle_breakpoint(self, node_id: str) -> bool:
        """Flip the breakpoint on ``node_id`` (drawn at once) and emit ``breakpointToggled``."""
        enabled = self._state.toggle_breakpoint(node_id)
        self._flush()
        self.breakpointToggled.emit(node_id, enabled)
        return enabled

    def set_theme(self, name: str) -> None:
        self._palette = palette_for(name)
        self._apply_background()
        for item in self._nodes.values():
            item.set_palette(self._palette)
        for edge in self._edges:
            edge.set_palette(self._palette)
        for label in self._labels.values():
            label.set_palette(self._palette)

    def fit(self) -> None:
        """Show the whole graph (never enlarged beyond 1:1, never shrunk below
        ``MIN_FIT_SCALE``: a graph that does not fit then shows its top, centred, and
        scrolls)."""
        if self._layout is None:
            return
        bounds = self._bounds()
        view = self.viewport().rect()
        scale = min(view.width() / bounds.width(), view.height() / bounds.height(), 1.0)
        self.resetTransform()
        if scale >= MIN_FIT_SCALE:
            self.fitInView(bounds, Qt.AspectRatioMode.KeepAspectRatio)
            if self.zoom > 1.0:
                self.resetTransform()
            self.centerOn(bounds.center())
        else:
            self.scale(MIN_FIT_SCALE, MIN_FIT_SCALE)
            shown_h = view.height() / MIN_FIT_SCALE
            top = bounds.top() + min(bounds.height(), shown_h) / 2
            self.centerOn(bounds.center().x(), top)
        self._auto_fit = True

    @property
    def fits_whole_graph(self) -> bool:
        """Is the whole graph inside the view at the current zoom and scroll?"""
        shown = self.mapToScene(self.viewport().rect()).boundingRect()
        return shown.adjusted(-1, -1, 1, 1).contains(self._bounds())

    def zoom_in(self) -> None:
        self._zoom_by(_ZOOM_STEP)

    def zoom_out(self) -> None:
        self._zoom_by(1 / _ZOOM_STEP)

    def export_png(self, path: str, scale: float = 2.0) -> bool:
        bounds = self._bounds()
        size = QSize(max(1, round(bounds.width() * scale)), max(1, round(bounds.height() * scale)))
        image = QImage(size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(self._palette.color("background"))
        painter = QPainter(image)
        painter.setRenderHints(
            QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing
        )
        with _drawn_afresh(self._scene):
            self._scene.render(painter, QRectF(image.rect()), bounds)
        painter.end()
        return image.save(path)

    def export_svg(self, path: str) -> bool:
        bounds = self._bounds()
        generator = QSvgGenerator()
        generator.setFileName(path)
        generator.setResolution(96)  # so the SVG's physical size matches the on-screen pixels
        generator.setSize(bounds.size().toSize())
        generator.setViewBox(QRect(0, 0, round(bounds.width()), round(bounds.height())))
        generator.setTitle(self._state.graph.name)
        generator.setDescription("Stepwise graph export")
        painter = QPainter()
        if not painter.begin(generator):
            return False
        with _drawn_afresh(self._scene):
            self._scene.render(painter, QRectF(0, 0, bounds.width(), bounds.height()), bounds)
        return painter.end()

    # --- model -> items ---------------------------------------------------------------

    def _on_change(self, change: GraphChange) -> None:
        if change.everything and self._state.graph is not self._drawn_graph:
            self._rebuild()
            return
        self._dirty |= change.nodes
        self._route_dirty = self._route_dirty or change.route
        self._edges_dirty = self._edges_dirty or change.edges
        if not self._timer.isActive():
            self._timer.start()

    def has_pending_updates(self) -> bool:
        return bool(self._dirty or self._route_dirty or self._edges_dirty)

    def show_pending(self) -> None:
        """Apply the coalesced updates now (a whole batch of events is in: no reason to wait
        for the timer, and the boxes are painted in the same pass as the other views)."""
        if self.has_pending_updates():
            self._flush()

    def _flush(self) -> None:
        self._timer.stop()
        if self._edges_dirty:  # a route the drawing lacks: lay out again (sets every item)
            self._rebuild(keep_view=True)
            self.flushes += 1
            return
        dirty, self._dirty = self._dirty, set()
        watched: NodeItem | None = None
        for node_id in sorted(dirty):
            item = self._nodes.get(node_id)
            if item is not None:
                node = self._state.node(node_id)
                item.set_state(node)
                if node.status in _KEPT_IN_SIGHT:
                    watched = item
        if watched is not None:
            self._keep_in_sight(watched)
        if self._route_dirty:
            self._route_dirty = False
            self._highlight_route()
        self.flushes += 1

    def _keep_in_sight(self, item: NodeItem) -> None:
        """A graph taller than the dock shows its top; while the user has not zoomed or
        scrolled, the view follows the node that is running, failed, waiting or next."""
        if self._auto_fit and not self.fits_whole_graph:
            self.ensureVisible(item, 24, 32)

    def _highlight_route(self) -> None:
        route = self._state.last_route
        taken = {(route.from_node, t) for t in route.to} if route else set()
        for edge in self._edges:
            on = (edge.route.source, edge.route.target) in taken
            edge.set_highlighted(on)
            if edge.route.index in self._labels:
                self._labels[edge.route.index].set_highlighted(on)

    def _rebuild(self, keep_view: bool = False) -> None:
        """Lay the graph out and make every item.  ``keep_view``: the same graph with more
        edges; the selection stays and the view is refitted only if the user has not zoomed
        or panned."""
        graph = self._state.graph
        selected = self._selected if keep_view else None
        self._timer.stop()
        self._dirty.clear()
        self._route_dirty = self._edges_dirty = False
        self._scene.clear()
        self._nodes, self._edges, self._labels = {}, [], {}
        self._drawn_graph = graph
        undrawn = self._state.undrawn_routes
        laid = graph
        if undrawn:
            extra = [Edge(s, t, conditional=True) for s, t in undrawn]
            laid = replace(graph, edges=[*graph.edges, *extra])
        self._layout = layout_graph(laid, self._fonts.text_width, self._options)
        for route in self._layout.edges:
            edge = EdgeItem(route, self._palette, observed=route.index >= len(graph.edges))
            self._scene.addItem(edge)
            self._edges.append(edge)
            if route.label and route.label_rect:
                label = EdgeLabelItem(route, self._fonts, self._palette)
                self._scene.addItem(label)
                self._labels[route.index] = label
        for node_id, box in self._layout.nodes.items():
            item = NodeItem(box, self._fonts, self._palette, self._options.metrics)
            item.set_state(self._state.node(node_id))
            self._scene.addItem(item)
            self._nodes[node_id] = item
        self._highlight_route()
        self._selected = None
        self.select_node(selected)
        self._scene.setSceneRect(
            self._bounds().adjusted(-_PAN_ROOM, -_PAN_ROOM, _PAN_ROOM, _PAN_ROOM)
        )
        if not keep_view or self._auto_fit:
            self.fit()

    def _bounds(self) -> QRectF:
        if self._layout is None:
            return QRectF(0, 0, 1, 1)
        return QRectF(0, 0, self._layout.width, self._layout.height)

    def _apply_background(self) -> None:
        self._scene.setBackgroundBrush(self._palette.color("background"))

    def _zoom_by(self, factor: float) -> None:
        self._auto_fit = False
        target = min(max(self.zoom * factor, _ZOOM_RANGE[0]), _ZOOM_RANGE[1])
        self.scale(target / self.zoom, target / self.zoom)

    # --- input ------------------------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._press = (
            event.position().toPoint() if event.button() == Qt.MouseButton.LeftButton else None
        )
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        pos = event.position().toPoint()
        if self._press is None or event.button() != Qt.MouseButton.LeftButton:
            return
        moved = (pos - self._press).manhattanLength()
        self._press = None
        if moved > 4:
            self._auto_fit = False
            return
        node = self.node_at(pos)
        self.select_node(node)
        if node is not None:
            self.nodeClicked.emit(node)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._auto_fit:
            self.fit()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        node = self.node_at(event.position().toPoint())
        if node is None:
            self.fit()
        else:
            super().mouseDoubleClickEvent(event)
            self.nodeActivated.emit(node)

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            delta = event.angleDelta().y()
            if delta:
                self._zoom_by(_ZOOM_STEP if delta > 0 else 1 / _ZOOM_STEP)
            event.accept()
            return
        self._auto_fit = False  # the user scrolled: a resize keeps their place
        super().wheelEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key == Qt.Key.Key_F9 and self._selected:
            self.toggle_breakpoint(self._selected)
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom_in()
        elif key == Qt.Key.Key_Minus:
            self.zoom_out()
        elif key == Qt.Key.Key_F and not event.modifiers():
            self.fit()
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def node_menu(self, node_id: str) -> QMenu:
        """The context menu of a node (built separately so it can be tested without exec)."""
        menu = QMenu(self)
        toggle = QAction("Toggle breakpoint", menu)
        toggle.setShortcut(Qt.Key.Key_F9)
        toggle.setCheckable(True)
        toggle.setChecked(node_id in self._state.breakpoints)
        toggle.triggered.connect(lambda: self.toggle_breakpoint(node_id))
        menu.addAction(toggle)
        run_to = QAction("Run to here", menu)
        run_to.setToolTip("Run (or continue) until this node is about to start, once")
        run_to.triggered.connect(lambda: self.runToRequested.emit(node_id))
        menu.addAction(run_to)
        show = QAction("Show events of this node", menu)
        show.triggered.connect(lambda: self.nodeActivated.emit(node_id))
        menu.addAction(show)
        return menu

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        node = self.node_at(event.pos())
        if node is None:
            super().contextMenuEvent(event)
            return
        self.select_node(node)
        self.node_menu(node).exec(event.globalPos())


@contextmanager
def _drawn_afresh(scene: QGraphicsScene) -> Iterator[None]:
    """Node boxes, edges and labels painted anew while an export renders ``scene`` (kept as
    pictures, they would reach an SVG as images instead of shapes and text)."""
    cache = QGraphicsItem.CacheMode
    kept = [
        item
        for item in scene.items()
        if isinstance(item, NodeItem | EdgeItem | EdgeLabelItem)
        and item.cacheMode() != cache.NoCache
    ]
    for item in kept:
        item.setCacheMode(cache.NoCache)
    try:
        yield
    finally:
        for item in kept:
            item.setCacheMode(cache.DeviceCoordinateCache)
