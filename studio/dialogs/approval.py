"""The human-in-the-loop approval dialog: renders an ``ApprovalRequest``, never owns the answer.

One card per action request: the tool name, its description, the arguments as highlighted
JSON, and one button per decision its review config allows.  Edit opens a JSON editor checked
against the tool's argument schema as you type (the error shows inline; the card stays
undecided until the JSON is valid); Reject takes an optional reason; Respond a message.
"Approve all" appears when every request allows approval.  Submit is enabled once every card is
decided.  "Answer later" (or Esc, or closing the window) cancels: the run stays paused at the
interrupt.

The dialog is window-modal and opened with ``open()``: callers await ``request.wait()`` (no
nested event loop).  Its key widgets are attributes (``submit_button``, ``cancel_button``,
``approve_all_button``, ``cards[i].buttons[...]``, ``cards[i].editor`` ...) for tests.
"""

from __future__ import annotations

import json

from PySide6.QtCore import QRect, Qt, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QFrame,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from studio.dialogs.approval_model import DECISION_LABELS, ActionReview, ApprovalRequest
from studio.dialogs.dialog_kit import (
    dialog_style,
    fit_to_content,
    json_html,
    mono_font,
    schema_hint,
)
from studio.look.palette import colors
from studio.widgets.plain_text import plain_label

__all__ = ["ActionCard", "ApprovalDialog"]

_SCREEN_MARGIN = 48
"""Room left free above and below the dialog on a small screen (title bar, panels)."""


def _short_description(review: ActionReview) -> str:
    """The description without the ``Tool:`` / ``Args:`` lines the card already shows."""
    text = review.description.strip()
    marker = f"\n\nTool: {review.name}\nArgs: "
    if marker in text:
        text = text.split(marker, 1)[0].strip()
    return text


