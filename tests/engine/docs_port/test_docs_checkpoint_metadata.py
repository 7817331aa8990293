"""A docs persistence program run on the real libraries, ported and attached
(``port.compare``): the checkpoints a saver keeps carry the run config's own ``metadata`` and
``configurable`` keys (strings, numbers, booleans; not the thread's address), in the history,
in a subgraph's state, after a resume and after an ``update_state``, as LangGraph's savers
store them."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

CONFIG_KEYS_IN_METADATA = """
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.types import interrupt, Command
from langgraph.checkpoint.memory import InMemorySaver
class S(TypedDict):
    log: Annotated[list[str], operator.add]
def ask(s):
    return {"log": [interrupt("q")]}
sb = StateGraph(S); sb.add_node("ask", ask); sb.add_edge(START, "ask")
pb = StateGraph(S); pb.add_node("first", lambda s: {"log": ["first"]}); pb.add_node("child", sb.compile()); pb.add_edge(START, "first"); pb.add_edge("first", "child")
g = pb.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1", "user": "u"}}
g.invoke({"log": []}, {**cfg, "metadata": {"tag": "x", "n": 3, "obj": [1]}})
for h in g.get_state_history(cfg):
    print(sorted(h.metadata), h.metadata.get("tag"), h.metadata.get("user"), sorted(h.config["configurable"]), h.config["configurable"]["checkpoint_ns"])
    print("  ", [(t.name, t.result, [i.value for i in t.interrupts], t.error) for t in h.tasks])
st = g.get_state(cfg, subgraphs=True)
sub = st.tasks[0].state
print(sorted(sub.config["configurable"]), sub.config["configurable"]["checkpoint_ns"].split(":")[0], sub.metadata["source"], sub.metadata["step"], sorted(sub.metadata))
print(sub.parent_config["configurable"]["checkpoint_ns"].split(":")[0] if sub.parent_config else None)
g.invoke(Command(resume="ans"), cfg)
st = g.get_state(cfg)
print(st.values, st.metadata["source"], st.metadata["step"], st.tasks)
g.update_state({"configurable": {"thread_id": "1", "who": "editor", "n": 1.5}}, {"log": ["edited"]})
st = g.get_state(cfg)
print(sorted(st.metadata.items(), key=str))
print([sorted(h.metadata) for h in g.get_state_history(cfg, limit=2)])
"""


def test_checkpoint_metadata_carries_the_run_configs_keys() -> None:
    compare(CONFIG_KEYS_IN_METADATA)
