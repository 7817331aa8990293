"""Recording and reading back: every event kind, several runs, checkpoints, graph shapes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import START, Command, StateGraph
from engine.events import EVENT_CLASSES, event_to_dict
from engine.recording import Session, SessionError, SessionRecorder
from tests.engine.recording.helpers import RUN, Log, cfg, every_kind, log_graph


def test_every_event_kind_round_trips(tmp_path):
    path = tmp_path / "kinds.stepwise"
    events = every_kind()
    with SessionRecorder(path) as rec:
        for ev in events:
            rec.listener(ev)
    with Session.open(path) as s:
        back = s.events(RUN, limit=None)
        assert [event_to_dict(e) for e in back] == [event_to_dict(e) for e in events]
        assert {e.kind for e in back} == set(EVENT_CLASSES)
        assert s.count() == len(events) == s.last_seq(RUN)
        assert s.count(kinds=["attempt.finished", "route"]) == 2
        (run,) = s.runs()
        assert (run.run_id, run.thread_id, run.graph, run.status) == (RUN, "t", "demo", "done")
        assert run.input == {"messages": [{"type": "human", "content": "hi"}]} and run.output == {
            "n": 1
        }
        assert run.started == events[0].ts and run.finished == events[-1].ts


def test_runs_of_a_graph_with_interrupt_and_resume(tmp_path):
    path = tmp_path / "runs.stepwise"
    rec = SessionRecorder(path)
    graph = log_graph(rec.checkpointer)
    rec.attach(graph)
    graph.invoke({"log": []}, cfg("t1"))
    graph.invoke(Command(resume="yes"), cfg("t1"))
    graph.invoke({"log": []}, cfg("t2"))
    rec.flush()
    # readable while the recorder still has the file open
    with Session.open(path) as s:
        runs = s.runs()
        assert [(r.thread_id, r.status, r.resumed) for r in runs] == [
            ("t1", "interrupted", False),
            ("t1", "done", True),
            ("t2", "interrupted", False),
        ]
        assert [r.index for r in runs] == [1, 2, 3]
        assert s.threads() == ["t1", "t2"]
        assert [r.run_id for r in s.runs("t1")] == [r.run_id for r in runs[:2]]
        assert runs[1].output == {"log": ["a", "ask:yes"]}
        for r in runs:
            evs = s.events(r.run_id, limit=None)
            assert [e.seq for e in evs] == list(range(1, len(evs) + 1))
            assert {e.run_id for e in evs} == {r.run_id}
            assert evs[0].kind == "run.started" and evs[-1].kind == "run.finished"
            assert s.shape(r.run_id) == graph.get_graph().to_dict()
        assert s.count() == sum(s.count(r.run_id) for r in runs)
        # the node column: events inside a node span carry its name
        raised = s.events(runs[0].run_id, kinds=["interrupt.raised"])
        assert [e.node for e in raised] == ["ask"]
        assert s.run(runs[2].run_id) == runs[2]
        with pytest.raises(KeyError):
            s.run("nope")
    rec.close()


def test_checkpoints_and_state_from_the_session(tmp_path):
    path = tmp_path / "cp.stepwise"
    with SessionRecorder(path) as rec:
        graph = log_graph(rec.checkpointer)
        rec.attach(graph)
        graph.invoke({"log": []}, cfg("t"))
        graph.invoke(Command(resume="ok"), cfg("t"))
        history = list(graph.get_state_history(cfg("t")))
    with Session.open(path) as s:
        cps = s.checkpoints("t")
        expected = list(reversed(history))  # oldest first
        assert [c.checkpoint_id for c in cps] == [
            h.config["configurable"]["checkpoint_id"] for h in expected
        ]
        assert [c.step for c in cps] == [-1, 0, 1, 2]
        assert [c.source for c in cps] == ["input", "loop", "loop", "loop"]
        assert [c.next for c in cps] == [("__start__",), ("a",), ("ask",), ()]
        assert [c.parent_id for c in cps] == [None, *[c.checkpoint_id for c in cps[:-1]]]
        runs = s.runs()
        assert [c.run_id for c in cps] == [runs[0].run_id] * 3 + [runs[1].run_id]
        # the stored channel values (without the graph, channels never written are absent)
        assert s.state("t", cps[0].checkpoint_id) == {}
        for c, h in zip(cps[1:], expected[1:], strict=True):
            assert s.state("t", c.checkpoint_id) == h.values
        assert s.state("t") == {"log": ["a", "ask:ok"]}
        assert "__start__" in s.state("t", cps[0].checkpoint_id, internal=True)
        assert s.checkpoints("other") == []
        with pytest.raises(KeyError):
            s.state("t", "01a1ff00-0000-7000-8000-00000000dead")


def test_listener_without_attach_and_graph_shape_by_name(tmp_path):
    path = tmp_path / "listener.stepwise"
    with SessionRecorder(path) as rec:
        graph = log_graph(rec.checkpointer, name="named")
        rec.add_graph(graph)
        sub = graph.subscribe(rec.listener)
        graph.invoke({"log": []}, cfg("t"))
        sub.close()
    with Session.open(path) as s:
        (run,) = s.runs()
        assert run.graph == "named"
        drawable = s.drawable(run.run_id)
        assert drawable is not None
        assert drawable.draw_mermaid() == graph.get_graph().draw_mermaid()


def test_update_state_events_and_error_runs(tmp_path):
    path = tmp_path / "misc.stepwise"

    def explode(state: Log) -> dict:
        raise ValueError("boom")

    b = StateGraph(Log)
    b.add_node("explode", explode)
    b.add_edge(START, "explode")
    with SessionRecorder(path) as rec:
        graph = log_graph(rec.checkpointer)
        failing = b.compile(checkpointer=rec.checkpointer, name="failing")
        rec.attach(graph)
        rec.attach(failing)
        graph.invoke({"log": []}, cfg("t"))
        graph.update_state(cfg("t"), {"log": ["edited"]})
        with pytest.raises(ValueError, match="boom"):
            failing.invoke({"log": []}, cfg("bad"))
    with Session.open(path) as s:
        first, update, failed = s.runs()
        assert first.status == "interrupted"
        # update_state events form their own group, without run.started / run.finished
        assert update.status is None and update.thread_id == "t"
        assert [e.kind for e in s.events(update.run_id)] == ["state.updated", "checkpoint.saved"]
        assert (failed.graph, failed.status, failed.thread_id) == ("failing", "error", "bad")
        assert failed.error is not None
        assert (failed.error["type"], failed.error["message"]) == ("ValueError", "boom")
        node_end = s.events(failed.run_id, kinds=["node.finished"])[0]
        assert node_end.node == "explode" and node_end.status == "error"


def test_recorder_is_inert_after_close_and_refuses_nothing_twice(tmp_path):
    path = tmp_path / "closed.stepwise"
    rec = SessionRecorder(path)
    events = every_kind()
    rec.record(events[0])
    rec.close()
    rec.close()  # idempotent
    rec.record(events[1])  # ignored
    with Session.open(path) as s:
        assert s.count() == 1
        assert s.schema_version == 1
    # a second recorder appends to the same file
    with SessionRecorder(path) as rec2:
        for ev in every_kind(run_id="01a1ff00-0000-7000-8000-000000000002"):
            rec2.record(ev)
    with Session.open(path) as s:
        assert len(s.runs()) == 2
        assert s.count() == 1 + len(events)
        assert json.loads(s.event_json(limit=1)[0])["kind"] == "run.started"


def test_session_methods_after_close_raise_session_error(tmp_path):
    path = tmp_path / "c.stepwise"
    SessionRecorder(path).close()
    s = Session.open(path)
    s.close()
    with pytest.raises(SessionError, match="closed"):
        s.runs()


def test_the_session_remembers_which_agent_produced_it(tmp_path: Path) -> None:
    path = tmp_path / "agent.stepwise"
    recorder = SessionRecorder(path)
    recorder.set_agent("/work/agents/my_agent.py:agent", "my_agent")
    recorder.close()
    with Session.open(path) as session:
        assert session.agent_spec("my_agent") == "/work/agents/my_agent.py:agent"
        assert session.agent_spec() == "/work/agents/my_agent.py:agent"
        assert session.agent_spec("other") is None