class ActionCard(QFrame):
    """One action request and the decision taken on it."""

    def __init__(
        self, review: ActionReview, parent: QWidget | None = None, *, dark: bool = False
    ) -> None:
        super().__init__(parent)
        self.review = review
        self.choice: str | None = None
        """The decision button the user picked (the review stays undecided while its input is
        invalid)."""
        self.setObjectName("ActionCard")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(8)

        head = QHBoxLayout()
        badge = plain_label(str(review.index + 1))
        badge.setObjectName("Badge")
        badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
        name = plain_label(review.name)
        name.setObjectName("ToolName")
        name.setFont(mono_font(14))
        head.addWidget(badge)
        head.addWidget(name)
        head.addStretch(1)
        self.buttons: dict[str, QPushButton] = {}
        self._group = QButtonGroup(self)
        self._group.setExclusive(True)
        for kind in review.allowed:
            button = QPushButton(DECISION_LABELS[kind])
            button.setObjectName("Decision")
            button.setProperty("decision", kind)
            button.setCheckable(True)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.clicked.connect(lambda _=False, k=kind: self.choose(k))
            self._group.addButton(button)
            self.buttons[kind] = button
            head.addWidget(button)
        layout.addLayout(head)

        description = _short_description(review)
        self.description_label = plain_label(description)
        self.description_label.setObjectName("Description")
        self.description_label.setWordWrap(True)
        self.description_label.setVisible(bool(description))
        layout.addWidget(self.description_label)

        self.args_view = QTextBrowser()
        self.args_view.setObjectName("Args")
        self.args_view.setFont(mono_font())
        self.args_view.setHtml(json_html(review.args, dark=dark))
        fit_to_content(self.args_view, 240)
        layout.addWidget(self.args_view)

        self.pages = QStackedWidget()
        self.pages.addWidget(QWidget())  # nothing chosen yet / approve
        self.pages.addWidget(self._edit_page())
        self.pages.addWidget(self._reject_page())
        self.pages.addWidget(self._respond_page())
        self.pages.setVisible(False)
        layout.addWidget(self.pages)
        review.changed.connect(self._on_model_changed)
        self._on_model_changed(review)  # a decision restored from an earlier "Answer later"

    # -- pages --------------------------------------------------------------------------

    def _edit_page(self) -> QWidget:
        page = QWidget()
        box = QVBoxLayout(page)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(4)
        self.editor = QPlainTextEdit(json.dumps(self.review.args, indent=2, ensure_ascii=False))
        self.editor.setObjectName("Editor")
        self.editor.setFont(mono_font())
        self.editor.setTabChangesFocus(True)
        lines = self.editor.toPlainText().count("\n") + 1
        self.editor.setFixedHeight(min(220, 30 + 17 * lines))
        self.editor.textChanged.connect(self._on_edit_text)
        hint = schema_hint(self.review.schema)
        self.schema_label = plain_label(
            f"Arguments: {hint}" if hint else "Edit the arguments (JSON)"
        )
        self.schema_label.setObjectName("Hint")
        self.schema_label.setWordWrap(True)
        self.error_label = plain_label()
        self.error_label.setObjectName("Error")
        self.error_label.setWordWrap(True)
        self.error_label.setVisible(False)
        box.addWidget(self.schema_label)
        box.addWidget(self.editor)
        box.addWidget(self.error_label)
        return page

    def _reject_page(self) -> QWidget:
        page = QWidget()
        box = QVBoxLayout(page)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(4)
        caption = plain_label("Reason, told to the model (optional)")
        caption.setObjectName("Hint")
        box.addWidget(caption)
        self.reason_edit = QLineEdit()
        self.reason_edit.setPlaceholderText("e.g. wrong recipient")
        self.reason_edit.textChanged.connect(self._on_reason)
        box.addWidget(self.reason_edit)
        return page

    def _respond_page(self) -> QWidget:
        page = QWidget()
        box = QVBoxLayout(page)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(4)
        self.message_edit = QPlainTextEdit()
        self.message_edit.setPlaceholderText(
            "Message the model receives as this tool call's result (the tool does not run)"
        )
        self.message_edit.setFixedHeight(70)
        self.message_edit.textChanged.connect(self._on_message)
        self.message_hint = plain_label(
            "Write the message the model gets instead of running the tool."
        )
        self.message_hint.setObjectName("Hint")
        box.addWidget(self.message_edit)
        box.addWidget(self.message_hint)
        return page

    # -- choosing -----------------------------------------------------------------------

    def choose(self, kind: str) -> None:
        """Pick a decision, as a click on its button does."""
        if kind not in self.buttons:
            raise ValueError(f"'{kind}' is not allowed for {self.review.name}")
        self.choice = kind
        self._show_choice()
        if kind == "approve":
            self.review.approve()
        elif kind == "edit":
            self._on_edit_text()
            self.editor.setFocus()
        elif kind == "reject":
            self.review.reject(self.reason_edit.text())
            self.reason_edit.setFocus()
        else:
            self._on_message()
            self.message_edit.setFocus()

    def _show_choice(self) -> None:
        for kind, button in self.buttons.items():
            button.blockSignals(True)
            button.setChecked(kind == self.choice)
            button.blockSignals(False)
        page = {"edit": 1, "reject": 2, "respond": 3}.get(self.choice or "", 0)
        self.pages.setCurrentIndex(page)
        for i in range(self.pages.count()):  # the stack takes the size of the shown page only
            policy = QSizePolicy.Policy.Preferred if i == page else QSizePolicy.Policy.Ignored
            shown = self.pages.widget(i)
            if shown is not None:
                shown.setSizePolicy(policy, policy)
        self.pages.setVisible(page != 0)
        self.pages.adjustSize()
        dialog = self.window()
        if isinstance(dialog, ApprovalDialog):
            dialog.grow_to_fit(self)

    def _on_edit_text(self) -> None:
        if self.choice != "edit":
            return
        problems = self.review.problems(self.editor.toPlainText())
        self.error_label.setText("\n".join(problems))
        if bool(problems) != self.error_label.isVisibleTo(self):
            self.error_label.setVisible(bool(problems))
            dialog = self.window()
            if isinstance(dialog, ApprovalDialog):  # the line in view, growing the dialog
                dialog.grow_to_fit(self, self.error_label if problems else None)
        if problems:
            self.review.clear()
        else:
            self.review.edit(self.editor.toPlainText())

    def _on_reason(self) -> None:
        if self.choice == "reject":
            self.review.reject(self.reason_edit.text())

    def _on_message(self) -> None:
        if self.choice != "respond":
            return
        text = self.message_edit.toPlainText()
        self.message_hint.setVisible(not text.strip())
        if text.strip():
            self.review.respond(text)
        else:
            self.review.clear()

    def _on_model_changed(self, review: ActionReview) -> None:
        kind = review.kind
        if kind is not None and kind != self.choice:  # decided from outside (Approve all, a draft)
            self.choice = kind
            self._fill_inputs(review.decision or {})
            self._show_choice()

    def _fill_inputs(self, decision: dict[str, object]) -> None:
        """Put a decision taken elsewhere (a restored draft) into this card's inputs."""
        kind = decision.get("type")
        if kind == "edit":
            edited = decision.get("edited_action")
            args = edited.get("args") if isinstance(edited, dict) else None
            self.editor.setPlainText(json.dumps(args, indent=2, ensure_ascii=False))
        elif kind == "reject":
            self.reason_edit.setText(str(decision.get("message") or ""))
        elif kind == "respond":
            self.message_edit.setPlainText(str(decision.get("message") or ""))


