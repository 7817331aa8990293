"""Which models attach mode takes for LangChain's fake chat models (``quiet_fakes``)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_core")


def test_a_model_whose_stream_has_no_module_is_not_a_fake() -> None:
    """A ``_stream`` made at run time (its ``__module__`` None) is not LangChain's fake one:
    asking must not fail (the model node's every call asks)."""
    from engine.attach.quiet_fakes import streams_its_reply

    def _stream(self: Any, *args: Any, **kw: Any) -> Any:
        return iter(())

    _stream.__module__ = None  # type: ignore[assignment]
    model_class = type("MadeAtRunTime", (), {"_stream": _stream})
    assert streams_its_reply(model_class()) is False
    assert streams_its_reply(object()) is False
