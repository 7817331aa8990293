"""``Gate``: what the runtime asks of a debugger, as a protocol (``engine.debug.Debugger``
implements it).  The bus, the runtime and the adapters type against this, never against the
debugger itself, so the layers below the debugger do not import it."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from engine.events import EventBase
    from engine.observe.bus import RunEmitter

__all__ = ["Gate", "RunView"]


class RunView(Protocol):
    """What a debugger may know of a running run."""

    run_id: str

    def committed_state(self) -> dict[str, Any] | None:
        """The state values after the last superstep (None when the run keeps none)."""
        ...


class Gate(Protocol):
    """Consulted for every event of a run; may pause it (awaiting, never blocking the loop)."""

    stop_requested: bool

    @property
    def watching(self) -> bool:
        """Whether some event could stop the run now.  While not, a run no subscriber listens
        to builds no events for the gate at all (it could not stop on any)."""
        ...

    @property
    def wants_tokens(self) -> bool:
        """Whether a model call should stream its tokens for the gate to stop on."""
        ...

    async def gate(self, ev: EventBase, emitter: RunEmitter) -> None:
        """Return when the run may go on; raise ``RunStopped`` to stop it."""
        ...

    def passed(self, ev: EventBase) -> None:
        """``ev`` was delivered without the gate, as nothing could stop on it (``watching``
        was off): note it as ``gate`` would (open spans, failures already reported)."""
        ...

    def take_fault(self, kind: str, name: str | None) -> BaseException | None:
        """The error queued for the next ``kind`` call of ``name`` (fault injection), if any."""
        ...

    def run_began(self, run: RunView, task: asyncio.Task[Any] | None) -> None:
        """A run starts under this gate (``task`` runs it: a stop cancels it)."""
        ...

    def run_ended(self, run: RunView) -> None:
        """The run has ended (whatever the outcome)."""
        ...
