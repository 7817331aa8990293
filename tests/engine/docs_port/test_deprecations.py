"""Deprecation warnings a docs program sees, real LangGraph vs ported: ``create_react_agent``
from ``langgraph.prebuilt`` warns with LangGraph's own category (``LangGraphDeprecatedSinceV10``,
a ``LangGraphDeprecationWarning``) and text, once per call."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

CREATE_REACT_AGENT = """
import warnings
from langgraph.prebuilt import create_react_agent
from langgraph.warnings import LangGraphDeprecationWarning, LangGraphDeprecatedSinceV10
from langchain.messages import AIMessage
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

for _ in range(2):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agent = create_react_agent(Scripted(messages=iter([AIMessage("ok")])), tools=[])
    for w in caught:
        print(w.category.__name__, [c.__name__ for c in w.category.__mro__[1:4]], str(w.message))
        print(issubclass(w.category, LangGraphDeprecatedSinceV10), isinstance(w.message, LangGraphDeprecationWarning))
        print(w.message.since, w.message.expected_removal, w.filename == __file__ if "__file__" in globals() else w.filename)
print(agent.invoke({"messages": [{"role": "user", "content": "hi"}]})["messages"][-1].content)
"""


def test_create_react_agent_warns_as_langgraph_does() -> None:
    compare(CREATE_REACT_AGENT)
