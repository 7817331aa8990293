"""``LLMToolSelectorMiddleware`` docs programs, real LangChain vs ported: the selection model is
asked through its own ``with_structured_output`` with the schema of the tool names and
LangChain's prompt; caps, ``always_include``, malformed answers retried, then
``on_parsing_failure``; unknown names; the agent's own model selecting, async."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

PROGRAM = """
from langchain.agents import create_agent
from langchain.agents.middleware import LLMToolSelectorMiddleware
from langchain.messages import AIMessage
from langchain.tools import tool
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        self.seen.append(("bind", sorted(str(getattr(t, "name", None) or (t.get("name") or t.get("title") or t.get("function", {}).get("name") if isinstance(t, dict) else t)) for t in tools), sorted(kw)))
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.seen.append(("call", [(m.type, m.content if isinstance(m.content, str) else str(m.content)) for m in messages]))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)
class Selector(Scripted):
    def with_structured_output(self, schema, **kw):
        print("asked with schema", schema if isinstance(schema, dict) else schema.__name__, kw)
        return super().with_structured_output(schema, **kw)
@tool
def weather(city: str) -> str:
    '''Get weather.'''
    return "sunny"
@tool
def stocks(sym: str) -> str:
    '''Get stock.'''
    return "up"
@tool
def news(q: str) -> str:
    '''Get news.'''
    return "nothing"
def pick(*names, id="s", text=""):
    return AIMessage(text, tool_calls=[{"name": "ToolSelectionResponse", "args": {"tools": list(names)}, "id": id}])
cases = [
    ("picks", dict(max_tools=2, always_include=["news"]), [pick("stocks", "weather", "stocks")]),
    ("malformed then good", dict(), [AIMessage("no idea"), pick("news")]),
    ("malformed twice", dict(), [AIMessage("no idea"), AIMessage("still")]),
    ("malformed, all", dict(on_parsing_failure="all", max_retries=0), [AIMessage("no idea")]),
    ("malformed, callable", dict(on_parsing_failure=lambda r: ["news"] if r is None else [], max_retries=0), [AIMessage("no idea")]),
    ("invalid name", dict(), [pick("nope")]),
    ("system prompt", dict(system_prompt="Pick tools.", max_tools=1), [pick("news", "weather")]),
]
for label, kw, answers in cases:
    print("==", label)
    model = Scripted(messages=iter([AIMessage("ok")]))
    model.seen.clear()
    sel = Selector(messages=iter(answers))
    agent = create_agent(model, tools=[weather, stocks, news], middleware=[LLMToolSelectorMiddleware(model=sel, **kw)])
    try:
        out = agent.invoke({"messages": [{"role": "user", "content": "weather?"}]})
        print([m.content for m in out["messages"]])
    except Exception as e:
        print("ERR", type(e).__name__, e)
    for s in model.seen + sel.seen:
        print(s[0], str(s[1])[:600])
print("== agent's own model selects, async")
import asyncio
model = Selector(messages=iter([pick("weather"), AIMessage("fine")]))
agent = create_agent(model, tools=[weather, stocks], middleware=[LLMToolSelectorMiddleware()])
out = asyncio.run(agent.ainvoke({"messages": [{"role": "user", "content": "weather?"}]}))
print([m.content for m in out["messages"]])
"""


def test_the_selection_model_is_asked_as_langchain_asks_it() -> None:
    compare(PROGRAM)
