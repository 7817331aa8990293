"""The Plan dock: the DAG of a plan-and-execute run with each step's status."""

from studio.docks.plan.view import PlanDock

__all__ = ["PlanDock"]
