"""Compare two branches or runs: node steps lined up side by side, final states diffed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from studio.models.run_alignment import NodeStep, align_steps
from tests.studio.app_agents import click, run_until
from tests.studio.test_playground import _model_calls, _open, _pick, _window


def _step(node: str, did: str = "", status: str = "ok") -> NodeStep:
    return NodeStep(step=None, node=node, status=status, duration_ms=1.0, did=did)


def test_align_steps_matches_by_node_and_marks_what_differs() -> None:
    left = [_step("model", "calls a"), _step("tools", "a ✓"), _step("model", "“done”")]
    right = [_step("model", "calls a"), _step("tools", "a ✗"), _step("model", "calls b"),
             _step("tools", "b ✓"), _step("model", "“done”")]  # fmt: skip
    rows = align_steps(left, right)
    assert [r.status for r in rows] == ["same", "changed", "right_only", "right_only", "same"]
    assert rows[2].left is None and rows[2].right is not None and rows[2].right.did == "calls b"


def test_compare_a_fork_with_the_original_run(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window = _window(qtbot, qloop, tmp_path)
    calls = _model_calls(window)
    dialog = _open(qtbot, qloop, window, calls[1])
    _pick(dialog, "scripted")
    qtbot.keyClicks(dialog.scripted_edit, "Nothing more to do.")
    click(qtbot, qloop, dialog.send_button)
    click(qtbot, qloop, dialog.cards[1].continue_button)
    run_until(qloop, lambda: not window.controller.busy)
    dialog.close()

    timeline_dock = window.docks["timeline"].widget()
    timeline_dock.reload()
    tips = timeline_dock.timeline.tips()
    assert len(tips) == 2
    compare = timeline_dock.open_compare(tips[0].checkpoint_id, tips[1].checkpoint_id)
    qtbot.addWidget(compare)
    labels = [compare.left_combo.itemText(i) for i in range(compare.left_combo.count())]
    assert any(label.startswith("Run 1 end") for label in labels)
    assert any(label.startswith("Run 2 end") for label in labels)
    rows = compare.steps
    statuses = [r.status for r in rows]
    # the shared history first (the write_todos call and tool), then the fork's answer
    assert statuses[:3] == ["same", "same", "same"]
    changed = next(r for r in rows if r.status == "changed")
    assert changed.left is not None and changed.right is not None
    assert changed.left.node == changed.right.node == "model"
    fork = changed.right if changed.right.status == "edited" else changed.left
    assert fork.status == "edited" and fork.did == "state edited: “Nothing more to do.”"
    other = changed.left if fork is changed.right else changed.right
    assert other.did == "calls create_file"
    # the original went on (register.tsx, the answer): steps only its side has
    assert "left_only" in statuses or "right_only" in statuses
    view = compare.steps_view
    assert view.topLevelItemCount() == len(rows)
    assert compare.steps_summary.text().startswith(f"{len(rows)} node step(s) lined up")
    # final states diffed, on the other tab
    assert compare.comparison is not None and not compare.comparison.state.is_empty
    compare.swap()
    swapped = compare.steps
    assert [r.status for r in swapped].count("same") == statuses.count("same")
