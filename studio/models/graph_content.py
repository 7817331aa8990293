"""What a graph node box shows and how big it is (pure Python, shared by layout and painter).

A box is a stack of rows: a title, an optional subtitle (hook nodes: the middleware), one row
per wrapper middleware on ``model``/``tools`` (outermost first), and reserved *status rows* at
the bottom where the live attempt badge and the tool calls in flight are painted.  Reserving
them in the size means a live badge can never spill over a neighbour.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from engine.graph.drawing import Node
from studio.models.graph_state import short_middleware

__all__ = [
    "BoxMetrics",
    "NodeContent",
    "TextRole",
    "TextWidth",
    "approx_text_width",
    "label_size",
    "measure_node",
    "node_content",
    "onion_height",
]

TextRole = Literal["title", "subtitle", "detail", "label"]
TextWidth = Callable[[str, TextRole], float]
Shape = Literal["pill", "hook", "box", "agent"]

_CHAR_WIDTH: dict[TextRole, float] = {"title": 8.0, "subtitle": 6.6, "detail": 6.6, "label": 6.4}


def approx_text_width(text: str, role: TextRole) -> float:
    """A font-free estimate (DejaVu Sans-ish at the studio's sizes), for tests and headless use."""
    return len(text) * _CHAR_WIDTH[role]


@dataclass(frozen=True)
class BoxMetrics:
    """Row heights, paddings and minimum widths of node boxes, in scene pixels."""

    title_row: float = 20.0
    subtitle_row: float = 16.0
    detail_row: float = 17.0
    label_row: float = 18.0
    pad_x: float = 14.0
    pad_y: float = 9.0
    section_gap: float = 6.0
    pill_size: tuple[float, float] = (92.0, 32.0)
    hook_min_width: float = 150.0
    node_min_width: float = 120.0
    agent_min_width: float = 300.0
    label_pad_x: float = 7.0
    onion_inset: float = 7.0
    """Horizontal step between nested wrapper frames."""
    onion_pad: float = 4.0
    """Vertical step between the bottoms of nested wrapper frames."""
    model_status_rows: int = 2
    """The attempt badge (head line + detail line)."""
    tools_status_rows: int = 5
    """The attempt badge plus tool calls in flight (calls use all rows when there is no badge)."""


@dataclass(frozen=True)
class NodeContent:
    shape: Shape
    title: str
    subtitle: str | None = None
    wrappers: tuple[str, ...] = ()
    """Short middleware names, outermost first."""
    tools: tuple[str, ...] = ()
    status_rows: int = 0


def node_content(node: Node, metrics: BoxMetrics | None = None) -> NodeContent:
    m = metrics or BoxMetrics()
    meta = node.metadata or {}
    if node.kind in ("start", "end"):
        default = "START" if node.kind == "start" else "END"
        title = default if node.name in ("__start__", "__end__") else node.name
        return NodeContent("pill", title)
    if node.kind == "hook":
        middleware = str(meta.get("middleware") or node.id.rpartition(".")[0] or node.id)
        hook = str(meta.get("hook") or node.id.rpartition(".")[2])
        return NodeContent("hook", hook, subtitle=short_middleware(middleware))
    if node.kind in ("model", "tools"):
        wrappers = tuple(short_middleware(str(w)) for w in meta.get("wrappers") or ())
        tools = tuple(str(t) for t in meta.get("tools") or ())
        rows = m.model_status_rows if node.kind == "model" else m.tools_status_rows
        return NodeContent("agent", node.name, wrappers=wrappers, tools=tools, status_rows=rows)
    subtitle = "subgraph" if node.kind == "subgraph" else None
    return NodeContent("box", node.name, subtitle=subtitle)


def measure_node(
    content: NodeContent, text_width: TextWidth, metrics: BoxMetrics
) -> tuple[float, float]:
    """Width and height of the box drawn for ``content``."""
    m = metrics
    if content.shape == "pill":
        w = max(m.pill_size[0], text_width(content.title, "title") + 2 * m.pad_x + 8)
        return w, m.pill_size[1]
    widths = [text_width(content.title, "title")]
    height = m.pad_y * 2 + m.title_row
    if content.subtitle:
        widths.append(text_width(content.subtitle, "subtitle"))
        height += m.subtitle_row
    if content.wrappers:
        widths += [
            text_width(w, "detail") + 2 * m.onion_inset * i + 20
            for i, w in enumerate(content.wrappers)
        ]
        height += m.section_gap + onion_height(len(content.wrappers), m)
    if content.status_rows:
        height += m.section_gap + m.detail_row * content.status_rows
    minimum = {"hook": m.hook_min_width, "agent": m.agent_min_width}.get(
        content.shape, m.node_min_width
    )
    return max(minimum, max(widths) + 2 * m.pad_x), height


def onion_height(layers: int, metrics: BoxMetrics) -> float:
    """Nested wrapper frames: one label row per layer, the core call row, a step per bottom."""
    if not layers:
        return 0.0
    return metrics.detail_row * (layers + 1) + metrics.onion_pad * layers + 2


def label_size(text: str, text_width: TextWidth, metrics: BoxMetrics) -> tuple[float, float]:
    return text_width(text, "label") + 2 * metrics.label_pad_x, metrics.label_row
