"""The text the session writer stores for an event is the event's ``model_dump_json`` (scrubbed),
byte for byte, whichever way it is made (issue 26: the writer calls the serializer directly)."""

from __future__ import annotations

from engine.events import EventBase, event_to_dict
from engine.recording import Session, SessionRecorder
from engine.recording.recorder import event_json
from tests.engine.recording.helpers import RUN, every_kind


def test_event_text_is_the_events_json_byte_for_byte() -> None:
    for ev in every_kind():
        assert event_json(ev) == ev.model_dump_json(warnings=False), ev.kind


def test_recorded_rows_hold_that_text_and_read_back_as_the_same_events(tmp_path) -> None:
    path = tmp_path / "text.stepwise"
    events: list[EventBase] = every_kind()
    rec = SessionRecorder(path)
    for ev in events:
        rec.listener(ev)
    rec.close()
    with Session.open(path) as s:
        rows = s._conn.execute("SELECT data FROM session_events ORDER BY seq").fetchall()
        back = s.events(RUN, limit=None)
    assert [r[0] for r in rows] == [ev.model_dump_json(warnings=False) for ev in events]
    assert [event_to_dict(e) for e in back] == [event_to_dict(e) for e in events]
