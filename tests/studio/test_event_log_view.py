"""The Events dock: the Qt model over the span tree (qtmodeltester, batching, laziness) and the
real widget driven through a Hub (filters, details pane, follow/autoscroll, select_seq)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, Qt

from engine.events import EventBase, NodeStarted, Route, ToolFinished, ToolStarted
from studio.docks.events.view import EventLogDock
from studio.look.tones import tones_for
from studio.models.event_filter import EventFilter
from studio.models.hub import Hub
from studio.qtmodels.event_tree import EventTreeModel
from tests.studio.event_samples import AgentScript, seed000_events, synthetic_stream
from tests.studio.test_event_tree import parallel_tools


def batches(events: list[EventBase], size: int) -> list[list[EventBase]]:
    return [events[i : i + size] for i in range(0, len(events), size)]


def all_indexes(model: EventTreeModel, parent: QModelIndex | None = None) -> list[QModelIndex]:
    parent = parent or QModelIndex()
    if model.canFetchMore(parent):
        model.fetchMore(parent)
    out = []
    for r in range(model.rowCount(parent)):
        idx = model.index(r, 0, parent)
        out.append(idx)
        out.extend(all_indexes(model, idx))
    return out


# -- the model -----------------------------------------------------------------------------------


def test_model_passes_qtmodeltester_while_events_stream_in(qapp: Any, qtmodeltester: Any) -> None:
    model = EventTreeModel()
    qtmodeltester.check(model)  # also re-checks on every insert/dataChanged signal below
    for batch in batches(seed000_events(tokens=4), 9):
        model.add_events(batch)
    qtmodeltester.check(model)
    assert model.rowCount() == 1 and model.columnCount() == 5  # Event, Node, Time, Duration, Cost
    rows = [model.row_at(i) for i in all_indexes(model)]
    assert len(rows) == len(model.tree.rows)


def test_model_passes_qtmodeltester_with_a_filter_and_mid_list_reveals(
    qapp: Any, qtmodeltester: Any
) -> None:
    s = AgentScript()
    parallel_tools(s)
    model = EventTreeModel()
    model.add_events(s.events[:3])
    model.set_filter(EventFilter(text="fetch"))
    qtmodeltester.check(model)
    from engine.events import ModelToken

    s.point(ModelToken, parent_span_id=model.tree.rows[1].event.span_id, model="m", text="fetch")
    model.add_events(s.events[-1:])  # reveals the first tool call *before* the visible second
    qtmodeltester.check(model)
    node = model.index(0, 0)
    assert [model.index(r, 0, node).data()[:11] for r in range(model.rowCount(node))] == [
        "tool search",
        "tool fetch(",
    ]


def test_inserts_are_batched_per_parent_not_per_event(qtbot: Any) -> None:
    s = AgentScript()
    s.open(NodeStarted, node="model", task_id="t")
    model = EventTreeModel()
    model.add_events(s.events)
    for i in range(300):
        s.point(Route, from_node="model", to=[f"n{i}"])
    inserted: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda _p, first, last: inserted.append((first, last)))
    model.add_events(s.events[1:])
    assert inserted == [(0, 299)]
    assert model.rowCount(model.index(0, 0)) == 300


def test_rows_closing_emit_one_data_change_range_per_parent(qapp: Any) -> None:
    s = AgentScript()
    s.open(NodeStarted, node="tools", task_id="t")
    spans = []
    for i in range(5):  # five parallel tool calls, all open
        spans.append(s.open(ToolStarted, tool=f"t{i}", tool_call_id=f"c{i}"))
        s._stack.pop()
    model = EventTreeModel()
    model.add_events(s.events)
    for i in (1, 3, 2):
        s.point(ToolFinished, span_id=spans[i], tool=f"t{i}", tool_call_id=f"c{i}")
    changed: list[tuple[int, int, int, int]] = []
    model.dataChanged.connect(
        lambda a, b, *_: changed.append((a.row(), b.row(), a.column(), b.column()))
    )
    model.add_events(s.events[-3:])
    assert changed == [(1, 3, 0, 4)]  # every column, Cost included
    assert [model.index(r, 0, model.index(0, 0)).data()[-1] for r in range(5)] == list("…✓✓✓…")


def test_huge_trees_are_fetched_lazily(qapp: Any) -> None:
    model = EventTreeModel()
    model.tree.add_batch(list(synthetic_stream(30_000)))  # filled before Qt looks
    model.set_filter(EventFilter())
    run = model.index(0, 0)
    assert model.rowCount() == 1 and model.hasChildren(run)
    assert model.rowCount(run) == 0 and model.canFetchMore(run)
    model.fetchMore(run)
    supersteps = model.rowCount(run)
    assert supersteps == len(model.tree.children(model.tree.rows[0])) > 500
    step = model.index(supersteps - 1, 0, run)
    assert model.rowCount(step) == 0 and model.canFetchMore(step)
    last = model.tree.rows[-1]
    idx = model.index_of(last)  # exposes just the path to it
    assert idx.isValid() and model.row_at(idx) is last
    assert idx.parent().parent().parent() == QModelIndex() or idx.parent().isValid()


def test_failed_rows_are_red_and_flag_their_ancestors(qapp: Any) -> None:
    model = EventTreeModel()
    model.add_events(seed000_events())
    failed = next(r for r in model.tree.rows if r.kind == "attempt.started" and r.failed)
    idx = model.index_of(failed)
    tones = tones_for(qapp.palette())
    assert idx.data(Qt.ItemDataRole.ForegroundRole).color() == tones.failed
    assert idx.data(Qt.ItemDataRole.BackgroundRole).color() == tones.failed_fill
    assert idx.data(EventTreeModel.FailedRole) == 2
    assert idx.parent().data(EventTreeModel.FailedRole) == 1
    assert idx.parent().data(Qt.ItemDataRole.BackgroundRole) is None
    assert "Contains a failure" in idx.parent().data(Qt.ItemDataRole.ToolTipRole)
    assert "TimeoutError: model timed out" in idx.data(Qt.ItemDataRole.ToolTipRole)
    assert not idx.data(Qt.ItemDataRole.DecorationRole).isNull()
    assert idx.siblingAtColumn(1).data() == "model"
    assert idx.siblingAtColumn(3).data() == "3.0 ms"  # no duration_ms: from mono_ns


# -- the widget -----------------------------------------------------------------------------------


@pytest.fixture
def dock(qtbot: Any) -> EventLogDock:
    hub = Hub()
    widget = EventLogDock(hub)
    qtbot.addWidget(widget)
    widget.resize(900, 600)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def feed(dock: EventLogDock, qtbot: Any, events: list[EventBase], size: int = 50) -> None:
    for batch in batches(events, size):
        dock.hub.add_events(batch)
    qtbot.waitUntil(lambda: not dock.busy)


def visible_rows(dock: EventLogDock) -> list[Any]:
    return [dock.model.row_at(i) for i in all_indexes(dock.model)]


def test_a_batch_reaches_qt_while_the_hub_hands_it_out(dock: EventLogDock, qtbot: Any) -> None:
    """No timer between the hub and the rows: they are inserted in the event-loop pass that
    brought the batch, and painted with every other view's update of that pass."""
    inserted: list[int] = []
    dock.model.rowsInserted.connect(lambda *_a: inserted.append(dock.tree.event_count))
    events = seed000_events(tokens=2)
    dock.hub.add_events(events[:12])  # no event processed since: only what the call did
    assert inserted and inserted[-1] == 12
    assert not dock.busy and dock.model.rowCount() == 1


