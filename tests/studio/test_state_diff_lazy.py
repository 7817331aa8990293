"""Two checkpoints of one cold-read history diff without decoding their common prefix
(issue 26: the studio reads a checkpoint and its parent)."""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Annotated, Any

from typing_extensions import TypedDict

from engine.checkpoint import SqliteSaver
from engine.messages import HumanMessage
from studio.models.state_diff import diff_states
from tests.engine.test_checkpointers import _chat_graph


class _Log(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


def _cold_parent_and_child(tmp_path: Path) -> tuple[Any, Any]:
    """The last two checkpoints of a 200-turn chat thread, read by a fresh saver (cold)."""
    cfg = {"configurable": {"thread_id": "1"}}
    g = _chat_graph(SqliteSaver(tmp_path / "c.sqlite"))
    for i in range(200):
        g.invoke({"messages": [HumanMessage(f"q{i}")]}, cfg)
    fresh = _chat_graph(SqliteSaver(tmp_path / "c.sqlite"))
    child = fresh.get_state(cfg)
    return fresh.get_state(child.parent_config), child


def test_parent_and_child_of_a_cold_read_diff_in_new_messages_only(tmp_path: Path) -> None:
    parent, child = _cold_parent_and_child(tmp_path)
    before, after = parent.values["messages"], child.values["messages"]
    assert len(after) == len(before) + 1 == 400
    diff = diff_states(parent.values, child.values)
    assert [(m.kind, m.index, m.after.content) for m in diff.messages] == [
        ("appended", 399, "reply 399")
    ]
    assert before.pending > 390 and after.pending > 390


def test_views_of_a_cold_read_history_diff_without_decoding_their_common_prefix(
    tmp_path: Path,
) -> None:
    """A recorded session hands its message histories out as views (``MessageList``) over
    the lists the saver read: the common prefix is still told from the shared stored items
    (it decoded every message of both: 1-2 s for one selection at 10,000 messages)."""
    from engine.message_log import MessageList

    parent, child = _cold_parent_and_child(tmp_path)
    before, after = parent.values["messages"], child.values["messages"]
    diff = diff_states(
        {"messages": MessageList.over(before)}, {"messages": MessageList.over(after)}
    )
    assert [(m.kind, m.index, m.after.content) for m in diff.messages] == [
        ("appended", 399, "reply 399")
    ]
    assert before.pending > 390 and after.pending > 390


def test_an_appended_list_of_plain_values_diffs_as_a_value_not_as_messages(
    tmp_path: Path,
) -> None:
    """An ``operator.add`` channel of strings, read back from a recorded session, is an
    ``AppendLog`` as a message history is: the Diff dock shows it as a value that grew (it
    took every ``AppendLog`` for messages and failed on the first string)."""
    from engine import END, START, StateGraph
    from engine.message_log import AppendLog
    from engine.recording import Session, SessionRecorder

    path = tmp_path / "log.stepwise"
    rec = SessionRecorder(path)
    graph = (
        StateGraph(_Log)
        .add_node("step", lambda s: {"n": s["n"] + 1, "log": [f"step {s['n']}"]})
        .add_edge(START, "step")
        .add_conditional_edges("step", lambda s: END if s["n"] >= 40 else "step", ["step", END])
        .compile(checkpointer=rec.checkpointer)
    )
    graph.invoke({"n": 0, "log": []}, {"configurable": {"thread_id": "t"}})
    rec.close()
    with Session.open(path) as session:
        tip = session.checkpoints("t")[-1]
        after = session.state("t", tip.checkpoint_id)
        before = session.state("t", tip.parent_id)
        assert isinstance(after["log"], AppendLog)
        diff = diff_states(before, after)
    assert diff.messages == ()
    assert [(c.path, c.kind) for c in diff.keys] == [("n", "changed"), ("log", "changed")]
    assert diff.keys[1].after[-1] == "step 39"
