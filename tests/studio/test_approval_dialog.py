"""The approval dialog on the built-in HITL scenario: clicks resume the real agent (qasync)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QDialog, QWidget

from engine.events import EventBase, MiddlewareAction
from engine.messages import HumanMessage, ToolMessage
from engine.types import Command
from resources.scenarios.approval import EXPORT, INPUT, ORDER_ID, Shop, build_agent, scripted_model
from studio.dialogs.approval import ApprovalDialog
from studio.models.hub import Hub
from studio.run.interrupts import agent_tools, answer_pending, dialog_opened, handle_interrupt


@pytest.fixture
def app(qapp: Any, qloop: Any) -> Iterator[Any]:
    """The qasync loop, with Qt not quitting when a dialog (the only window) closes."""
    previous = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)
    yield qloop
    qapp.setQuitOnLastWindowClosed(previous)


class HitlRun:
    """The approval scenario bound to a Hub, with its events recorded."""

    def __init__(self, loop: Any) -> None:
        self.loop = loop
        self.shop = Shop()
        self.model = scripted_model()
        self.agent = build_agent(model=self.model, shop=self.shop)
        self.hub = Hub()
        self.hub.set_graph(self.agent, self.agent.get_graph())
        self.events: list[EventBase] = []
        self.agent.subscribe(self._on_event)
        self.dialogs: list[ApprovalDialog] = []

    def _on_event(self, event: EventBase) -> None:
        self.events.append(event)
        self.hub.add_events([event])

    def start(self) -> Any:
        async def go() -> Any:
            await self.agent.ainvoke({"messages": [HumanMessage(INPUT)]}, self.hub.config())
            return await self.agent.aget_state(self.hub.config())

        return self.loop.run_until_complete(go())

    def answer(self, act: Callable[[ApprovalDialog], None], *, later: bool = False) -> Any:
        """Open the dialog for the pending interrupt, let ``act`` click it, return the answer."""

        def on_open(dialog: Any) -> None:
            self.dialogs.append(dialog)
            act(dialog)

        disconnect = dialog_opened.connect(on_open)
        try:
            if later:
                return self.loop.run_until_complete(answer_pending(self.hub))
            snapshot = self.loop.run_until_complete(self.agent.aget_state(self.hub.config()))
            return self.loop.run_until_complete(
                handle_interrupt(self.hub, snapshot.interrupts, None)
            )
        finally:
            disconnect()

    def resume(self, command: Command) -> dict[str, Any]:
        return self.loop.run_until_complete(self.agent.ainvoke(command, self.hub.config()))

    def decisions(self) -> list[dict[str, Any]]:
        return [
            e.detail
            for e in self.events
            if isinstance(e, MiddlewareAction) and e.action == "hitl_decision"
        ]

    def last_model_messages(self) -> list[Any]:
        return list(self.model.calls[-1].messages)

    def tool_calls(self, name: str) -> list[dict[str, Any]]:
        return [args for tool, args in self.shop.calls if tool == name]


@pytest.fixture
def run(app: Any) -> HitlRun:
    return HitlRun(app)


def decide(dialog: ApprovalDialog, *kinds: str) -> None:
    for card, kind in zip(dialog.cards, kinds, strict=True):
        card.buttons[kind].click()


def test_shows_each_request_with_only_its_allowed_decisions(run: HitlRun) -> None:
    snapshot = run.start()
    assert len(snapshot.interrupts) == 1
    seen: dict[str, Any] = {}

    def inspect(dialog: ApprovalDialog) -> None:
        assert dialog.isVisible() and dialog.isModal()
        seen["names"] = [c.review.name for c in dialog.cards]
        seen["buttons"] = [list(c.buttons) for c in dialog.cards]
        seen["args"] = dialog.cards[2].args_view.toPlainText()
        seen["html"] = dialog.cards[2].args_view.toHtml()
        seen["approve_all_hidden"] = dialog.approve_all_button.isHidden()
        seen["submit_enabled"] = dialog.submit_button.isEnabled()
        dialog.cancel_button.click()

    assert run.answer(inspect) is None
    assert seen["names"] == ["cancel_order", "send_email", "delete_file"]
    assert seen["buttons"] == [
        ["approve", "edit", "reject", "respond"],
        ["approve", "reject"],
        ["approve", "edit", "reject"],
    ]
    assert json.loads(seen["args"]) == {"path": EXPORT}
    assert "color" in seen["html"]  # highlighted, not plain text
    assert seen["approve_all_hidden"] is False  # every request allows approve
    assert seen["submit_enabled"] is False  # nothing decided yet


def test_approve_all_runs_every_tool_and_decisions_are_events(run: HitlRun) -> None:
    run.start()
    results: list[int] = []

    def approve_all(dialog: ApprovalDialog) -> None:
        dialog.approve_all_button.click()
        assert [c.choice for c in dialog.cards] == ["approve"] * 3
        dialog.submit_button.click()
        results.append(dialog.result())

    command = run.answer(approve_all)
    assert results == [QDialog.DialogCode.Accepted]
    assert command.resume == {"decisions": [{"type": "approve"}] * 3}
    out = run.resume(command)
    assert [t for t, _ in run.shop.calls] == [
        "lookup_order",
        "cancel_order",
        "send_email",
        "delete_file",
    ]
    assert [d["decision"] for d in run.decisions()] == ["approve"] * 3
    assert [d["tool"] for d in run.decisions()] == ["cancel_order", "send_email", "delete_file"]
    assert "Deleted exports/orders/A-1042.csv" in out["messages"][-1].text


def test_edit_rejects_invalid_json_inline_then_runs_the_tool_with_the_edit(run: HitlRun) -> None:
    run.start()
    states: list[tuple[str, bool, bool]] = []

    def edit(dialog: ApprovalDialog) -> None:
        cancel, email, delete = dialog.cards
        cancel.buttons["approve"].click()
        email.buttons["approve"].click()
        delete.buttons["edit"].click()

        def note(label: str) -> None:
            states.append(
                (label, not delete.error_label.isHidden(), dialog.submit_button.isEnabled())
            )

        note("opened")
        delete.editor.setPlainText('{"path": ')
        note("broken json")
        error_json = delete.error_label.text()
        delete.editor.setPlainText('{"path": 42}')
        note("wrong type")
        error_type = delete.error_label.text()
        dialog.submit_button.click()  # disabled: nothing happens
        assert dialog.request.state == "open"
        delete.editor.setPlainText('{"path": "exports/orders/A-1042.tmp"}')
        note("valid")
        dialog.submit_button.click()
        states.append((error_json, False, False))
        states.append((error_type, False, False))

    command = run.answer(edit)
    assert states[:4] == [
        ("opened", False, True),  # the editor starts with the original (valid) arguments
        ("broken json", True, False),
        ("wrong type", True, False),
        ("valid", False, True),
    ]
    assert states[4][0].startswith("Not valid JSON")
    assert states[5][0] == "path: expected string, got integer"
    assert command.resume["decisions"][2] == {
        "type": "edit",
        "edited_action": {"name": "delete_file", "args": {"path": "exports/orders/A-1042.tmp"}},
    }
    run.resume(command)
    assert run.tool_calls("delete_file") == [{"path": "exports/orders/A-1042.tmp"}]
    assert EXPORT in run.shop.files  # the original path was not deleted
    edit_event = run.decisions()[2]
    assert edit_event["decision"] == "edit"
    assert edit_event["edited_args"] == {"path": "exports/orders/A-1042.tmp"}


def test_reject_with_reason_reaches_the_model_and_the_tool_does_not_run(run: HitlRun) -> None:
    run.start()

    def reject(dialog: ApprovalDialog) -> None:
        decide(dialog, "approve", "reject", "approve")
        dialog.cards[1].reason_edit.setText("She asked to be contacted by phone only")
        dialog.submit_button.click()

    command = run.answer(reject)
    assert command.resume["decisions"][1] == {
        "type": "reject",
        "message": "She asked to be contacted by phone only",
    }
    out = run.resume(command)
    assert run.tool_calls("send_email") == []
    seen = [m for m in run.last_model_messages() if isinstance(m, ToolMessage)]
    rejection = next(m for m in seen if m.name == "send_email")
    assert rejection.status == "error"
    assert rejection.text == (
        "User rejected the tool call for `send_email` with reason: "
        "She asked to be contacted by phone only"
    )
    assert "send_email: failed or not run" in out["messages"][-1].text
    assert run.decisions()[1]["message"] == "She asked to be contacted by phone only"


def test_respond_gives_the_message_as_the_tool_result(run: HitlRun) -> None:
    run.start()

    def respond(dialog: ApprovalDialog) -> None:
        cancel = dialog.cards[0]
        cancel.buttons["respond"].click()
        assert not dialog.submit_button.isEnabled()  # a response needs a message
        cancel.message_edit.setPlainText("Already cancelled by phone; refund pending.")
        dialog.cards[1].buttons["reject"].click()
        dialog.cards[2].buttons["reject"].click()
        assert dialog.submit_button.isEnabled()
        dialog.submit_button.click()

    command = run.answer(respond)
    assert command.resume == {
        "decisions": [
            {"type": "respond", "message": "Already cancelled by phone; refund pending."},
            {"type": "reject"},
            {"type": "reject"},
        ]
    }
    run.resume(command)
    assert run.tool_calls("cancel_order") == []
    answer = next(
        m
        for m in run.last_model_messages()
        if isinstance(m, ToolMessage) and m.name == "cancel_order"
    )
    assert (answer.status, answer.text) == (
        "success",
        "Already cancelled by phone; refund pending.",
    )


def test_cancel_keeps_the_run_paused_and_it_can_be_answered_later(run: HitlRun) -> None:
    first = run.start()
    results: list[int] = []

    def later(dialog: ApprovalDialog) -> None:
        decide(dialog, "approve", "approve", "approve")  # decided, but not submitted
        dialog.cancel_button.click()
        results.append(dialog.result())

    assert run.answer(later) is None
    assert results == [QDialog.DialogCode.Rejected]
    paused = run.loop.run_until_complete(run.agent.aget_state(run.hub.config()))
    assert paused.interrupts == first.interrupts  # still waiting at the same interrupt
    assert run.tool_calls("cancel_order") == [] and run.decisions() == []

    def escape_then(dialog: ApprovalDialog) -> None:
        dialog.reject()  # Esc / closing the window is "answer later" too

    assert run.answer(escape_then, later=True) is None

    def now(dialog: ApprovalDialog) -> None:
        # the decisions taken before "Answer later" are still there
        assert [c.choice for c in dialog.cards] == ["approve", "approve", "approve"]
        dialog.cards[1].buttons["reject"].click()
        dialog.submit_button.click()

    command = run.answer(now, later=True)
    run.resume(command)
    assert [d["decision"] for d in run.decisions()] == ["approve", "reject", "approve"]
    assert run.tool_calls("cancel_order") == [{"order_id": ORDER_ID, "reason": "customer request"}]
    assert run.loop.run_until_complete(answer_pending(run.hub)) is None  # nothing left


def test_edit_schema_comes_from_the_agents_tools(run: HitlRun) -> None:
    tools = agent_tools(run.agent)
    assert set(tools) == {"lookup_order", "cancel_order", "send_email", "delete_file"}
    run.start()
    hints: list[str] = []

    def look(dialog: ApprovalDialog) -> None:
        dialog.cards[0].buttons["edit"].click()
        hints.append(dialog.cards[0].schema_label.text())
        dialog.cards[0].editor.setPlainText('{"order_id": "A-1042", "refund": true}')
        hints.append(dialog.cards[0].error_label.text())
        dialog.cancel_button.click()

    run.answer(look)
    assert hints == [
        "Arguments: order_id: string (required) · reason: string",
        "refund: unknown argument (expected: order_id, reason)",
    ]


def test_scenario_module_shape() -> None:
    from resources.scenarios import approval as scenario

    first = (scenario.__doc__ or "").splitlines()[0]
    assert first.startswith("Human in the loop:") and first.endswith(".")
    assert scenario.agent.get_graph().nodes["tools"].metadata["tools"] == [
        "lookup_order",
        "cancel_order",
        "send_email",
        "delete_file",
    ]
    assert scenario.INTERRUPT_ON["send_email"]["allowed_decisions"] == ["approve", "reject"]


def test_decisions_are_recorded_in_the_session_file(app: Any, tmp_path: Any) -> None:
    from engine.recording import SessionRecorder
    from engine.recording.reader import Session

    recorder = SessionRecorder(tmp_path / "hitl.stepwise")
    agent = build_agent(checkpointer=recorder.checkpointer)
    recorder.attach(agent)
    hub = Hub()
    hub.set_graph(agent, agent.get_graph())
    config = hub.config()
    app.run_until_complete(agent.ainvoke({"messages": [HumanMessage(INPUT)]}, config))
    snapshot = app.run_until_complete(agent.aget_state(config))

    def decide_all(dialog: ApprovalDialog) -> None:
        decide(dialog, "edit", "reject", "approve")
        dialog.cards[0].editor.setPlainText('{"order_id": "A-1042", "reason": "duplicate"}')
        dialog.submit_button.click()

    disconnect = dialog_opened.connect(decide_all)
    try:
        command = app.run_until_complete(handle_interrupt(hub, snapshot.interrupts, None))
    finally:
        disconnect()
    app.run_until_complete(agent.ainvoke(command, config))
    recorder.close()
    with Session.open(tmp_path / "hitl.stepwise") as session:
        recorded = [
            e.detail
            for e in session.events(kinds=["middleware.action"])
            if isinstance(e, MiddlewareAction) and e.action == "hitl_decision"
        ]
    assert [(d["tool"], d["decision"]) for d in recorded] == [
        ("cancel_order", "edit"),
        ("send_email", "reject"),
        ("delete_file", "approve"),
    ]
    assert recorded[0]["edited_args"] == {"order_id": "A-1042", "reason": "duplicate"}


# -- first-use report, item 3: small screens, Approve all, Answer later ---------------------


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