def test_dock_ingests_hub_batches_in_slices(dock: EventLogDock, qtbot: Any) -> None:
    events = list(synthetic_stream(6000))
    dock.hub.add_events(events)  # one huge batch: a first slice at once, the rest later
    assert dock.tree.event_count >= dock.CHUNK
    assert dock.tree.event_count + dock.pending == 6000
    qtbot.waitUntil(lambda: not dock.busy)
    assert dock.tree.event_count == 6000
    assert "6,000 events" in dock.status.text()
    dock.hub.reset()
    assert dock.tree.event_count == 0 and dock.model.rowCount() == 0


def test_filter_by_text_kind_and_node(dock: EventLogDock, qtbot: Any) -> None:
    feed(dock, qtbot, seed000_events(tokens=3))
    dock.set_filter_text("no space left")
    qtbot.waitUntil(lambda: not dock.busy)
    rows = visible_rows(dock)
    assert [r.kind for r in rows if r.failed] == ["attempt.started", "tool.started"]
    assert "filtered" in dock.status.text()
    dock.clear_filter()
    qtbot.waitUntil(lambda: not dock.busy)
    dock.set_kinds({"attempt"})
    qtbot.waitUntil(lambda: not dock.busy)
    attempts = [r for r in visible_rows(dock) if r.kind == "attempt.started"]
    assert len(attempts) == 9 and not any(r.kind == "tool.started" for r in visible_rows(dock))
    assert dock.filter_bar.kinds_button.text() == "Kinds (1)"
    dock.clear_filter()
    dock.filter_node("tools")
    qtbot.waitUntil(lambda: not dock.busy)
    nodes = {r.node for r in visible_rows(dock) if r.kind != "run.started" and r.node}
    assert nodes == {"tools"}
    assert dock.filter_bar.node_combo.currentText() == "tools"
    dock.filter_node(None)
    qtbot.waitUntil(lambda: not dock.busy)
    assert len(visible_rows(dock)) == len(dock.tree.rows)


