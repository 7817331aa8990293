"""Item 3 of the first-use report: the approval dialog on a small screen, "Approve all" and
"Answer later" keep what the user decided.  Real dialogs, real clicks, the real HITL scenario."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QWidget

from studio.dialogs.approval import ApprovalDialog
from tests.studio.test_approval_dialog import HitlRun, app, run  # noqa: F401 (fixtures)


def _on_screen(dialog: ApprovalDialog, widget: QWidget) -> bool:
    area: QRect = dialog.screen().availableGeometry()
    top_left = widget.mapToGlobal(QPoint(0, 0))
    return area.contains(QRect(top_left, widget.size()))


def test_the_dialog_scrolls_instead_of_growing_off_the_screen(run: HitlRun) -> None:
    run.start()
    seen: dict[str, Any] = {}

    def open_every_input(dialog: ApprovalDialog) -> None:
        area = dialog.screen().availableGeometry()
        heights = [dialog.height()]
        for card, kind in zip(dialog.cards, ("respond", "reject", "edit"), strict=True):
            card.buttons[kind].click()
            heights.append(dialog.height())
            seen.setdefault("page_in_view", []).append(
                not card.pages.visibleRegion().isEmpty()  # scrolled to the input just opened
            )
        seen["heights"] = heights
        seen["fits"] = dialog.frameGeometry().height() <= area.height()
        seen["inside"] = area.contains(dialog.frameGeometry())
        seen["buttons_on_screen"] = all(
            _on_screen(dialog, b) for b in (dialog.submit_button, dialog.cancel_button)
        )
        dialog.cancel_button.click()

    run.answer(open_every_input)
    assert seen["fits"] and seen["inside"], seen["heights"]
    assert seen["buttons_on_screen"]
    assert seen["page_in_view"] == [True, True, True]


def test_approve_all_never_overrides_a_decision_already_taken(run: HitlRun) -> None:
    run.start()
    seen: dict[str, Any] = {}

    def respond_then_approve_all(dialog: ApprovalDialog) -> None:
        first = dialog.cards[0]
        first.buttons["respond"].click()
        first.message_edit.setPlainText("The order was already cancelled by phone.")
        seen["label"] = dialog.approve_all_button.text()
        dialog.approve_all_button.click()
        seen["choices"] = [c.choice for c in dialog.cards]
        seen["label_after"] = dialog.approve_all_button.text()
        seen["enabled_after"] = dialog.approve_all_button.isEnabled()
        dialog.submit_button.click()

    command = run.answer(respond_then_approve_all)
    assert seen["label"] == "Approve the other 2"
    assert seen["choices"] == ["respond", "approve", "approve"]
    assert seen["label_after"] == "Approve all" and not seen["enabled_after"]
    assert [d["type"] for d in command.resume["decisions"]] == ["respond", "approve", "approve"]
    assert command.resume["decisions"][0]["message"] == "The order was already cancelled by phone."


def test_answer_later_keeps_every_decision_and_its_text(run: HitlRun) -> None:
    run.start()

    def decide_some(dialog: ApprovalDialog) -> None:
        dialog.cards[0].buttons["reject"].click()
        dialog.cards[0].reason_edit.setText("wrong order")
        dialog.cards[2].buttons["edit"].click()
        dialog.cards[2].editor.setPlainText('{"path": "exports/old.csv"}')
        dialog.cancel_button.click()

    assert run.answer(decide_some) is None
    seen: dict[str, Any] = {}

    def reopened(dialog: ApprovalDialog) -> None:
        seen["choices"] = [c.choice for c in dialog.cards]
        seen["reason"] = dialog.cards[0].reason_edit.text()
        seen["edit_shown"] = dialog.cards[2].editor.isVisibleTo(dialog)
        seen["edit"] = dialog.cards[2].editor.toPlainText()
        seen["progress"] = dialog.progress_label.text()
        dialog.cards[1].buttons["approve"].click()
        dialog.submit_button.click()

    command = run.answer(reopened, later=True)  # Continue on the paused thread
    assert seen["choices"] == ["reject", None, "edit"]
    assert seen["reason"] == "wrong order"
    assert seen["edit_shown"] and '"exports/old.csv"' in seen["edit"]
    assert seen["progress"] == "2 of 3 decided"
    decisions = command.resume["decisions"]
    assert decisions[0] == {"type": "reject", "message": "wrong order"}
    assert decisions[2]["edited_action"]["args"] == {"path": "exports/old.csv"}
    assert run.hub.approval_drafts == {}  # answered: nothing left to restore
