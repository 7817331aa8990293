"""The what-if playground: one model call's exact request, editable, sent again.

Left, the request as JSON (model, system prompt, messages, tools offered, tool choice,
parameters); right, the answers side by side: the recorded original first, then each one
sent from here.  "Send to" picks the agent's own model, the model chosen in Settings, or a
scripted answer typed below.  Under each answer, "Continue from here" forks the thread at the
call's checkpoint as if the model had given that answer and runs on (the old branch stays);
"Re-run from here with this model" runs the rest of the run on the chosen model.

Model calls are asyncio tasks on the studio's loop: the window never waits.  A bad edit or a
model that cannot be reached is one line under the editor or in the answer's card; nothing
typed is lost.  Everything from the agent or a model is shown as escaped text.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFrame,
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from engine.events import EventBase
from engine.targets import Capability
from studio.dialogs.dialog_kit import dialog_style, mono_font
from studio.docks.diff.html import message_card, page
from studio.look.palette import Palette, colors
from studio.models.hub import Hub
from studio.models.playground import (
    Answer,
    PlaygroundRequest,
    agent_model,
    asend,
    enclosing_node,
    original_answer,
    parse_request,
    request_for,
    scripted_answer,
)
from studio.run.capabilities import can
from studio.widgets.plain_text import plain_label, plain_tip

if TYPE_CHECKING:
    from studio.run.controller import RunController

__all__ = ["PlaygroundDialog", "Target"]

SCRIPTED = "scripted"


@dataclass(frozen=True)
class Target:
    label: str
    kind: str
    """``agent``, ``settings`` or ``scripted``."""
    model: Any = None
    why_not: str | None = None
    """Why this target cannot be used (shown greyed out)."""


def _one_line(text: str) -> str:
    return " ".join(text.split())


class _AnswerCard(QFrame):
    def __init__(self, answer: Answer, c: Palette, can_continue: str | None) -> None:
        super().__init__()
        self.answer = answer
        self.setObjectName("answerCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setMinimumWidth(230)
        title = answer.source
        if answer.latency_ms is not None:
            title += f"  ·  {answer.latency_ms:,.0f} ms"
        self.title = plain_label(title)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setStyleSheet("font-weight: 600;")
        self.title.setWordWrap(True)
        self.title.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.title.setMinimumHeight(self.title.fontMetrics().lineSpacing() * 2 + 2)
        self.body = QTextBrowser()
        self.body.setOpenLinks(False)
        if answer.message is not None:
            self.body.setHtml(page(message_card(answer.message, c), c))
        else:
            self.body.setHtml(
                page(
                    f'<p style="color:{c.danger}">{html.escape(_one_line(answer.error or ""))}</p>',
                    c,
                )
            )
        self.continue_button = QPushButton("Continue from here")
        self.continue_button.setObjectName("continueButton")
        ok = answer.message is not None and can_continue is None
        self.continue_button.setEnabled(ok)
        self.continue_button.setToolTip(
            plain_tip(
                can_continue
                or "Fork the thread at this call's checkpoint with this answer and run on "
                "(the old branch stays)"
            )
        )
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addWidget(self.title)
        lay.addWidget(self.body, 1)
        lay.addWidget(self.continue_button)


class PlaygroundDialog(QDialog):
    def __init__(
        self,
        hub: Hub,
        controller: RunController | None,
        event: EventBase,
        settings_model: Callable[[], Any] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.hub = hub
        self.controller = controller
        self.call = event
        self.setWindowTitle("What if… (model call playground)")
        self.setObjectName("PlaygroundDialog")
        self.c = colors(hub.theme)
        self.setStyleSheet(dialog_style(self.c))
        events = list(hub.events)
        self.node = enclosing_node(events, event)
        self.request: PlaygroundRequest = request_for(events, event, graph=hub.graph)
        self.answers: list[Answer] = [original_answer(events, event)]
        self.cards: list[_AnswerCard] = []
        self.task: asyncio.Task[Any] | None = None
        self.sending = False
        self.targets = self._targets(settings_model)
        self._build()
        self._show_answers()
        self._fit_to_screen()

    # -- what can be done --------------------------------------------------------------------

    def _targets(self, settings_model: Callable[[], Any] | None) -> list[Target]:
        own = agent_model(self.hub.graph, self.node)
        name = self.request.model or "model"
        out = [
            Target(f"Agent's model ({name})", "agent", own)
            if own is not None
            else Target(
                "Agent's model",
                "agent",
                why_not="the agent's model cannot be reached here (an attached app or a "
                "recorded session): use Settings' model or a scripted answer",
            )
        ]
        other = None
        try:
            other = settings_model() if settings_model is not None else None
        except Exception as exc:  # a bad Settings entry: say it, keep the rest usable
            out.append(Target("Settings' model", "settings", why_not=_one_line(str(exc))))
        else:
            label = getattr(other, "model_name", None)
            out.append(
                Target(f"Settings' model ({label})", "settings", other)
                if other is not None
                else Target(
                    "Settings' model",
                    "settings",
                    why_not="no model is chosen in Settings (File > Settings: provider openai)",
                )
            )
        out.append(Target("Scripted answer (type it below)", SCRIPTED))
        return out

    def continue_blocker(self) -> str | None:
        """Why "Continue from here" cannot be used (None when it can)."""
        ev = self.call
        forks, why = can(self.hub, Capability.FORK)
        if not forks or self.controller is None:
            return why or "Continuing needs the agent loaded (not a recorded session alone)"
        if self.controller.graph is None:
            return "Continuing needs the agent loaded (not a recorded session alone)"
        if ev.ns:
            return "This call was made inside a subgraph: forking there is not supported yet"
        if not ev.checkpoint_id or not self.node:
            return "The call's checkpoint or node is not known"
        return None

    # -- building ------------------------------------------------------------------------------

    def _build(self) -> None:
        ev = self.call
        where = f"node {self.node}" if self.node else "an unknown node"
        head = f"Model call · {where} · step {ev.step} · {self.request.model} · event #{ev.seq}"
        self.header = plain_label(head)
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.header.setStyleSheet("font-weight: 600;")
        self.note = plain_label(
            "Only the last messages of this call were recorded: the history before them is "
            "missing from the request below."
        )
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color: {self.c.warn};")
        self.note.setVisible(not self.request.complete)

        self.editor = QPlainTextEdit()
        self.editor.setObjectName("requestEditor")
        self.editor.setFont(mono_font(12))
        self.editor.setPlainText(self.request.to_text())
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.reset_button = QPushButton("Reset")
        self.reset_button.setToolTip("Back to the request as it was sent")
        self.reset_button.clicked.connect(lambda: self.editor.setPlainText(self.request.to_text()))
        self.error_label = plain_label()
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setStyleSheet(f"color: {self.c.danger};")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        left = QWidget()
        left_lay = QVBoxLayout(left)
        left_lay.setContentsMargins(0, 0, 0, 0)
        req_head = QHBoxLayout()
        req_head.addWidget(plain_label("Request (edit the JSON)"))
        req_head.addStretch(1)
        req_head.addWidget(self.reset_button)
        left_lay.addLayout(req_head)
        left_lay.addWidget(self.editor, 1)
        left_lay.addWidget(self.error_label)

        self.answers_row = QWidget()
        self.answers_lay = QHBoxLayout(self.answers_row)
        self.answers_lay.setContentsMargins(0, 0, 0, 0)
        self.answers_scroll = QScrollArea()
        self.answers_scroll.setWidgetResizable(True)
        self.answers_scroll.setWidget(self.answers_row)
        self.answers_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        right = QWidget()
        right_lay = QVBoxLayout(right)
        right_lay.setContentsMargins(0, 0, 0, 0)
        right_lay.addWidget(plain_label("Answers, side by side"))
        right_lay.addWidget(self.answers_scroll, 1)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([440, 660])
        self.splitter.setChildrenCollapsible(False)

        self.target_combo = QComboBox()
        self.target_combo.setObjectName("targetCombo")
        for t in self.targets:
            self.target_combo.addItem(t.label, t.kind)
        model = self.target_combo.model()
        first_usable = 0
        for i, t in enumerate(self.targets):
            if t.why_not:
                if isinstance(model, QStandardItemModel):
                    item = model.item(i)
                    if item is not None:
                        item.setEnabled(False)
                        item.setToolTip(plain_tip(t.why_not))
                if i == first_usable:
                    first_usable = i + 1
        self.target_combo.setCurrentIndex(min(first_usable, len(self.targets) - 1))
        self.scripted_edit = QPlainTextEdit()
        self.scripted_edit.setObjectName("scriptedAnswer")
        self.scripted_edit.setPlaceholderText(
            'The model\'s answer: text, or JSON such as {"content": "", "tool_calls": '
            '[{"name": "search", "args": {"q": "x"}}]}'
        )
        self.scripted_edit.setFixedHeight(64)
        self.send_button = QPushButton("Send")
        self.send_button.setObjectName("sendButton")
        self.send_button.setDefault(True)
        self.rerun_button = QPushButton("Re-run from here with this model")
        self.rerun_button.setObjectName("rerunButton")
        self.status = plain_label()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        close = QPushButton("Close")
        close.clicked.connect(self.close)

        bar = QHBoxLayout()
        bar.addWidget(plain_label("Send to:"))
        bar.addWidget(self.target_combo, 1)
        bar.addWidget(self.send_button)
        bar.addSpacing(12)
        bar.addWidget(self.rerun_button)
        bar.addStretch(0)
        bar.addWidget(close)

        lay = QVBoxLayout(self)
        lay.addWidget(self.header)
        lay.addWidget(self.note)
        lay.addWidget(self.splitter, 1)
        lay.addWidget(self.scripted_edit)
        lay.addLayout(bar)
        lay.addWidget(self.status)

        self.send_button.clicked.connect(self.send)
        self.rerun_button.clicked.connect(self.rerun)
        self.target_combo.currentIndexChanged.connect(lambda _i: self._on_target())
        self._on_target()

    def _fit_to_screen(self) -> None:
        screen = self.screen().availableGeometry() if self.screen() else None
        width, height = 1180, 720
        if screen is not None:  # most of a laptop's screen; a roomy window on a big one
            width = min(max(width, int(screen.width() * 0.8)), int(screen.width() * 0.94), 1600)
            height = min(max(height, int(screen.height() * 0.8)), int(screen.height() * 0.9), 960)
        self.resize(width, height)

    def target(self) -> Target:
        return self.targets[max(self.target_combo.currentIndex(), 0)]

    def _on_target(self) -> None:
        t = self.target()
        scripted = t.kind == SCRIPTED
        self.scripted_edit.setVisible(scripted)
        usable = t.why_not is None
        busy = self.sending
        self.send_button.setEnabled(usable and not busy)
        self.rerun_button.setEnabled(
            usable and not scripted and not busy and self.continue_blocker() is None
        )
        self.rerun_button.setToolTip(
            "Run the rest of this run from the call's checkpoint with this model answering "
            "every model call (a new branch)"
        )

    def _show_answers(self) -> None:
        while self.answers_lay.count():
            item = self.answers_lay.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        blocker = self.continue_blocker()
        self.cards = []
        for i, answer in enumerate(self.answers):
            card = _AnswerCard(answer, self.c, blocker)
            if i == 0:  # the original: continuing with it is what the run did
                card.continue_button.setText("Resume (the original)")
            card.continue_button.clicked.connect(lambda _c=False, a=answer: self.continue_with(a))
            self.answers_lay.addWidget(card, 1)
            self.cards.append(card)

    # -- actions -------------------------------------------------------------------------------

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet(f"color: {self.c.danger};" if error else "")
        self.status.setText(text)

    def edited_request(self) -> PlaygroundRequest | None:
        try:
            request = parse_request(self.editor.toPlainText())
        except ValueError as exc:
            self.error_label.setText(str(exc))
            self.error_label.show()
            return None
        self.error_label.hide()
        return request

    def send(self) -> asyncio.Task[Any] | None:
        """Send the edited request to the chosen target (an asyncio task; never blocks)."""
        if self.sending:
            return None
        request = self.edited_request()
        if request is None:
            return None
        t = self.target()
        if t.why_not:
            self._say(t.why_not, error=True)
            return None
        if t.kind == SCRIPTED:
            try:
                message = scripted_answer(self.scripted_edit.toPlainText())
            except ValueError as exc:
                self._say(str(exc), error=True)
                return None
            self._add(Answer("Scripted answer", message=message), "Added the scripted answer")
            return None
        self._say(f"Asking {t.label}…")
        self.sending = True
        self._on_target()
        self.task = asyncio.ensure_future(self._send(request, t))
        return self.task

    async def _send(self, request: PlaygroundRequest, target: Target) -> None:
        try:
            answer = await asend(request, target.model, target.label)
        finally:
            self.sending = False
            self._on_target()
        self._add(answer)

    def _add(self, answer: Answer, said: str | None = None) -> None:
        self.answers.append(answer)
        self._show_answers()
        self._on_target()
        if answer.error:
            self._say(f"{answer.source}: {answer.error}", error=True)
        else:
            self._say(said or f"{answer.source} answered")
        bar = self.answers_scroll.horizontalScrollBar()
        bar.setValue(bar.maximum())

    def continue_with(self, answer: Answer) -> None:
        """Fork at the call's checkpoint with ``answer`` as the model node's reply, run on."""
        blocker = self.continue_blocker()
        ev, ctl, node = self.call, self.controller, self.node
        cid = ev.checkpoint_id
        # (``continue_blocker`` is None only with a controller, a checkpoint and a node)
        if blocker or answer.message is None or ctl is None or not cid or not node:
            self._say(blocker or "This answer is an error: nothing to continue with", True)
            return
        try:
            if answer is self.answers[0]:
                ctl.resume_from(cid)
            else:
                ctl.continue_with_answer(cid, node, answer.message)
        except RuntimeError as exc:
            self._say(str(exc), error=True)
            return
        self._say(f"Running on a new branch from step {ev.step} with {answer.source}")

    def rerun(self) -> None:
        t = self.target()
        if t.why_not or t.kind == SCRIPTED or t.model is None:
            self._say(t.why_not or "Choose a model to re-run with", error=True)
            return
        blocker = self.continue_blocker()
        ctl, cid = self.controller, self.call.checkpoint_id
        if blocker or ctl is None or not cid:  # (no blocker: a controller and a checkpoint)
            self._say(blocker or "The call's checkpoint is not known", error=True)
            return
        try:
            ctl.rerun_with_model(cid, t.model)
        except RuntimeError as exc:
            self._say(str(exc), error=True)
            return
        self._say(f"Re-running from step {self.call.step} with {t.label}")

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
        super().closeEvent(event)
