"""The State dock: search (with next/previous), copy, the JSON tab, and a 10,000-message state."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from engine.lazy_list import LazyList
from engine.message_log import MessageList
from engine.messages import HumanMessage
from engine.serde import decode, encode
from engine.types import StateSnapshot
from studio.docks.state.view import StateDock
from studio.models.hub import Hub
from tests.studio.tt_studio import make_studio, seed_input


def test_search_copy_and_json_on_the_seed_state(qtbot: Any, qloop: Any) -> None:
    s = make_studio(qtbot)
    qloop.run_until_complete(s.agent.ainvoke(seed_input(), s.hub.config()))
    s.settle(qloop)
    dock = s.state
    qtbot.keyClicks(dock.search, "register")
    assert dock.match_label.text() == f"1 of {len(dock.matches)}" and len(dock.matches) > 3
    first = dock.selected_node()
    assert first is not None and "register" in first.to_json()
    qtbot.keyClick(dock.search, Qt.Key.Key_Return)
    assert dock.match_label.text() == f"2 of {len(dock.matches)}"
    qtbot.keyClick(dock.search, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert dock.match_label.text() == f"1 of {len(dock.matches)}"
    # the match's ancestors are expanded and it is the current row
    idx = dock.tree.currentIndex()
    assert dock.tree.isExpanded(idx.parent())
    # copy the current value
    assert dock.copy_selected() == first.to_json() == QGuiApplication.clipboard().text()
    todos = dock.model.tree.node_at(("todos",))
    dock.tree.setCurrentIndex(dock.model.index_of(todos))  # type: ignore[arg-type]
    assert json.loads(dock.copy_selected() or "") == [
        t for t in s.agent.get_state(s.hub.config()).values["todos"]
    ]
    # no match
    dock.search.setText("no such text anywhere")
    assert dock.match_label.text() == "no matches" and dock.matches == []
    # the JSON tab renders only when shown, highlighted
    assert dock.json_view.toPlainText() == ""
    dock.tabs.setCurrentWidget(dock.json_view)
    assert '"todos"' in dock.json_view.toPlainText() and "<span" in dock.json_view.toHtml()


def test_a_ten_thousand_message_state_renders_fast_and_expands(qtbot: Any) -> None:
    msgs = MessageList([HumanMessage(f"message {i}", id=f"m{i}") for i in range(10_000)])
    hub = Hub()
    hub.snapshot = lambda cid=None: StateSnapshot(  # type: ignore[method-assign]
        {"messages": msgs},
        (),
        {"configurable": {"checkpoint_id": "c"}},
        {"step": 9_999, "source": "loop"},
        None,
        None,
        (),
    )
    dock = StateDock(hub)
    qtbot.addWidget(dock)
    hub.select_checkpoint("c")
    assert dock.render_ms < 100
    assert dock.title.text() == "Step 9999 · loop · next: end"
    node = dock.model.tree.node_at(("messages",))
    dock.tree.expand(dock.model.index_of(node))  # type: ignore[arg-type]
    assert dock.model.rowCount(dock.model.index_of(node)) == 10_000  # type: ignore[arg-type]
    # searching a big state waits for typing to pause, Enter searches at once
    dock.search.setText("message 9999")
    assert dock.matches == []
    qtbot.keyClick(dock.search, Qt.Key.Key_Return)
    assert dock.match_label.text() == "1 of 1"
    assert dock.selected_node().path_text() == "messages[9999].content"  # type: ignore[union-attr]


def test_a_cold_read_history_decodes_only_the_rows_shown(qtbot: Any) -> None:
    """A checkpoint saver hands out a long history undecoded (``LazyList``): the dock shows
    it, expanded, decoding only the messages it draws (issue 26)."""
    texts = [
        json.dumps(encode(HumanMessage(f"message {i}", id=f"m{i}")), separators=(",", ":"))
        for i in range(10_000)
    ]
    msgs = LazyList.of_texts(
        [(True, texts)], lambda ts: [decode(json.loads(t.rstrip(","))) for t in ts]
    )
    hub = Hub()
    hub.snapshot = lambda cid=None: StateSnapshot(  # type: ignore[method-assign]
        {"messages": msgs},
        (),
        {"configurable": {"checkpoint_id": "c"}},
        {"step": 9_999, "source": "loop"},
        None,
        None,
        (),
    )
    dock = StateDock(hub)
    qtbot.addWidget(dock)
    dock.resize(600, 500)
    dock.show()
    qtbot.waitExposed(dock)
    hub.select_checkpoint("c")
    node = dock.model.tree.node_at(("messages",))
    dock.tree.expand(dock.model.index_of(node))  # type: ignore[arg-type]
    qtbot.waitUntil(lambda: msgs.pending < 10_000)  # the first rows are drawn
    assert dock.model.rowCount(dock.model.index_of(node)) == 10_000  # type: ignore[arg-type]
    assert msgs.pending > 9_800
    last = dock.model.tree.node_at(("messages", 9_999, "content"))
    assert last is not None and last.value == "message 9999" and msgs.pending > 9_800
