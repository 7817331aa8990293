"""Two checkpoints of one cold-read history diff without decoding their common prefix
(issue 26: the studio reads a checkpoint and its parent)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.checkpoint import SqliteSaver
from engine.messages import HumanMessage
from studio.models.state_diff import diff_states
from tests.engine.test_checkpointers import _chat_graph


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