def test_filter_bar_offers_the_nodes_and_middleware_seen(dock: EventLogDock, qtbot: Any) -> None:
    feed(dock, qtbot, seed000_events())
    combo = dock.filter_bar.node_combo
    assert [combo.itemText(i) for i in range(combo.count())] == ["All nodes", "model", "tools"]
    mw = dock.filter_bar.middleware_combo
    assert {mw.itemText(i) for i in range(1, mw.count())} == {
        "TodoListMiddleware",
        "ModelRetryMiddleware",
        "ToolRetryMiddleware",
    }
    mw.setCurrentText("ToolRetryMiddleware")
    qtbot.waitUntil(lambda: not dock.busy)
    inner = [r for r in visible_rows(dock) if r.kind == "tool.started"]
    assert len(inner) == 4
    assert not any(r.kind == "model.request" for r in visible_rows(dock))


def test_details_pane_shows_the_selected_events_highlighted_json(
    dock: EventLogDock, qtbot: Any
) -> None:
    events = seed000_events()
    feed(dock, qtbot, events)
    failed = next(r for r in dock.tree.rows if r.kind == "attempt.started" and r.failed)
    end = failed.end
    assert end is not None
    assert dock.select_seq(end.seq)  # the closer's seq selects its span row
    assert dock.selected_row() is failed
    html = dock.details.toHtml()
    text = dock.details.toPlainText()
    assert f"#{failed.event.seq} attempt.started" in text
    assert f"#{end.seq} attempt.finished" in text
    assert '"will_retry": true' in text and '"delay_s": 1.0' in text
    assert "TimeoutError" in text
    assert "color:#" in html.replace(" ", "")  # pygments spans survived into the document
    assert text.index('"kind"') < text.index('"middleware"') < text.index('"run_id"')
    dock.view.setCurrentIndex(QModelIndex())
    assert dock.details.toPlainText() == ""


def test_select_seq_clears_a_filter_that_hides_the_event(dock: EventLogDock, qtbot: Any) -> None:
    events = seed000_events()
    feed(dock, qtbot, events)
    dock.filter_node("tools")
    qtbot.waitUntil(lambda: not dock.busy)
    model_call = next(e for e in events if e.kind == "model.request")
    assert dock.select_seq(model_call.seq)
    assert dock.selected_row() is not None and dock.selected_row().kind == "model.request"
    assert dock.filter_bar.node_combo.currentIndex() == 0
    assert not dock.select_seq(99_999)


def test_follow_scrolls_to_new_events_only_at_the_bottom(dock: EventLogDock, qtbot: Any) -> None:
    events = list(synthetic_stream(4000))
    bar = dock.view.verticalScrollBar()
    feed(dock, qtbot, events[:2000])
    assert bar.maximum() > 0 and bar.value() == bar.maximum()
    newest = dock.tree.rows[-1]
    assert dock.view.isExpanded(dock.model.index_of(newest.parent))
    first_step = next(r for r in dock.tree.rows if r.kind == "superstep.started")
    assert not dock.view.isExpanded(dock.model.index_of(first_step))  # collapsed again
    bar.setValue(0)  # the user scrolls up: nothing moves under them
    feed(dock, qtbot, events[2000:3000])
    assert bar.value() == 0
    bar.setValue(bar.maximum())
    feed(dock, qtbot, events[3000:3500])
    assert bar.value() == bar.maximum()
    dock.filter_bar.follow_button.click()  # off
    assert not dock.follow
    bar.setValue(bar.maximum() // 2)
    before = bar.value()
    feed(dock, qtbot, events[3500:])
    assert bar.value() == before


def test_rows_the_user_expanded_are_never_collapsed_by_follow(
    dock: EventLogDock, qtbot: Any
) -> None:
    events = list(synthetic_stream(1500))
    feed(dock, qtbot, events[:400])
    first_step = next(r for r in dock.tree.rows if r.kind == "superstep.started")
    idx = dock.model.index_of(first_step)
    dock.view.expand(idx)
    feed(dock, qtbot, events[400:])
    assert dock.view.isExpanded(dock.model.index_of(first_step))
