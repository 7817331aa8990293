"""The Store dock: namespaces, items and values of the agent's store; what each run read and
wrote; search and filter; disk stores read off the UI thread; recorded sessions."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from engine.recording import SessionRecorder
from engine.store import InMemoryStore, SqliteStore
from studio.models.hub import Hub
from studio.run.agent_source import with_saver
from tests.studio.app_agents import make_window, run_until
from tests.studio.store_agents import memory_agent, memory_input, seed


def _rows(dock: Any) -> dict[str, tuple[str, str]]:
    """key@namespace -> (marks, namespace) of the rows shown."""
    out = {}
    for i in range(dock.items.topLevelItemCount()):
        item = dock.items.topLevelItem(i)
        out[f"{item.text(0)}@{item.text(1)}"] = (item.text(2), item.text(1))
    return out


def _ns_labels(dock: Any) -> list[str]:
    labels = []

    def walk(item: Any, depth: int) -> None:
        labels.append("  " * depth + item.text(0))
        for i in range(item.childCount()):
            walk(item.child(i), depth + 1)

    for i in range(dock.ns_tree.topLevelItemCount()):
        walk(dock.ns_tree.topLevelItem(i), 0)
    return labels


def _run_agent(qtbot: Any, qloop: Any, tmp_path: Path, store: Any) -> Any:
    window = make_window(qtbot, tmp_path)
    window.resize(1366, 768)
    window.controller.load_factory(lambda: (memory_agent(store), memory_input()), "memory")
    dock = window.docks["store"].widget()
    window.docks["store"].raise_()
    window.controller.start()
    run_until(qloop, lambda: window.hub.status == "done")
    qtbot.waitUntil(lambda: "facts@users/u1" in _rows(dock))
    return window, dock


def test_the_dock_shows_the_store_and_marks_what_the_run_did(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    store = InMemoryStore()
    seed(store)
    window, dock = _run_agent(qtbot, qloop, tmp_path, store)
    assert _ns_labels(dock) == [
        "(all) · 4",
        "  docs · 1",
        "  users · 3",
        "    u1 · 2",
        "    u2 · 1",
    ]
    rows = _rows(dock)
    assert rows["facts@users/u1"][0] == "RW"  # read (missing), then written
    assert rows["prefs@users/u1"][0] == "R"  # read by get and returned by the search
    assert rows["prefs@users/u2"][0] == ""  # not touched
    assert rows["readme@docs"][0] == ""
    assert rows["scratch@users/u1"][0] == "D"  # deleted: gone, but shown as deleted
    assert dock.run_combo.currentText() == "Run 1 (2 read, 1 written, 1 deleted, 1 search)"
    # the value of the selected item, as a JSON tree
    facts = next(
        dock.items.topLevelItem(i)
        for i in range(dock.items.topLevelItemCount())
        if dock.items.topLevelItem(i).text(0) == "facts"
    )
    dock.items.setCurrentItem(facts)
    model = dock.value_model
    keys = [model.data(model.index(r, 0)) for r in range(model.rowCount())]
    assert keys == ["facts", "theme"]
    # only the run's items
    qtbot.mouseClick(dock.only_touched, Qt.MouseButton.LeftButton)
    assert set(_rows(dock)) == {"facts@users/u1", "prefs@users/u1", "scratch@users/u1"}
    window.close()


def test_search_filter_and_namespace_narrow_the_items(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    store = InMemoryStore()
    seed(store)
    window, dock = _run_agent(qtbot, qloop, tmp_path, store)
    reads = dock.reads
    qtbot.keyClicks(dock.filter_edit, '{"theme": "dark"}')
    qtbot.keyClick(dock.filter_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dock.reads > reads)
    assert set(_rows(dock)) == {"prefs@users/u1", "facts@users/u1"}
    # a bad filter: one line, nothing lost
    before = _rows(dock)
    dock.filter_edit.setText('{"theme": ')
    qtbot.keyClick(dock.filter_edit, Qt.Key.Key_Return)
    assert dock.error_label.isVisible() or not dock.isVisible()
    assert dock.error_label.text().startswith("The filter is not valid JSON")
    assert "\n" not in dock.error_label.text()
    assert _rows(dock) == before
    dock.filter_edit.clear()
    qtbot.keyClick(dock.filter_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "readme@docs" in _rows(dock))
    assert not dock.error_label.isVisible()
    # search by words of the values
    dock.search_edit.setText("read")
    qtbot.waitUntil(lambda: set(_rows(dock)) == {"readme@docs"})
    dock.search_edit.clear()
    qtbot.waitUntil(lambda: "prefs@users/u2" in _rows(dock))
    # a namespace in the tree narrows to it
    users = dock.ns_tree.topLevelItem(0).child(1)
    u2 = users.child(1)
    assert u2.text(0) == "u2 · 1"
    dock.ns_tree.setCurrentItem(u2)
    qtbot.waitUntil(lambda: set(_rows(dock)) == {"prefs@users/u2"})
    window.close()


def test_a_disk_store_is_read_on_a_worker_thread(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "memory.db")
    seed(store)
    threads: list[str] = []
    real = store.search

    def spy(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return real(*args, **kwargs)

    store.search = spy  # type: ignore[method-assign]
    window, dock = _run_agent(qtbot, qloop, tmp_path, store)
    ui = [t for t in threads if t == "stepwise-store-read"]
    assert ui, threads  # the dock's reads ran on its reader thread
    assert "MainThread" not in [t for t in threads if t.startswith("stepwise-store")]
    assert dock.source_label.text().startswith("SqliteStore (live)")
    window.close()
    store.close()


def test_a_recorded_session_shows_what_its_runs_read_and_wrote(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    from studio.docks.store import StoreDock
    from studio.history.replay import open_session

    path = tmp_path / "memory.stepwise"
    rec = SessionRecorder(path)
    store = InMemoryStore()
    seed(store)
    graph = with_saver(memory_agent(store), rec.checkpointer)
    rec.attach(graph)
    qloop.run_until_complete(graph.ainvoke(memory_input(), {"configurable": {"thread_id": "t"}}))
    rec.close()

    hub = Hub()
    dock = StoreDock(hub)
    qtbot.addWidget(dock)
    opened = open_session(hub, path)
    qloop.run_until_complete(opened.afeed_rest())
    qtbot.waitUntil(lambda: "facts@users/u1" in _rows(dock))
    assert dock.source_label.text().startswith("recorded reads and writes (from the session)")
    rows = _rows(dock)
    assert rows["facts@users/u1"][0] == "RW"
    assert rows["scratch@users/u1"][0] == "D"
    assert "readme@docs" not in rows  # written before any recorded run, never read: not in it
    # written before the run, read by it: shown as the run read it
    assert rows["prefs@users/u1"][0] == "R"
    assert {r.address: r.value for r in dock.rows}[(("users", "u1"), "prefs")] == {
        "theme": "dark",
        "lang": "nb",
    }


def test_a_narrow_dock_picks_the_namespace_from_a_drop_down(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    store = InMemoryStore()
    seed(store)
    window, dock = _run_agent(qtbot, qloop, tmp_path, store)
    dock.resize(420, 300)
    qtbot.waitUntil(lambda: dock.ns_combo.isVisible() or not dock.isVisible())
    assert dock.ns_tree.isHidden()
    labels = [dock.ns_combo.itemText(i).strip() for i in range(dock.ns_combo.count())]
    assert labels == ["(all) · 4", "docs · 1", "users · 3", "u1 · 2", "u2 · 1"]
    dock.ns_combo.setCurrentIndex(4)
    dock.ns_combo.activated.emit(4)
    qtbot.waitUntil(lambda: set(_rows(dock)) == {"prefs@users/u2"})
    dock.resize(900, 400)
    qtbot.waitUntil(lambda: not dock.ns_tree.isHidden())
    window.close()


def test_the_search_box_finds_words_in_any_store_and_ranks_by_an_index() -> None:
    """A store without a semantic index ignores a search's query (LangGraph's and ours): the
    dock looks for the words in the values itself; with an index, the store ranks."""
    import pytest

    from studio.models.store_view import LiveStoreSource

    lg_memory = pytest.importorskip("langgraph.store.memory")
    for store in (lg_memory.InMemoryStore(), InMemoryStore()):
        store.put(("docs",), "readme", {"text": "Read me first"})
        store.put(("docs",), "todo", {"text": "buy tea"})
        assert [r.key for r in store.search(("docs",), query="read")] == ["readme", "todo"]
        source = LiveStoreSource(store)
        assert [r.key for r in source.search(("docs",), "READ")] == ["readme"]
        assert [r.key for r in source.search(("docs",), "tea coffee", limit=1)] == ["todo"]
        assert [r.key for r in source.search(("docs",))] == ["readme", "todo"]

    def embed(texts: list[str]) -> list[list[float]]:
        return [[t.lower().count("tea") + 0.1, 1.0] for t in texts]

    indexed = InMemoryStore(index={"embed": embed, "dims": 2, "fields": ["text"]})
    indexed.put(("docs",), "readme", {"text": "Read me first"})
    indexed.put(("docs",), "todo", {"text": "buy tea"})
    rows = LiveStoreSource(indexed).search(("docs",), "tea")
    assert [r.key for r in rows] == ["todo", "readme"]  # ranked by the store, both kept
    assert rows[0].score is not None and rows[0].score > (rows[1].score or 0)


def test_recorded_reads_show_the_value_read_and_old_sessions_show_nothing_unknown() -> None:
    from engine.events import StoreAccessed
    from studio.models.store_view import RecordedStoreSource

    def access(op: str, key: str, **fields: Any) -> StoreAccessed:
        return StoreAccessed(run_id="r", seq=1, op=op, namespace=["u"], key=key, **fields)

    source = RecordedStoreSource()
    # a session recorded before reads kept their value: the item was there, its value unknown
    assert not source.add([access("get", "old", found=True)])
    assert source.add([access("get", "prefs", found=True, value={"theme": "dark"})])
    assert not source.add([access("get", "prefs", found=True, value={"theme": "dark"})])
    assert source.add([access("put", "prefs", value={"theme": "light"})])
    [row] = source.search(())
    assert row.value == {"theme": "light"} and row.updated_at is not None  # the write's time
    assert source.add([access("get", "prefs", found=False)])  # deleted since, by someone
    assert source.search(()) == []
