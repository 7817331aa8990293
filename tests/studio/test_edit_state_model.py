"""StateEdit: schema validation, message edits and the update_state values it builds."""

from __future__ import annotations

import asyncio
import json
import operator
from typing import Annotated, Any, TypedDict

from engine.checkpoint import InMemorySaver
from engine.graph import START, StateGraph
from engine.messages import AIMessage, RemoveMessage
from studio.history.timetravel import aapply_edit, aresume_from, default_as_node
from studio.models.state_edit import StateEdit
from studio.models.timeline import TimelineModel
from tests.studio.tt_agents import build_seed, seed_input


def _seed_at_pending_tool_call() -> tuple[Any, TimelineModel, str]:
    """The seed run stopped right after the model asked for create_file(login.tsx)."""
    seed = build_seed()
    timeline = TimelineModel("seed")
    seed.agent.subscribe(lambda ev: timeline.apply_events([ev]))
    seed.agent.invoke(seed_input(), seed.config())
    main = timeline.main
    assert main is not None
    node = next(
        n for n in main.nodes if n.writers == ("model",) and n.step is not None and n.step > 3
    )
    return seed, timeline, node.checkpoint_id


def test_values_document_and_schema_errors() -> None:
    seed, _, cid = _seed_at_pending_tool_call()
    snap = seed.agent.get_state(seed.config(checkpoint_id=cid))
    edit = StateEdit(snap.values, seed.agent)
    doc = json.loads(edit.values_text())
    assert list(doc) == ["todos"]  # messages have their own tab; jump_to is private
    # valid edit
    doc["todos"][0]["status"] = "completed"
    values, issues = edit.check_values(json.dumps(doc))
    assert issues == [] and values is not None
    assert edit.build_update(values) == {"todos": doc["todos"]}
    # schema error with its path
    doc["todos"][1]["status"] = "done"
    values, issues = edit.check_values(json.dumps(doc))
    assert values is None
    assert [i.text() for i in issues] == [
        "todos[1].status: Input should be 'pending', 'in_progress' or 'completed'"
    ]
    # syntax error with line and column
    _, issues = edit.check_values('{\n  "todos": [,]\n}')
    assert issues[0].line == 2 and issues[0].column == 13
    assert issues[0].text().startswith("line 2, column 13: Invalid JSON")
    # unknown and removed keys
    _, issues = edit.check_values('{"todo": []}')
    texts = [i.text() for i in issues]
    assert texts[0].startswith("Unknown key 'todo': the state schema has ")
    assert "'todos' cannot be removed from the state; set it to null instead" in texts


def test_message_edits_and_deletions_become_replacements_and_removals() -> None:
    seed, _, cid = _seed_at_pending_tool_call()
    edit = StateEdit(seed.agent.get_state(seed.config(checkpoint_id=cid)).values, seed.agent)
    last = len(edit.messages) - 1
    assert edit.message(last).tool_calls[0]["args"] == {"path": "login.tsx"}  # type: ignore[attr-defined]
    data = json.loads(edit.message_text(last))
    data["tool_calls"][0]["args"]["path"] = "signin.tsx"
    msg, issues = edit.check_message(last, json.dumps(data))
    assert issues == [] and msg is not None
    edit.set_message(last, msg)
    assert edit.message_label(last).startswith(f'✎ {last}  ai → create_file(path="signin.tsx")')
    # a changed id or a bad shape is refused
    bad = dict(data, id="other")
    assert edit.check_message(last, json.dumps(bad))[1][0].text().startswith("Keep the message id")
    assert (
        edit.check_message(last, '{"type": "robot"}')[1][0]
        .text()
        .startswith("A message is an object")
    )
    data["tool_calls"][0]["args"] = "not an object"
    assert edit.check_message(last, json.dumps(data))[0] is None
    # delete the tool message of write_todos
    edit.toggle_deleted(2)
    update = edit.build_update(json.loads(edit.values_text()))
    (replaced, removed) = update["messages"]
    assert isinstance(replaced, AIMessage) and replaced.tool_calls[0]["args"] == {
        "path": "signin.tsx"
    }
    assert isinstance(removed, RemoveMessage) and removed.id == edit.messages[2].id
    assert "todos" not in update


def test_edit_as_model_removing_the_pending_tool_call_ends_the_run_without_the_tool() -> None:
    seed, timeline, cid = _seed_at_pending_tool_call()
    node = timeline.get(cid)
    assert default_as_node(node, seed.agent) == "model"
    files_before = list(seed.files)
    edit = StateEdit(seed.agent.get_state(seed.config(checkpoint_id=cid)).values, seed.agent)
    last = len(edit.messages) - 1
    edit.remove_tool_call(last, 0)
    update = edit.build_update(json.loads(edit.values_text()))
    new_id = asyncio.run(aapply_edit(seed.agent, "seed", cid, update, "model"))
    snap = seed.agent.get_state(seed.config(checkpoint_id=new_id))
    assert snap.metadata["source"] == "update"
    assert snap.values["messages"][-1].tool_calls == []
    assert timeline.get(new_id).branch.id == 1  # type: ignore[union-attr]  # a fork: cid was not the tip
    out = asyncio.run(aresume_from(seed.agent, "seed", new_id))
    assert seed.files == files_before  # create_file did not run again
    assert seed.agent.get_state(seed.config()).next == ()
    assert out["messages"][-1].tool_calls == []


class _Log(TypedDict):
    log: Annotated[list[str], operator.add]
    total: Annotated[int, lambda a, b: a + b]
    label: str


def test_reducer_channels_append_or_refuse() -> None:
    b = StateGraph(_Log)
    b.add_node("x", lambda s: {"log": ["x"], "total": 1, "label": "x"})
    b.add_edge(START, "x")
    g = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    g.invoke({"log": [], "total": 0, "label": ""}, cfg)
    edit = StateEdit(g.get_state(cfg).values, g)
    assert edit.messages_key is None
    values, issues = edit.check_values(json.dumps({"log": ["x", "y"], "total": 1, "label": "z"}))
    assert issues == []
    assert edit.build_update(values) == {"log": ["y"], "label": "z"}  # type: ignore[arg-type]
    _, issues = edit.check_values(json.dumps({"log": ["y"], "total": 1, "label": "x"}))
    assert [i.text() for i in issues] == [
        "'log' only grows (operator.add): keep its items and append new ones"
    ]
    _, issues = edit.check_values(json.dumps({"log": ["x"], "total": 5, "label": "x"}))
    assert [i.text() for i in issues] == [
        "'total' is combined by a reducer and cannot be set directly"
    ]
    new_id = asyncio.run(aapply_edit(g, "t", None, {"log": ["y"], "label": "z"}, "x"))
    assert g.get_state({"configurable": {"thread_id": "t", "checkpoint_id": new_id}}).values[
        "log"
    ] == ["x", "y"]
