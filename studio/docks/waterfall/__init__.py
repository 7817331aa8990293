"""The Waterfall dock (the run's spans on a time axis): ``WaterfallDock``."""

from studio.docks.waterfall.view import WaterfallDock

__all__ = ["WaterfallDock"]
