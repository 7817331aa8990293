"""Docs programs of built-in middleware options and decorators, real LangChain vs ported and
attached: ``TodoListMiddleware`` with its own prompt and tool description."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

TODO_LIST = """
from langchain.agents import create_agent
from langchain.agents.middleware import TodoListMiddleware, wrap_model_call
from langchain.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        self.seen.append(("bind", sorted(getattr(t, "name", None) or (t.get("name") if isinstance(t, dict) else None) or t["function"]["name"] for t in tools), kw.get("tool_choice")))
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.seen.append(("call", [(m.type, m.content if isinstance(m.content, str) else str(m.content)) for m in messages]))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)
@wrap_model_call
def show(request, handler):
    sm = request.system_message
    print("system_message", type(sm).__name__, sm.content if sm else None)
    print("system_prompt", repr(request.system_prompt))
    print("tools", [(t.name, t.description[:30]) for t in request.tools])
    return handler(request)
for sp in ["You are a planner.", None]:
    model = Scripted(messages=iter([
        AIMessage("", tool_calls=[{"name": "write_todos", "args": {"todos": [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "pending"}]}, "id": "t1"}]),
        AIMessage("", tool_calls=[{"name": "write_todos", "args": {"todos": [{"content": "a", "status": "completed"}]}, "id": "t2"}, {"name": "write_todos", "args": {"todos": []}, "id": "t3"}]),
        AIMessage("done"),
    ]))
    agent = create_agent(model, tools=[], system_prompt=sp, middleware=[TodoListMiddleware(system_prompt="Plan with todos.", tool_description="Write todos."), show], checkpointer=InMemorySaver())
    out = agent.invoke({"messages": [{"role": "user", "content": "plan"}]}, {"configurable": {"thread_id": "1"}})
    for m in out["messages"]:
        m.pretty_print()
    print(out.get("todos"))
    print(sorted(out))
    print(agent.get_state({"configurable": {"thread_id": "1"}}).values["todos"])
agent = create_agent(Scripted(messages=iter([AIMessage("ok")])), tools=[], middleware=[TodoListMiddleware()], checkpointer=InMemorySaver())
try:
    agent.invoke({"messages": [{"role": "user", "content": "x"}], "todos": [{"content": "z", "status": "pending"}]}, {"configurable": {"thread_id": "2"}})
    print(agent.get_state({"configurable": {"thread_id": "2"}}).values.get("todos"))
except Exception as e:
    print("ERR", type(e).__name__, e)
"""


def test_the_todo_prompt_is_a_block_of_the_system_message() -> None:
    compare(TODO_LIST)
