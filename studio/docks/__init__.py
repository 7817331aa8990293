"""The docks: one folder each, holding the dock's view and its wiring.

Which docks the window has, and where, is ``studio.app.dock_registry``."""
