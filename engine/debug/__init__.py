"""The debugger: breakpoints, stepping, stop and fault injection (see ``engine.debug.debugger``).

from engine.debug import Debugger
"""

from engine.debug.breakpoints import Breakpoint
from engine.debug.debugger import Debugger, Fault, RunStopped, check_fault, check_fault_sync

__all__ = ["Breakpoint", "Debugger", "Fault", "RunStopped", "check_fault", "check_fault_sync"]
