"""Tokens and cost in the real window: the event log's Cost column, the graph's node badges and
the status bar; prices edited in Settings change them all and are kept in the settings file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from studio.app.settings_store import StudioSettings
from studio.models.pricing import money_text
from tests.studio import obs_agents
from tests.studio.app_agents import make_window, run_until

EXPECTED = ((930 - 384) * 0.15 + 384 * 0.075 + 60 * 0.6) / 1e6
"""What the priced agent's run costs at the built-in gpt-4o-mini price."""


def _run(qloop: Any, window: Any, make: Any) -> None:
    window.controller.load_factory(lambda: (make(), obs_agents.first_input()), "places")
    window.run_or_continue()
    run_until(qloop, lambda: window.hub.status == "done")
    log = window.docks["events"].widget()
    log.flush()


def _cost_cell(window: Any, row: Any) -> str:
    log = window.docks["events"].widget()
    index = log.model.index_of(row, log.model.COST)
    return str(log.model.data(index, Qt.ItemDataRole.DisplayRole))


def test_cost_shows_on_calls_nodes_the_run_and_the_thread(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    _run(qloop, window, lambda: obs_agents.priced_agent(delay=0.0, turns=2))
    tree = window.docks["events"].widget().tree
    calls = [r for r in tree.rows if r.kind == "model.request"]
    assert [_cost_cell(window, r) for r in calls] == [
        "failed",
        f"450 tok · {money_text((412 * 0.15 + 38 * 0.6) / 1e6)}",
        f"540 tok · {money_text(((518 - 384) * 0.15 + 384 * 0.075 + 22 * 0.6) / 1e6)}",
    ]
    run_row = next(r for r in tree.rows if r.kind == "run.started")
    assert _cost_cell(window, run_row) == f"990 tok · {money_text(EXPECTED)}"
    tool_node = next(r for r in tree.rows if r.kind == "node.started" and r.node == "tools")
    assert _cost_cell(window, tool_node) == ""  # no model call in it
    tip = (
        window.docks["events"]
        .widget()
        .model.data(
            window.docks["events"].widget().model.index_of(run_row, 4), Qt.ItemDataRole.ToolTipRole
        )
    )
    assert "3 model calls" in tip and "384 cached" in tip and "1 call(s) failed" in tip
    # graph: the model node wears the badge, the tools node none
    view = window.graph_panel.view
    qtbot.waitUntil(lambda: view.node_item("model").state.cost != "")
    assert view.node_item("model").state.cost == f"990 tok · {money_text(EXPECTED)}"
    assert view.node_item("tools").state.cost == ""
    assert "cost " in view.node_item("model").toolTip()
    # status bar: this run and the thread so far
    assert (
        window.cost_status.text() == f"Run {money_text(EXPECTED)} · Thread {money_text(EXPECTED)}"
    )
    # a second run on the same thread: the thread total doubles, the run stays
    window.controller.send_message("And tomorrow?")
    run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    assert window.cost_status.text() == (
        f"Run {money_text(EXPECTED)} · Thread {money_text(2 * EXPECTED)}"
    )


def test_a_model_without_a_price_is_unknown_then_priced_in_settings(
    qtbot: Any, qloop: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STEPWISE_CONFIG_DIR", str(tmp_path / "config"))
    window = make_window(qtbot, tmp_path)
    window.save_settings = True
    _run(qloop, window, obs_agents.unpriced_agent)
    view = window.graph_panel.view
    qtbot.waitUntil(lambda: view.node_item("model").state.cost != "")
    assert view.node_item("model").state.cost == "990 tok · ?"
    assert window.cost_status.text() == "Run ? · Thread ?"
    tree = window.docks["events"].widget().tree
    run_row = next(r for r in tree.rows if r.kind == "run.started")
    assert _cost_cell(window, run_row) == "990 tok · ?"

    future = window.menus.open_settings()
    dialog = window.menus.settings_dialog
    editor = dialog.prices
    editor.add_button.click()
    row = editor.table.rowCount() - 1
    for col, text in enumerate(("house-model-7b", "1", "2", "", "")):
        editor.table.item(row, col).setText(text)
    assert editor.error() is None
    dialog.ok_button.click()
    qloop.run_until_complete(future)

    # cached tokens have no price yet: still unknown, and the tooltip says why
    assert view.node_item("model").state.cost == "990 tok · ?"
    assert "cached input tokens have no price" in view.node_item("model").state.cost_tip
    # give the cached tokens a price: now it is all known, everywhere
    future = window.menus.open_settings()
    editor = window.menus.settings_dialog.prices
    row = next(
        r
        for r in range(editor.table.rowCount())
        if editor.table.item(r, 0).text() == "house-model-7b"
    )
    editor.table.item(row, 3).setText("0.5")
    window.menus.settings_dialog.ok_button.click()
    qloop.run_until_complete(future)
    cost = ((930 - 384) * 1.0 + 384 * 0.5 + 60 * 2.0) / 1e6
    assert view.node_item("model").state.cost == f"990 tok · {money_text(cost)}"
    assert window.cost_status.text() == f"Run {money_text(cost)} · Thread {money_text(cost)}"
    assert _cost_cell(window, run_row) == f"990 tok · {money_text(cost)}"
    saved = StudioSettings.load()
    assert saved.prices == {"house-model-7b": {"input": 1.0, "output": 2.0, "cached_input": 0.5}}


def test_a_mistyped_price_keeps_the_dialog_open_and_says_why(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window = make_window(qtbot, tmp_path)
    future = window.menus.open_settings()
    dialog = window.menus.settings_dialog
    editor = dialog.prices
    row = next(
        r for r in range(editor.table.rowCount()) if editor.table.item(r, 0).text() == "gpt-4o"
    )
    editor.table.item(row, 1).setText("two dollars")
    assert "gpt-4o: input and output need a price" in editor.note.text()
    dialog.ok_button.click()
    assert dialog.isVisible() and not future.done()
    editor.table.item(row, 1).setText("2.5")
    editor.table.selectRow(row)
    editor.remove_button.click()
    dialog.ok_button.click()
    qloop.run_until_complete(future)
    assert window.settings.prices == {"gpt-4o": None}
    assert window.hub.prices.price("gpt-4o") is None
