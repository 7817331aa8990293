"""``langgraph.managed``'s names, where a ported program imports them: the managed state keys
``RemainingSteps`` and ``IsLastStep`` (``engine.graph.managed``)."""

from engine.graph.managed import IsLastStep, RemainingSteps

__all__ = ["IsLastStep", "RemainingSteps"]
