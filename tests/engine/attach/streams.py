"""Which of LangGraph's streams an attached run goes through (``stream`` or ``astream``)."""

from __future__ import annotations

from typing import Any

import pytest


def record_streams(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A list that gets ``"stream"`` or ``"astream"`` for every run of any LangGraph graph."""
    from langgraph.pregel import Pregel

    used: list[str] = []
    real_stream, real_astream = Pregel.stream, Pregel.astream

    def stream(self: Any, *args: Any, **kw: Any) -> Any:
        used.append("stream")
        return real_stream(self, *args, **kw)

    def astream(self: Any, *args: Any, **kw: Any) -> Any:
        used.append("astream")
        return real_astream(self, *args, **kw)

    monkeypatch.setattr(Pregel, "stream", stream)
    monkeypatch.setattr(Pregel, "astream", astream)
    return used
