"""What the studio may offer for its current target, and why not: a command is enabled only
when the target has its capability (``engine.targets.Capability``), and its tooltip says why
when it has not."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.targets import Capability

if TYPE_CHECKING:
    from studio.models.hub import Hub

__all__ = ["NOTHING_LOADED", "can"]

NOTHING_LOADED = "Load an agent, a scenario or a session first (File menu)"


def can(hub: Hub, capability: Capability | str) -> tuple[bool, str]:
    """``(True, "")`` when the hub's target can do ``capability``, else ``(False, why)``."""
    target = hub.target
    if target is None:
        return False, NOTHING_LOADED
    why = target.capabilities.why_not(capability)
    return (why is None, why or "")
