"""LangGraph's streaming docs ("filter by LLM invocation") ported by imports: a node calls two
langchain_core models tagged "joke" and "poem" and the program keeps the tokens whose
``metadata["tags"]`` is ``["joke"]``; the metadata carries the call's tags and the model's own
``ls_*`` keys, as LangGraph's messages stream does."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_core")

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from typing_extensions import TypedDict

from engine.graph import START, StateGraph


class State(TypedDict):
    topic: str
    joke: str
    poem: str


def test_messages_metadata_has_the_calls_tags_and_model_keys() -> None:
    joke_model = GenericFakeChatModel(messages=iter([AIMessage("cats nap")]), tags=["joke"])
    poem_model = GenericFakeChatModel(messages=iter([AIMessage("soft paws")]))

    def call_model(state: State, config: dict) -> dict:
        joke = joke_model.invoke([("user", f"a joke about {state['topic']}")], config)
        poem = poem_model.invoke([("user", f"a poem about {state['topic']}")], config)
        return {"joke": joke.content, "poem": poem.content}

    g = StateGraph(State)
    g.add_node("call_model", call_model)
    g.add_edge(START, "call_model")
    chunks = list(g.compile().stream({"topic": "cats"}, stream_mode="messages"))
    joke = "".join(m.content for m, meta in chunks if meta.get("tags") == ["joke"])
    assert joke == "cats nap"
    poem = [meta for _m, meta in chunks if "tags" not in meta]
    assert len(poem) == 3  # no tags of its own: no "tags" key, as in LangGraph
    assert all(meta["langgraph_node"] == "call_model" for _m, meta in chunks)
    assert all(meta["ls_model_type"] == "chat" for _m, meta in chunks)
