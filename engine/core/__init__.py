"""The engine's lowest layer: ids, errors, config types, run-scoped facts and asyncio helpers.

Nothing here imports any other part of ``engine``; every other layer may import it."""