class ApprovalDialog(QDialog):
    """Renders ``request``; submitting or cancelling resolves the request (see module doc)."""

    def __init__(
        self, request: ApprovalRequest, parent: QWidget | None = None, theme: str = "light"
    ) -> None:
        super().__init__(parent)
        self.request = request
        self.setObjectName("ApprovalDialog")
        self.setWindowTitle("Review tool calls")
        self.setWindowModality(
            Qt.WindowModality.WindowModal
            if parent is not None
            else Qt.WindowModality.ApplicationModal
        )
        self.setStyleSheet(dialog_style(colors(theme)))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 16, 18, 14)
        layout.setSpacing(10)

        n = len(request.actions)
        heading = plain_label(
            "Approve this tool call?" if n == 1 else f"Review {n} tool calls before they run"
        )
        heading.setObjectName("Heading")
        intro = plain_label(
            "The agent is paused until you decide. Your decisions resume the run; "
            "“Answer later” keeps it paused at this interrupt."
        )
        intro.setObjectName("Intro")
        intro.setWordWrap(True)
        layout.addWidget(heading)
        layout.addWidget(intro)

        body = QWidget()
        cards_box = QVBoxLayout(body)
        cards_box.setContentsMargins(0, 0, 0, 0)
        cards_box.setSpacing(10)
        dark = colors(theme).dark
        self.cards = [ActionCard(review, dark=dark) for review in request.actions]
        for card in self.cards:
            cards_box.addWidget(card)
        cards_box.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(body)
        scroll.setStyleSheet(
            "QScrollArea, QScrollArea > QWidget > QWidget { background: transparent; }"
        )
        layout.addWidget(scroll, 1)
        self.scroll_area = scroll

        footer = QHBoxLayout()
        self.approve_all_button = QPushButton("Approve all")
        self.approve_all_button.setObjectName("Secondary")
        self.approve_all_button.setToolTip(
            "Approve the calls not decided yet; decisions taken stay"
        )
        self.approve_all_button.setVisible(
            n > 1 and all(a.allows("approve") for a in request.actions)
        )
        self.approve_all_button.clicked.connect(self._approve_all)
        self.progress_label = plain_label()
        self.progress_label.setObjectName("Progress")
        self.cancel_button = QPushButton("Answer later")
        self.cancel_button.setObjectName("Secondary")
        self.cancel_button.setToolTip("Close without answering: the run stays paused here")
        self.cancel_button.clicked.connect(self.reject)
        self.submit_button = QPushButton("Submit decisions" if n > 1 else "Submit decision")
        self.submit_button.setObjectName("Primary")
        self.submit_button.setDefault(True)
        self.submit_button.clicked.connect(self._submit)
        footer.addWidget(self.approve_all_button)
        footer.addWidget(self.progress_label)
        footer.addStretch(1)
        footer.addWidget(self.cancel_button)
        footer.addWidget(self.submit_button)
        layout.addLayout(footer)

        request.changed.connect(lambda _review: self._refresh())
        request.answered.connect(lambda _command: self.accept())
        request.cancelled.connect(self._on_cancelled)
        self._refresh()
        self._body = body
        self.resize(760, self._fitting_height())

    def grow_to_fit(self, card: ActionCard | None = None, part: QWidget | None = None) -> None:
        """Grow (never shrink) toward showing every card, but only as far as the screen allows
        with the whole dialog on it: past that the cards scroll, the buttons stay in view.
        ``card`` (whose input just opened) is scrolled into view, or ``part`` of it (a line
        just shown), once the cards are laid out anew."""
        self._body.adjustSize()
        wanted = self._fitting_height()
        if wanted > self.height():
            self.resize(self.width(), wanted)
        self.keep_on_screen()
        if card is None:
            return
        shown = part or (card.pages if card.pages.isVisible() else card)
        self.scroll_area.ensureWidgetVisible(shown, 0, 8)
        if part is not None:  # where the new line sits is known after the layout pass
            QTimer.singleShot(0, lambda: self.scroll_area.ensureWidgetVisible(part, 0, 8))

    def _available(self) -> QRect | None:
        parent = self.parentWidget()
        screen = self.screen() or (parent.screen() if parent is not None else None)
        return screen.availableGeometry() if screen is not None else None

    def _fitting_height(self) -> int:
        """Tall enough for every card, up to the screen's height less a margin."""
        body = self._body.sizeHint().height()
        area = self._available()
        cap = area.height() - _SCREEN_MARGIN if area is not None else 900
        return max(self.minimumSizeHint().height(), min(cap, body + 125))

    def keep_on_screen(self) -> None:
        """Move the dialog up (never off the top) so its bottom edge, with the buttons, stays
        on the screen."""
        area = self._available()
        if area is None:
            return
        frame = self.frameGeometry()
        extra = frame.height() - self.height()  # the title bar
        if frame.height() > area.height():
            self.resize(self.width(), max(self.minimumSizeHint().height(), area.height() - extra))
            frame = self.frameGeometry()
        top = min(frame.top(), area.bottom() - frame.height() + 1)
        top = max(top, area.top())
        if top != frame.top():
            self.move(frame.left(), top)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.grow_to_fit()  # the cards' real sizes are known once shown; never past the screen

    def _refresh(self) -> None:
        missing = len(self.request.undecided())
        total = len(self.request.actions)
        self.submit_button.setEnabled(missing == 0)
        self.approve_all_button.setEnabled(missing > 0 and self.request.can_approve_all)
        self.approve_all_button.setText(
            "Approve all" if missing in (0, total) else f"Approve the other {missing}"
        )
        self.progress_label.setText(
            "Every call decided" if missing == 0 else f"{total - missing} of {total} decided"
        )

    def _approve_all(self) -> None:
        self.request.approve_all()

    def _submit(self) -> None:
        if self.request.complete and self.request.state == "open":
            self.request.submit()

    def _on_cancelled(self) -> None:
        QDialog.reject(self)

    def reject(self) -> None:
        """Esc, the close button and "Answer later": cancel the request (the run stays paused)."""
        if self.request.state == "open":
            self.request.cancel()  # -> _on_cancelled closes the dialog
        else:
            super().reject()
