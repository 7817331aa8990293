"""View state in plain Python, no Qt (fed by events; adapted by ``studio.qtmodels``)."""
