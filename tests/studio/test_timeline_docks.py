"""Time travel through the docks on seed 000: scrub, fork, edit state, diff, replay."""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import Qt

from engine.messages import AIMessage
from resources.scenarios.retry_todos import Workspace, build_agent, scripted_model
from studio.history.timetravel import arerun, aresume_from, replay_plan
from studio.models.timeline import Branch
from studio.qtmodels.timeline_items import ITEM_ROLE
from tests.studio.tt_studio import (
    make_studio,
    seed_input,
    state_dump,
    timeline_dump,
    todo_dump,
    until,
)


def _click_row(qtbot: Any, dock: Any, item: Any) -> None:
    index = dock.item_model.index_of(item)
    dock.view.scrollTo(index)
    rect = dock.view.visualRect(index)
    assert rect.isValid()
    qtbot.mouseClick(dock.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_scrubbing_to_the_checkpoint_after_write_todos(qtbot: Any, qloop: Any) -> None:
    s = make_studio(qtbot)
    s.timeline.show()
    qtbot.waitExposed(s.timeline)
    qloop.run_until_complete(s.agent.ainvoke(seed_input(), s.hub.config()))
    s.settle(qloop)
    assert len(s.main_nodes) == 13 and s.timeline.summary_label.text().startswith(
        "13 checkpoints · 1 branch"
    )
    # live: the tip, with the finished todo list's 8 messages
    assert s.state.title.text().startswith("● Live  Step 11")
    assert s.state.model.tree.node_at(("messages",)).child_count() == 8  # type: ignore[union-attr]

    node = s.after_write_todos()
    _click_row(qtbot, s.timeline, node)
    assert s.hub.selected_checkpoint == node.checkpoint_id
    assert not s.timeline.live_button.isChecked()
    dump = state_dump(s.state)
    assert dump[0] == "Step 3 · loop · written by tools · next: model"
    assert dump[1:4] == [
        "messages | [3 messages] | 3 messages",
        "  [0] | human: 帮我创建 login.tsx 和 register.tsx 两个文件",
        "  [1] | ai → write_todos(todos=[2])",
    ]
    assert dump[5:] == [
        'todos | [{content: "创建 login.tsx", status: "in_progress"}, {content: "创建 register.tsx", status: "pending"}] | 2 items',
        '  [0] | {content: "创建 login.tsx", status: "in_progress"}',
        '  [1] | {content: "创建 register.tsx", status: "pending"}',
    ]
    # the todos are expanded in the tree at that moment
    todos_index = s.state.model.index_of(s.state.model.tree.node_at(("todos",)))  # type: ignore[arg-type]
    assert s.state.tree.isExpanded(todos_index)
    # the Todos board and the Diff dock show the same moment
    assert todo_dump(s.todos) == {
        "pending": ["创建 register.tsx"],
        "in_progress": ["创建 login.tsx"],
        "completed": [],
    }
    assert s.diff.diff is not None and s.diff.diff.lines() == [
        s.diff.diff.messages[0].text(),
        "+ todo '创建 login.tsx' (in_progress)",
        "+ todo '创建 register.tsx' (pending)",
    ]
    assert s.diff.diff.messages[0].text().startswith("+ messages[2] tool ✓ Updated todo list")
    # back to live
    qtbot.mouseClick(s.timeline.live_button, Qt.MouseButton.LeftButton)
    assert s.hub.selected_checkpoint is None and s.state.title.text().startswith("● Live  Step 11")


def test_resume_from_here_forks_and_keeps_the_old_branch(qtbot: Any, qloop: Any) -> None:
    s = make_studio(qtbot)
    s.timeline.show()
    qtbot.waitExposed(s.timeline)
    qloop.run_until_complete(s.agent.ainvoke(seed_input(), s.hub.config()))
    old = [n.checkpoint_id for n in s.main_nodes]
    node = s.after_write_todos()
    _click_row(qtbot, s.timeline, node)
    assert s.timeline.resume_button.isEnabled()
    with qtbot.waitSignal(s.timeline.resumeRequested) as sig:
        qtbot.mouseClick(s.timeline.resume_button, Qt.MouseButton.LeftButton)
    assert sig.args == [node.checkpoint_id]
    # the controller's part: run from there with a different continuation
    s.model.push(AIMessage("Only login.tsx is needed; stopping here."))
    qloop.run_until_complete(aresume_from(s.agent, "t1", node.checkpoint_id))
    tl = s.timeline.timeline
    assert len(tl.branches) == 2 and [n.checkpoint_id for n in s.main_nodes] == old
    fork = tl.branches[1]
    assert fork.fork_point is node and [n.source for n in fork.nodes] == ["fork", "loop", "loop"]
    # the tree shows the branch under its fork point, expanded
    header = s.timeline.item_model.index(0, 0, s.timeline.item_model.index_of(node))
    assert isinstance(header.data(ITEM_ROLE), Branch)
    assert s.timeline.view.isExpanded(header)
    assert timeline_dump(s.timeline)[4:9] == [
        "step 3 · loop · tools → model",
        "  branch 1 · forked at step 3 · 3 checkpoints",
        "    step 4 · fork · copy of step 3 → model",
        "    step 5 · loop · model → TodoListMiddleware.after_model",
        "    step 6 · loop · TodoListMiddleware.after_model → end",
    ]
    # both tips are readable: the old run's 8 messages, the fork's 4
    _click_row(qtbot, s.timeline, s.main_nodes[-1])
    assert s.state.model.tree.node_at(("messages",)).child_count() == 8  # type: ignore[union-attr]
    _click_row(qtbot, s.timeline, fork.tip)
    assert s.state.model.tree.node_at(("messages",)).child_count() == 4  # type: ignore[union-attr]
    assert s.state.model.tree.node_at(("messages", 3, "content")).value.startswith("Only login.tsx")  # type: ignore[union-attr]
    # compare the two branches side by side
    dialog = s.timeline.open_compare(s.main_nodes[-1].checkpoint_id, fork.tip.checkpoint_id)
    qtbot.addWidget(dialog)
    cmp = dialog.comparison
    assert cmp is not None and cmp.ancestor is node and cmp.shared == 3
    assert [r.status for r in cmp.rows] == [
        "changed",
        "left_only",
        "left_only",
        "left_only",
        "left_only",
    ]
    assert "Only login.tsx is needed" in dialog.browser.toPlainText()


def test_edit_state_as_model_removing_the_pending_tool_call(qtbot: Any, qloop: Any) -> None:
    s = make_studio(qtbot)
    qloop.run_until_complete(s.agent.ainvoke(seed_input(), s.hub.config()))
    attempts = list(s.workspace.attempts)  # type: ignore[union-attr]
    node = s.pending_create_file()
    s.hub.select_checkpoint(node.checkpoint_id)
    dialog = s.timeline.open_edit_dialog()
    qtbot.addWidget(dialog)
    assert dialog.as_node_combo.currentData() == "model"
    last = dialog.message_list.count() - 1
    assert dialog.message_list.currentRow() == last
    assert dialog.message_list.item(last).text().startswith(f"{last}  ai → create_file(")
    # an invalid edit keeps Apply disabled and says why, inline
    dialog.values_edit.setPlainText('{"todos": [{"content": "x", "status": "done"}]}')
    assert not dialog.apply_button.isEnabled()
    assert (
        "todos[0].status: Input should be 'pending', 'in_progress' or 'completed'"
        in dialog.error_label.text()
    )
    dialog.values_edit.setPlainText(dialog.edit.values_text())
    assert dialog.apply_button.isEnabled() and dialog.error_label.text() == ""
    # remove the tool call, apply and resume
    (action,) = dialog.remove_call_menu.actions()
    action.trigger()
    assert dialog.message_list.item(last).text().startswith(f"✎ {last}  ai")
    assert '"tool_calls": []' in dialog.message_edit.toPlainText()
    resumed: list[str] = []
    dialog.resumeRequested.connect(resumed.append)
    qtbot.mouseClick(dialog.apply_resume_button, Qt.MouseButton.LeftButton)
    until(qloop, lambda: bool(resumed))
    new = s.timeline.timeline.get(resumed[0])
    assert new is not None and new.source == "update" and new.branch.id == 1
    assert s.hub.selected_checkpoint == new.checkpoint_id
    assert s.state.title.text().startswith(
        "Step 5 · update · written by model · next: TodoListMiddleware.after_model"
    )
    qloop.run_until_complete(aresume_from(s.agent, "t1", new.checkpoint_id))
    assert s.workspace.attempts == attempts  # type: ignore[union-attr]  # create_file never ran again
    tip = new.branch.tip
    assert tip.next == () and tip.writers == ("TodoListMiddleware.after_model",)
    final = s.agent.get_state(s.hub.config(tip.checkpoint_id)).values["messages"]
    assert final[-1].tool_calls == [] and len(final) == 4


def test_diff_of_two_checkpoints_and_pinning(qtbot: Any, qloop: Any) -> None:
    s = make_studio(qtbot)
    qloop.run_until_complete(s.agent.ainvoke(seed_input(), s.hub.config()))
    nodes = {n.step: n for n in s.main_nodes}
    diff = s.diff.set_pair(nodes[3].checkpoint_id, nodes[9].checkpoint_id)
    assert diff is not None
    assert [c.kind for c in diff.messages] == ["appended"] * 4
    assert [c.after.type for c in diff.messages] == ["ai", "tool", "ai", "tool"]  # type: ignore[union-attr]
    # both files were created between the two: each todo went to completed
    assert [(c.content, c.kind, c.before, c.after) for c in diff.todos] == [
        ("创建 login.tsx", "status", "in_progress", "completed"),
        ("创建 register.tsx", "status", "pending", "completed"),
    ]
    assert diff.lines()[0].startswith('+ messages[3] ai → create_file(path="login.tsx"')
    assert re.sub(r"<[^>]+>", "", s.diff.header.text()) == "step 9 (loop) vs step 3 (loop)"
    assert "create_file" in s.diff.browser.toPlainText()
    # pin step 3, then select step 6: diffed against the pin
    s.diff.follow_selection()
    s.hub.select_checkpoint(nodes[3].checkpoint_id)
    s.diff.pin_button.setChecked(True)
    s.hub.select_checkpoint(nodes[6].checkpoint_id)
    assert s.diff.base_id == nodes[3].checkpoint_id and s.diff.target_id == nodes[6].checkpoint_id
    assert [c.kind for c in s.diff.diff.messages] == ["appended", "appended"]  # type: ignore[union-attr]
    s.diff.parent_button.click()
    assert s.diff.base_id == nodes[5].checkpoint_id


def test_rerun_with_replay_marks_the_divergence_on_the_timeline(qtbot: Any, qloop: Any) -> None:
    s = make_studio(qtbot)
    qloop.run_until_complete(s.agent.ainvoke(seed_input(), s.hub.config()))
    node = s.after_write_todos()
    s.hub.select_checkpoint(node.checkpoint_id)
    with qtbot.waitSignal(s.timeline.rerunRequested) as sig:
        s.timeline.rerun_button.click()
    # the controller's part: replay from there; register.tsx now hits a full disk twice
    plan = replay_plan(
        s.hub.events, s.timeline.timeline, sig.args[0], fallback=scripted_model(timeouts=0)
    )
    broken = Workspace()
    broken.failures["register.tsx"] = 2
    again = build_agent(
        initial_delay=0.0, model=plan.model, workspace=broken, checkpointer=s.agent.checkpointer
    )
    again.subscribe(lambda ev: s.hub.add_events([ev]))
    result = qloop.run_until_complete(arerun(again, plan, "t1"))
    assert result.status == "done" and plan.diverged_at_call == 4 and plan.model.served == 2
    marked = [n for n in s.timeline.timeline.by_id.values() if n.marker("divergence")]
    assert len(marked) == 1 and marked[0].branch.id == 1 and marked[0].writers == ("model",)
    # the branch's checkpoints before the divergence are marked replayed, none after it (the
    # replayed replies come one event per batch here, as from a re-run of a recorded session)
    replayed = [n for n in s.timeline.timeline.by_id.values() if n.marker("replayed")]
    assert replayed and all(n.branch.id == 1 for n in replayed)
    assert all(n.record.step < marked[0].record.step for n in replayed)
    assert {m.kind for n in s.timeline.timeline.by_id.values() for m in n.markers} == {
        "divergence",
        "replayed",
    }
    tip = s.timeline.item_model.index_of(marked[0])
    assert "⚠ call #4 differs from the recording" in tip.data(Qt.ItemDataRole.ToolTipRole)
    assert "[divergence]" in "\n".join(timeline_dump(s.timeline))


def test_timeline_reloads_history_when_a_run_starts_again(qtbot: Any, qloop: Any) -> None:
    s = make_studio(qtbot)
    qloop.run_until_complete(s.agent.ainvoke(seed_input(), s.hub.config()))
    s.hub.reset()  # what the run controller does before a new run
    until(qloop, lambda: len(s.timeline.timeline) == 13)
    s.hub.set_thread("t2")
    until(qloop, lambda: len(s.timeline.timeline) == 0)
    assert s.timeline.summary_label.text().startswith("0 checkpoints")


def test_the_timeline_follows_a_batch_of_checkpoints_once(qtbot: Any, qloop: Any) -> None:
    from engine.events import CheckpointSaved

    s = make_studio(qtbot)
    s.timeline.show()
    qtbot.waitExposed(s.timeline)
    s.timeline.reload()  # the (empty) thread as the saver has it, before the run's events
    scrolled: list[Any] = []
    real = s.timeline.view.scrollTo
    s.timeline.view.scrollTo = lambda index, *a: (scrolled.append(index), real(index, *a))  # type: ignore[method-assign]
    batch = [
        CheckpointSaved(
            run_id="r",
            thread_id="t1",
            checkpoint_id=f"c{i:02}",
            parent_id=f"c{i - 1:02}" if i else None,
            step=i,
            seq=i + 1,
        )
        for i in range(13)
    ]
    s.hub.add_events(batch)  # no event processed since: only what the call did
    assert scrolled, "followed in the pass that brought the batch (painted with the others)"
    until(qloop, lambda: s.hub.snapshots.idle)
    assert len(s.main_nodes) == 13
    assert len(scrolled) == 1, "one scroll (one tree layout) per batch, not per checkpoint"
    assert s.timeline.item_model.item(scrolled[0]).checkpoint_id == "c12"  # type: ignore[union-attr]
    assert s.timeline.delegate.live_id == "c12"
