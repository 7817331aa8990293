"""The Events tree's columns: the event itself takes what the other columns leave, and never
less than ``EVENT_MIN`` pixels (a narrow dock scrolls the other columns instead of squeezing
the event to a few letters), through dock and column resizes."""

from __future__ import annotations

from typing import Any

from studio.docks.events.columns import EVENT_FLOOR, EVENT_MIN, NODE_MIN
from studio.docks.events.view import EventLogDock
from studio.models.hub import Hub
from tests.studio.event_samples import seed000_events


def _dock(qtbot: Any, width: int) -> EventLogDock:
    hub = Hub()
    dock = EventLogDock(hub)
    qtbot.addWidget(dock)
    dock.resize(width, 400)
    dock.show()
    qtbot.waitExposed(dock)
    dock._on_events(seed000_events())
    return dock


def _widths(dock: EventLogDock) -> list[int]:
    header = dock.view.header()
    return [header.sectionSize(c) for c in range(header.count())]


def test_a_narrow_dock_keeps_the_event_readable_and_the_times_in_sight(qtbot: Any) -> None:
    for width in (480, 400):  # a third of a 1366-pixel screen, and less
        dock = _dock(qtbot, width)
        event, node, time, duration, _cost = _widths(dock)
        shown = dock.view.viewport().width()
        assert event >= EVENT_FLOOR  # was about 25 pixels: "Ev"
        assert event >= min(EVENT_MIN, shown - NODE_MIN - time - duration)
        assert node >= NODE_MIN and event + node + time + duration <= shown  # Duration in sight
        assert sum(_widths(dock)) > shown  # the Cost column scrolls


def test_a_wide_dock_gives_the_event_the_rest(qtbot: Any) -> None:
    dock = _dock(qtbot, 1400)
    assert sum(_widths(dock)) == dock.view.viewport().width()  # no gap, no scrolling
    dock.resize(600, 400)
    qtbot.waitUntil(lambda: dock.view.viewport().width() < 600)
    assert _widths(dock)[0] >= EVENT_MIN
    header = dock.view.header()
    dock.resize(1400, 400)
    qtbot.waitUntil(lambda: sum(_widths(dock)) == dock.view.viewport().width())
    before = header.sectionSize(0)
    header.resizeSection(1, header.sectionSize(1) + 50)  # the user widens the Node column
    assert header.sectionSize(0) == before - 50
