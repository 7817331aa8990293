"""Models the engine does not stream for its own listeners (the recorder, the studio).

When nobody asked for the model's chunks themselves (no ``messages`` stream), the engine
streams a model only to show its tokens.  Two kinds of model must not fail for that:

- LangChain's fake chat models (``GenericFakeChatModel``, ``FakeListChatModel`` ...): their
  stream is their next scripted reply cut into pieces, and a reply of tool calls only streams
  nothing at all ("No generations found in stream"), so a docs-style agent on one would fail
  at its first tool call only because it is watched.  They are asked as LangChain asks them
  without a streaming consumer (``ainvoke``), and the token events are made from the reply's
  pieces, as for the engine's own scripted models.
- a model that cannot stream (no ``_stream``, or a stream with nothing in it): the same call is
  made once more without streaming, and a ``middleware.action`` (``stream_fallback``) says so,
  as attach mode does.
A ``messages`` stream the app asked for streams as LangChain does, failures included.
"""

from __future__ import annotations

from typing import Any

__all__ = ["cannot_stream", "fallback_detail", "is_langchain_fake", "streams_its_reply"]

_FAKE_MODULE = "langchain_core.language_models.fake"
_LANGCHAIN_MODELS = "langchain_core.language_models."


def streams_its_reply(lc_model: Any) -> bool:
    """Is ``lc_model`` one of LangChain's fake chat models (its stream is its next scripted
    reply cut into pieces, so streaming it shows nothing the reply does not)?"""
    return _module_of(getattr(type(lc_model), "_stream", None)).startswith(_FAKE_MODULE)


def is_langchain_fake(model: Any) -> bool:
    """Is ``model`` (ours over a LangChain model) one of LangChain's fake chat models, calling
    the model as LangChain's own code does?"""
    lc_model = getattr(model, "lc_model", None)
    if lc_model is None or not streams_its_reply(lc_model):
        return False
    # a subclass that makes its own calls (a stream that fails, say) is asked as it is
    cls = type(lc_model)
    return all(
        _module_of(getattr(cls, name, None)).startswith(_LANGCHAIN_MODELS)
        for name in ("_astream", "_generate", "_agenerate")
    )


def _module_of(fn: object) -> str:
    return str(getattr(fn, "__module__", None) or "")


def cannot_stream(exc: BaseException) -> bool:
    """Did a stream fail because the model cannot stream (rather than the call failing)?"""
    if isinstance(exc, NotImplementedError):
        return True
    text = str(exc)
    return isinstance(exc, ValueError) and (
        "No generations found in stream" in text or "No generation chunks were returned" in text
    )


def fallback_detail(model: str) -> dict[str, Any]:
    """The ``middleware.action`` fields of a call asked again without streaming."""
    return {
        "middleware": "Stepwise",
        "action": "stream_fallback",
        "detail": {"model": model, "message": "this model cannot stream: asked again"},
    }
