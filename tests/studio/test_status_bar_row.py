"""The status bar's fields and the debug toolbar's buttons change several times per agent turn:
a new text re-lays out the status bar's own row, a button enabled or not the toolbar's own
buttons, never the main window (its docks, toolbars and separators); and the fields sit where ``QStatusBar`` puts its items (state and note at the left, the figures
and the cost at the right)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint
from PySide6.QtGui import QStatusTipEvent
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from tests.studio.app_agents import make_window


class _Seen(QObject):
    def __init__(self, widget: QWidget) -> None:
        super().__init__()
        self.kinds: list[QEvent.Type] = []
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self.kinds.append(event.type())

        return False


def _settle(qtbot: Any) -> None:
    for _ in range(3):
        QApplication.processEvents()
        qtbot.wait(10)


def _x(widget: QWidget, window: QWidget) -> tuple[int, int]:
    left = widget.mapTo(window, QPoint(0, 0)).x()
    return left, left + widget.width()


def test_a_field_of_another_width_stays_in_the_status_bar(qtbot: Any, tmp_path: Any) -> None:
    window = make_window(qtbot, tmp_path)
    window.resize(1366, 738)
    qtbot.waitExposed(window)
    seen = _Seen(window)

    def quiet() -> bool:  # the window done with its first layouts and paints
        seen.kinds.clear()
        _settle(qtbot)
        return not seen.kinds

    qtbot.waitUntil(quiet)
    status = window.status
    node, step = status.fields["node"], status.fields["step"]
    node.setText("a_much_longer_node_name")  # wider: the figures left of it move
    step.setText("Step 12")
    status.state_label.setText("Running")
    _settle(qtbot)
    assert seen.kinds == []  # the window is not laid out again: the bar's row only
    # the fields in QStatusBar's places: 2 px in, 6 px apart, the last one at the right edge
    # the note's place holds the note, or an action's status tip while the pointer rests on
    # one (an earlier test may leave it on the toolbar)
    note = status.message_label if status.message_label.isVisibleTo(window) else status.tip_label
    fields = [status.state_label, note, *status.fields.values()]
    spans = [_x(f, window) for f in fields]
    assert spans[0][0] == 2
    assert all(b[0] - a[1] == 6 for a, b in pairwise(spans))
    assert spans[-1][1] == status.width()
    # a field added at the right end (as the cost is: the app's own cost field shows and
    # hides itself with the hub's events, so a label of the test's stands in for it)
    extra = QLabel("$0.01 run")
    extra.setObjectName("statusField")
    status.add_field(extra)
    # the row lays itself out when the loop gets to it (later on a loaded machine)
    qtbot.waitUntil(lambda: _x(extra, window)[1] == status.width())
    left = window.cost_status if window.cost_status.isVisible() else status.fields["tokens"]
    assert _x(extra, window)[0] - _x(left, window)[1] == 6
    assert seen.kinds == []


def test_a_button_enabled_or_not_does_not_re_lay_out_the_window(qtbot: Any, tmp_path: Any) -> None:
    window = make_window(qtbot, tmp_path)
    qtbot.waitExposed(window)
    seen = _Seen(window)

    def quiet() -> bool:
        seen.kinds.clear()
        _settle(qtbot)
        return not seen.kinds

    qtbot.waitUntil(quiet)
    actions = window.actions_
    run = window.debug_toolbar.widgetForAction(actions.run)
    assert run is not None and run.isVisible()
    for status, paused, busy in (("running", False, True), ("done", False, False)):
        actions.update(status, paused, True, busy)
        _settle(qtbot)
        assert run.isEnabled() == (not busy) and actions.stop.isEnabled() == busy
    assert seen.kinds == []


def test_a_status_tip_shows_in_the_note_and_the_figures_stay(qtbot: Any, tmp_path: Any) -> None:
    window = make_window(qtbot, tmp_path)
    qtbot.waitExposed(window)
    status = window.status
    status.show_message("session saved")
    run = window.actions_.run
    assert run.statusTip()
    # the pointer on the Run button: Qt sends its status tip up to the window
    QApplication.sendEvent(window, QStatusTipEvent(run.statusTip()))
    assert status.tip_label.text() == run.statusTip() and status.tip_label.isVisibleTo(window)
    assert not status.message_label.isVisibleTo(window)  # the tip in the note's place
    assert status.message_label.text() == "session saved"  # which keeps its text
    assert status.row.isVisible() and status.fields["step"].isVisible()  # not hidden by it
    assert status.currentMessage() == ""  # never QStatusBar's own message
    QApplication.sendEvent(window, QStatusTipEvent(""))  # the pointer left
    assert status.message_label.isVisibleTo(window) and not status.tip_label.isVisibleTo(window)
