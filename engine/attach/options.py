"""How a loaded graph is attached: the ``--runtime``, ``--checkpointer`` and ``--stream-tokens``
choices of ``stepwise run`` / ``stepwise open``, applied the same way by the CLI and the studio."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["AttachError", "AttachOptions"]


class AttachError(Exception):
    """The options do not fit the graph, or its checkpointer cannot be opened (one line)."""


@dataclass(frozen=True)
class AttachOptions:
    runtime: str = "auto"
    """``auto`` | ``engine`` | ``langgraph`` (attach to a real langgraph graph)."""
    checkpointer: str | None = None
    """A LangGraph saver URL (``memory``, ``sqlite:///path``, ``postgres://...``)."""
    stream_tokens: bool = False

    def apply(self, graph: Any, saver: Any = None) -> Any:
        """The graph to run: ``graph`` itself (our engine), or attached to the real langgraph
        on the checkpointer asked for (``saver``: that one, already opened), else its own,
        else LangGraph's in-memory saver."""
        from engine.attach import attach, is_langgraph

        real = is_langgraph(graph) or getattr(graph, "runtime", None) == "langgraph"
        if self.runtime == "langgraph" and not real:
            raise AttachError("--runtime langgraph needs a compiled langgraph graph")
        if self.runtime == "engine" and real:
            raise AttachError("this is a real langgraph graph: use --runtime langgraph (or auto)")
        if self.checkpointer and not real:
            raise AttachError("--checkpointer is for attach mode (a real langgraph graph)")
        if not real:
            return graph
        attached = attach(graph)
        if self.stream_tokens and not attached.stream_tokens:
            attached = attached.with_options(stream_tokens=True)
        if saver is None and self.checkpointer:
            saver = self.open_saver()
        if saver is not None:
            return attached.with_checkpointer(saver)
        if attached.checkpointer in (None, True, False):
            return attached.with_checkpointer(self._memory())
        return attached

    def open_saver(self) -> Any:
        """The saver ``checkpointer`` names (None when it names none)."""
        if not self.checkpointer:
            return None
        from engine.attach.savers import SaverError, open_saver
        from engine.redaction import register_dsn, scrub, strip_url_credentials

        register_dsn(self.checkpointer)  # a database password never reaches a message or a file
        try:
            return open_saver(self.checkpointer)
        except SaverError as exc:
            raise AttachError(scrub(str(exc))) from None
        except Exception as exc:  # an unreachable database, a bad path: one line
            where = scrub(strip_url_credentials(self.checkpointer))
            first = scrub(str(exc).strip().splitlines()[0] if str(exc).strip() else "")
            raise AttachError(f"cannot open {where}: {type(exc).__name__}: {first}") from None

    @staticmethod
    def _memory() -> Any:
        from engine.attach.savers import open_saver

        return open_saver("memory")
