"""The Breakpoints dock: every breakpoint of the debugger, editable."""

from studio.docks.breakpoints.view import BreakpointsPanel

__all__ = ["BreakpointsPanel"]
