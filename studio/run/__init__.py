"""Running: the run controller and everything that talks to a target (commands, threads,
interrupts, where agents come from)."""
