"""The **Request** dock: the full request the selected model call sent, as the provider got it.

Select a model call anywhere (a ``model …`` row of the Events dock, a bar of the Waterfall, or
an attempt, wrapper or node that made exactly one call) and this dock shows its request: the
model and its parameters, ``tool_choice``, every message (the system prompt first), the tools
with their JSON schemas and the structured-output schema.  Two tabs: **Text** (for reading) and
**JSON** (a tree of the same document); **Copy** puts the tab's content on the clipboard (the
JSON tab copies the whole document as JSON).  All of it is plain text: nothing from a model
or a session is ever rendered as rich text.  Credentials never reach it (the engine redacts
them before the event exists).
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.events import EventBase, ModelRequest
from studio.models.hub import Hub
from studio.models.request_view import RequestIndex, as_text, document, unbound_tools
from studio.widgets.dock_support import bind_to_hub, copy_text
from studio.widgets.elided_label import ElidedLabel
from studio.widgets.plain_text import plain_label
from studio.widgets.plain_tip import plain_tip

__all__ = ["RequestDock"]

_EMPTY = (
    "Select a model call (a “model …” row in Events, or a bar in the Waterfall) "
    "to see the whole request it sent: messages, tools with their schemas, parameters."
)
_SCALAR_CHARS = 200


class RequestDock(QWidget):
    """Key widgets: ``title``, ``tabs`` (``text_view``, ``tree``), ``copy_button``,
    ``placeholder``.  ``doc`` is the document shown (None: no call selected yet)."""

    def __init__(self, hub: Hub, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RequestDock")
        self.hub = hub
        self.index = RequestIndex()
        self.request: ModelRequest | None = None
        self.doc: dict[str, Any] | None = None
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)

        self.title = ElidedLabel(parent=self)
        self.copy_button = QPushButton("Copy", self)
        self.copy_button.setToolTip("Copy the tab shown (JSON: the whole request as JSON)")
        self.copy_button.clicked.connect(self.copy)
        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 2)
        bar.addWidget(self.title, 1)
        bar.addWidget(self.copy_button)

        self.text_view = QPlainTextEdit(self)
        self.text_view.setReadOnly(True)
        self.text_view.setFont(mono)
        self.text_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.tree = QTreeWidget(self)
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["Key", "Value"])
        self.tree.setUniformRowHeights(True)
        self.tree.setFont(mono)
        self.tabs = QTabWidget(self)
        self.tabs.addTab(self.text_view, "Text")
        self.tabs.addTab(self.tree, "JSON")
        self.placeholder = plain_label(_EMPTY, self)
        self.placeholder.setObjectName("muted")
        self.placeholder.setWordWrap(True)
        self.placeholder.setTextFormat(self.placeholder.textFormat().PlainText)
        self.placeholder.setContentsMargins(12, 12, 12, 12)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(self.tabs)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)

        bind_to_hub(
            self,
            hub,
            {"event": self.show_event, "events": self._on_events, "reset": self._on_reset},
            catch_up=True,
        )
        self.index.add_all(hub.events)
        self._show(None)
        if hub.selected_event is not None:
            self.show_event(hub.selected_event)

    # -- hub --------------------------------------------------------------------------------------

    def _on_events(self, batch: list[EventBase]) -> None:
        self.index.add_all(batch)
        req = self.request
        if req is not None and any(
            e.kind == "model.response" and e.span_id == req.span_id for e in batch
        ):
            self._show(req)  # its answer names the model that replied

    def _on_reset(self) -> None:
        self.index.reset()
        self._show(None)

    def show_event(self, event: EventBase | None) -> None:
        """Show the request of the model call ``event`` stands for; anything else keeps the
        request shown (selecting a route or a state change does not blank this dock)."""
        request = self.index.request_for(event)
        if request is not None and request is not self.request:
            self._show(request)

    # -- showing ----------------------------------------------------------------------------------

    def _show(self, request: ModelRequest | None) -> None:
        self.request = request
        if request is None:
            self.doc = None
            self.title.setText("No model call selected")
            self.copy_button.setEnabled(False)
            self.stack.setCurrentWidget(self.placeholder)
            return
        doc = document(request, self.index)
        self.doc = doc
        n_msg, n_tools = len(doc.get("messages") or []), len(doc.get("tools") or [])
        partial = "" if doc.get("complete", True) else " · partial (old session)"
        unbound = unbound_tools(request, self.hub.drawable) if n_tools == 0 else []
        tools = f"{n_tools} tool{'s' if n_tools != 1 else ''}"
        if unbound:
            tools = f"0 of the agent's {len(unbound)} tools"
        self.title.setText(
            f"model {doc.get('model')} · {n_msg} message{'s' if n_msg != 1 else ''} · "
            f"{tools} · #{request.seq}{partial}"
        )
        text = as_text(doc)
        note = ""
        if unbound:
            note = (
                f"No tool reached this model call, but the agent's tool node has "
                f"{', '.join(unbound)}: a model whose bind_tools returns itself (as "
                "LangChain's fake chat models do) is called without the agent's tools."
            )
            text = f"{text.rstrip()}\n\n({note})"
        # the model name is the agent's: the tip shows it as plain text
        self.title.setToolTip(plain_tip("\n\n".join(filter(None, [self.title.full_text(), note]))))
        self.text_view.setPlainText(text)
        self._fill_tree(doc)
        self.copy_button.setEnabled(True)
        self.stack.setCurrentWidget(self.tabs)

    def _fill_tree(self, doc: dict[str, Any]) -> None:
        self.tree.clear()
        for key, value in doc.items():
            item = _item(str(key), value)
            self.tree.addTopLevelItem(item)
            item.setExpanded(key in ("parameters", "messages"))
        self.tree.resizeColumnToContents(0)

    def text(self) -> str:
        """What Copy copies now."""
        if self.doc is None:
            return ""
        if self.tabs.currentWidget() is self.tree:
            return json.dumps(self.doc, indent=2, ensure_ascii=False, default=str)
        return self.text_view.toPlainText()

    def copy(self) -> None:
        copy_text(self.text())


def _item(key: str, value: Any) -> QTreeWidgetItem:
    item = QTreeWidgetItem([key, ""])
    if isinstance(value, dict):
        item.setText(1, f"{{{len(value)}}}")
        for k, v in value.items():
            item.addChild(_item(str(k), v))
    elif isinstance(value, list):
        item.setText(1, f"[{len(value)}]")
        for i, v in enumerate(value):
            item.addChild(_item(_label(i, v), v))
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
        one_line = " ".join(text.split())
        if len(one_line) > _SCALAR_CHARS:
            one_line = one_line[: _SCALAR_CHARS - 1] + "…"
        item.setText(1, one_line)
    return item


def _label(i: int, value: Any) -> str:
    """``0 system``, ``3 tool add``: list items of messages and tools say what they are."""
    if isinstance(value, dict):
        kind = value.get("type") or value.get("role")
        name = value.get("name")
        if kind or name:
            return " ".join([str(i), *(str(x) for x in (kind, name) if x)])
    return str(i)
