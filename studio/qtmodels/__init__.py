"""Qt item models: thin adapters over the plain-Python view state of ``studio.models``."""
