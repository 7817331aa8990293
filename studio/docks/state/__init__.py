"""The State dock: the state at the selected checkpoint, as a tree and as JSON; edit it."""

from studio.docks.state.view import StateDock

__all__ = ["StateDock"]
