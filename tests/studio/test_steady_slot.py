"""``SteadySlot``: a widget whose content changes often, in a layout that hears of it only when
its size hints change."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QHBoxLayout, QSizePolicy, QWidget

from studio.widgets.plain_text import plain_label
from studio.widgets.steady_slot import SteadySlot, steady


class _Layouts(QObject):
    def __init__(self, widget: QWidget) -> None:
        super().__init__()
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self.count += 1
        return False


def _settle(qtbot: Any) -> None:
    for _ in range(3):
        QApplication.processEvents()
        qtbot.wait(10)


def _window(qtbot: Any, text: str) -> tuple[QWidget, Any, SteadySlot]:
    window = QWidget()
    qtbot.addWidget(window)
    label = plain_label(text)
    slot = steady(label)
    row = QHBoxLayout(window)
    row.addWidget(slot)
    row.addStretch(1)
    window.resize(400, 40)
    window.show()
    qtbot.waitExposed(window)
    _settle(qtbot)
    return window, label, slot


def test_the_child_fills_the_slot_at_its_size_hint(qtbot: Any) -> None:
    _, label, slot = _window(qtbot, "Step 12")
    assert label.parentWidget() is slot
    assert label.geometry() == slot.rect()
    assert slot.sizeHint() == label.sizeHint()
    assert slot.width() == label.sizeHint().width()


def test_a_text_of_the_same_size_does_not_re_lay_out_the_window(qtbot: Any) -> None:
    window, label, slot = _window(qtbot, "Step 12")
    layouts = _Layouts(window)
    label.setText("Step 13")
    _settle(qtbot)
    assert label.text() == "Step 13"
    assert layouts.count == 0
    label.setText("Step 1,234,567")  # wider: the layout gives it room
    qtbot.waitUntil(lambda: slot.width() == label.sizeHint().width())
    assert layouts.count > 0
    assert label.geometry() == slot.rect()


def test_limits_policy_and_visibility_follow_the_child(qtbot: Any) -> None:
    _, label, slot = _window(qtbot, "a node name")
    label.setMaximumWidth(60)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    qtbot.waitUntil(lambda: slot.maximumWidth() == 60)
    assert slot.sizePolicy().horizontalPolicy() == QSizePolicy.Policy.Ignored
    label.hide()
    assert slot.isHidden()
    label.show()
    assert not slot.isHidden()


def test_a_new_text_in_an_ignored_direction_does_not_re_lay_out_the_window(qtbot: Any) -> None:
    """A header that takes what its row leaves it (Ignored width, as the State dock's): layouts
    read no width hint from it, so a longer or shorter text moves nothing above it."""
    window, label, slot = _window(qtbot, "Step 3 · loop")
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    label.setMinimumWidth(40)
    _settle(qtbot)
    before = slot.geometry()
    layouts = _Layouts(window)
    label.setText("Step 33 · loop · written by TodoListMiddleware.after_model")
    _settle(qtbot)
    assert layouts.count == 0
    assert slot.geometry() == before
    assert label.geometry() == slot.rect()
    label.setFont(_bigger(label))  # its height does count: the layout hears of it
    qtbot.waitUntil(lambda: layouts.count > 0)
    qtbot.waitUntil(lambda: slot.height() == label.sizeHint().height())


def _bigger(label: QWidget) -> Any:
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * 2)
    return font
