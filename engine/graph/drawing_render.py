"""A drawn graph as text art or a PNG, through langchain_core's renderers, as LangGraph's
``get_graph()`` offers them: ``draw_ascii`` / ``print_ascii`` (grandalf's layout) and
``draw_mermaid_png`` (the Mermaid text ``draw_mermaid`` gives, rendered by mermaid.ink, a
local browser or a Mermaid server).  The renderers need langchain_core (and what each needs
itself: grandalf, network access, pyppeteer); without them the call fails with what to install,
as LangGraph's does."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.graph.drawing import DrawableGraph

__all__ = ["draw_ascii", "draw_mermaid_png"]

_STYLE_DEFAULTS: dict[str, Any] = {
    "curve_style": None,
    "node_colors": None,
    "wrap_label_n_words": 9,
    "frontmatter_config": None,
}
"""``draw_mermaid_png``'s styling arguments at LangChain's defaults: the drawing is LangGraph's
default one (``draw_mermaid``)."""


def _renderer(module: str) -> Any:
    import importlib

    try:
        return importlib.import_module(f"langchain_core.runnables.{module}")
    except ImportError:
        raise ImportError(
            "Install langchain-core to render graphs (`pip install 'stepwise[langchain]'`); "
            "draw_mermaid() gives the Mermaid text without it."
        ) from None


def draw_ascii(graph: DrawableGraph) -> str:
    """The graph as text art (grandalf's layout, as LangChain draws it)."""
    ascii_art = _renderer("graph_ascii")
    vertices = {n.id: n.name for n in graph.nodes.values()}
    edges = [(e.source, e.target, e.data, e.conditional) for e in graph.edges]
    return str(ascii_art.draw_ascii(vertices, edges))


def draw_mermaid_png(
    graph: DrawableGraph,
    *,
    output_file_path: str | None = None,
    draw_method: Any = None,
    background_color: str | None = "white",
    padding: int = 10,
    max_retries: int = 1,
    retry_delay: float = 1.0,
    base_url: str | None = None,
    proxies: dict[str, str] | None = None,
    **style: Any,
) -> bytes:
    """The ``draw_mermaid()`` text rendered as a PNG (and saved to ``output_file_path``)."""
    for name, value in style.items():
        if name not in _STYLE_DEFAULTS:
            raise TypeError(f"draw_mermaid_png() got an unexpected keyword argument {name!r}")
        if value is not None and value != _STYLE_DEFAULTS[name]:
            curve = getattr(value, "value", value)
            if not (name == "curve_style" and curve == "linear"):
                raise ValueError(
                    f"draw_mermaid_png({name}=...): Stepwise draws the graph in LangGraph's "
                    "default style only"
                )
    mermaid = _renderer("graph_mermaid")
    method = draw_method if draw_method is not None else mermaid.MermaidDrawMethod.API
    return bytes(
        mermaid.draw_mermaid_png(
            mermaid_syntax=graph.draw_mermaid(),
            output_file_path=output_file_path,
            draw_method=method,
            background_color=background_color,
            padding=padding,
            max_retries=max_retries,
            retry_delay=retry_delay,
            base_url=base_url,
            proxies=proxies,
        )
    )
