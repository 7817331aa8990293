"""Attach mode registers the credentials of every LangChain model alive when a graph is attached
(``register_live_models``), picking them out of the heap by their class, and scans the heap once
per attached graph: the wrappers the studio makes of it (``with_checkpointer``,
``with_options``) hold no model it did not scan (issue 26: each scan took ~0.3 s on the studio's
open path)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain_core.language_models")

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from pydantic import SecretStr

import engine.attach.secrets as secrets
from engine.redaction import scrub


class _KeyedModel(GenericFakeChatModel):
    api_key: SecretStr


class _DeeperModel(_KeyedModel):
    """A model class two levels below a LangChain one (found through its subclasses)."""


def _graph() -> Any:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, MessagesState, StateGraph

    g = StateGraph(MessagesState)
    g.add_node("n", lambda s: {})
    g.add_edge(START, "n")
    g.add_edge("n", END)
    return g.compile(checkpointer=InMemorySaver())


def test_every_live_model_of_any_subclass_depth_is_registered() -> None:
    keys = [f"kept-{uuid.uuid4().hex}" for _ in range(2)]
    models = [
        _KeyedModel(messages=iter(()), api_key=SecretStr(keys[0])),
        _DeeperModel(messages=iter(()), api_key=SecretStr(keys[1])),
    ]
    secrets.register_live_models()
    assert models  # alive during the scan
    for key in keys:
        assert key not in scrub(f"the server said {key}")


def test_the_wrappers_of_an_attached_graph_do_not_scan_the_heap_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from engine.attach import attach

    scans: list[int] = []
    real = secrets.register_live_models
    monkeypatch.setattr(secrets, "register_live_models", lambda: scans.append(1) or real())
    graph = attach(_graph())
    graph.with_options(stream_tokens=True).with_checkpointer(graph.real.checkpointer)
    assert len(scans) == 1
