"""The studio shell's plain-Python parts: status-bar stats, breakpoints, scenarios, settings,
themes, session files, event batching (no windows)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from engine.events import (
    AttemptFinished,
    DebugPaused,
    ModelResponse,
    NodeFinished,
    NodeStarted,
    RunFinished,
    RunStarted,
    SuperstepStarted,
)
from engine.graph.drawing import DrawableGraph
from studio.app.scenarios import DEFAULT_SCENARIO, builtin_scenarios
from studio.app.settings_store import MAX_RECENT, StudioSettings, apply_model_env
from studio.history.session_files import KEEP, copy_session, new_session_path
from studio.look.theme import THEMES, stylesheet, theme_variables
from studio.models.breakpoints import BreakpointsModel
from studio.models.hub import TOPICS, Hub
from studio.models.run_stats import RunStats, format_elapsed
from studio.run.event_batcher import EventBatcher

S = 1_000_000_000


def test_run_stats_fold_a_run() -> None:
    stats = RunStats()
    stats.apply(
        [
            RunStarted(run_id="r", mono_ns=1 * S),
            SuperstepStarted(run_id="r", step=3),
            NodeStarted(run_id="r", node="model", task_id="t"),
            ModelResponse(run_id="r", model="m", usage={"input_tokens": 120, "output_tokens": 30}),
            AttemptFinished(run_id="r", middleware="ModelRetry", attempt=1, outcome="error"),
            NodeStarted(run_id="r", node="tools", task_id="u", ns="tools:u"),  # a subgraph's node
        ]
    )
    parts = stats.text_parts("running", now_ns=3 * S + S // 2)
    assert parts == {
        "state": "Running",
        "step": "Step 3",
        "node": "Node model",
        "elapsed": "2.5 s",
        "models": "1 model call",
        "tokens": "150 tokens",
    }
    stats.apply([DebugPaused(run_id="r", reason="breakpoint", breakpoint="before node tools")])
    assert stats.text_parts("paused", 0)["state"] == "Paused: before node tools"
    stats.apply(
        [
            NodeFinished(run_id="r", node="model", task_id="t"),
            RunFinished(run_id="r", mono_ns=5 * S),
        ]
    )
    assert stats.current_node == "model" and stats.elapsed(100 * S) == 4.0
    stats.apply([RunStarted(run_id="r2", mono_ns=10 * S, resumed=True)])  # continues the clock
    assert stats.elapsed(11 * S) == 5.0
    assert stats.failed_attempts == 1
    stats.reset()
    assert stats.text_parts("idle", 0)["state"] == "Ready" and stats.model_calls == 0


def test_format_elapsed() -> None:
    assert [format_elapsed(s) for s in (0.04, 59.94, 125, 3723)] == [
        "0.0 s",
        "59.9 s",
        "2:05",
        "1:02:03",
    ]


def _graph() -> DrawableGraph:
    g = DrawableGraph(name="agent")
    g.add_node("__start__", "start")
    g.add_node("model", "model", wrappers=["ModelRetryMiddleware"])
    g.add_node(
        "tools", "tools", wrappers=["ToolRetryMiddleware"], tools=["write_todos", "create_file"]
    )
    g.add_node(
        "TodoListMiddleware.after_model",
        "hook",
        middleware="TodoListMiddleware",
        hook="after_model",
    )
    g.add_node("__end__", "end")
    return g


def test_breakpoints_model_edits_the_debugger_and_tells_the_hub() -> None:
    hub = Hub()
    hub.drawable = _graph()
    changes: list[None] = []
    hub.subscribe("breakpoints", lambda: changes.append(None))
    model = BreakpointsModel(hub)
    assert model.choices("before_node") == ["model", "tools", "TodoListMiddleware.after_model"]
    assert model.choices("wrapper") == ["ModelRetryMiddleware", "ToolRetryMiddleware"]
    assert model.choices("hook") == ["TodoListMiddleware"]
    assert model.choices("tool") == ["write_todos", "create_file"]
    assert model.toggle_node("tools") is True
    hook = model.add("hook", "TodoListMiddleware", "after_model")
    model.add("failure")
    cond = model.add("state", "len(messages) > 6")
    assert [b.describe() for b in model.rows()] == [
        "before node tools",
        "hook TodoListMiddleware.after_model",
        "any failure",
        "when len(messages) > 6",
    ]
    with pytest.raises(ValueError, match="Tool is missing"):
        model.add("tool", "  ")
    with pytest.raises(ValueError, match="not valid Python"):
        model.add("state", "len(messages) >")
    model.set_enabled(hook.id, False)
    assert not hook.enabled
    model.set_node("tools", False)
    assert model.node_breakpoints() == set()
    model.remove(cond.id)
    assert len(model.rows()) == 2 and len(changes) == 7
    model.clear()
    assert model.rows() == []


def test_builtin_scenarios_have_descriptions_and_the_default_comes_first() -> None:
    found = builtin_scenarios()
    assert found[0].name == DEFAULT_SCENARIO
    for s in found:
        assert s.description and "\n" not in s.description, s.name
        assert s.spec.endswith(f"{s.name}.py:agent")


def test_scenarios_are_listed_without_running_them(tmp_path: Path) -> None:
    (tmp_path / "boom.py").write_text('"""Explodes when run.\n\nMore."""\nraise SystemExit(3)\n')
    (tmp_path / "_private.py").write_text("")
    (tmp_path / "nodoc.py").write_text("x = 1\n")
    assert [(s.name, s.description) for s in builtin_scenarios(tmp_path)] == [
        ("boom", "Explodes when run."),
        ("nodoc", ""),
    ]


def test_settings_round_trip_and_never_hold_a_key(tmp_path: Path) -> None:
    path = tmp_path / "studio.json"
    s = StudioSettings(theme="dark", provider="openai", base_url="http://127.0.0.1:9/v1", model="m")
    for i in range(MAX_RECENT + 2):
        s.add_recent(f"agent{i}.py:agent")
    s.add_recent("agent3.py:agent")
    s.save(path)
    data = json.loads(path.read_text())
    assert "key" not in json.dumps(data).lower()
    loaded = StudioSettings.load(path)
    assert (
        loaded == s and loaded.recent[0] == "agent3.py:agent" and len(loaded.recent) == MAX_RECENT
    )
    path.write_text('{"theme": "purple", "provider": "x", "recent": [1, "a.py"]}')
    odd = StudioSettings.load(path)
    assert (odd.theme, odd.provider, odd.recent) == ("light", "scripted", ["a.py"])
    assert StudioSettings.load(tmp_path / "missing.json") == StudioSettings()


def test_model_env_follows_the_provider() -> None:
    env: dict[str, str] = {}
    apply_model_env(StudioSettings(provider="openai", model="gpt-x", base_url="http://h/v1"), env)
    assert env == {"STEPWISE_MODEL": "openai:gpt-x", "STEPWISE_BASE_URL": "http://h/v1"}
    apply_model_env(StudioSettings(provider="scripted", model="gpt-x"), env)
    assert env == {}


def test_themes_fill_every_variable() -> None:
    for name in THEMES:
        css = stylesheet(name)
        assert "@" not in css.split("*/", 1)[1]
        assert theme_variables(name)["accent"] in css
    assert set(theme_variables("light")) == set(theme_variables("dark"))
    with pytest.raises(ValueError):
        theme_variables("neon")


def test_session_paths_are_fresh_and_old_files_pruned(tmp_path: Path) -> None:
    for i in range(KEEP + 5):
        (tmp_path / f"old{i:03d}.stepwise").write_text("")
    first = new_session_path("retry todos/x", tmp_path)
    first.write_text("")
    second = new_session_path("retry todos/x", tmp_path)
    assert first != second and first.name.endswith("-retry-todos-x.stepwise")
    assert len(list(tmp_path.glob("*.stepwise"))) <= KEEP + 1


def test_copy_session_is_consistent(tmp_path: Path) -> None:
    import sqlite3

    src = tmp_path / "live.stepwise"
    conn = sqlite3.connect(src)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t(x)")
    conn.execute("INSERT INTO t VALUES (1), (2)")
    conn.commit()  # still in the WAL: a plain file copy could miss it
    dest = tmp_path / "out" / "saved.stepwise"
    copy_session(src, dest)
    conn.close()
    assert sqlite3.connect(dest).execute("SELECT COUNT(*) FROM t").fetchone() == (2,)


def test_batcher_delivers_in_batches_and_flushes_on_demand() -> None:
    got: list[list[int]] = []
    batcher = EventBatcher(lambda b: got.append([e.seq for e in b]), interval=0.01)

    async def feed() -> None:
        for i in range(50):
            batcher.add(RunStarted(run_id="r", seq=i))
        assert got == []
        await asyncio.sleep(0.05)
        batcher.add(RunStarted(run_id="r", seq=50))
        batcher.flush()
        batcher.add(RunStarted(run_id="r", seq=51))
        batcher.discard()
        await asyncio.sleep(0.03)

    asyncio.run(feed())
    assert got == [list(range(50)), [50]] and batcher.deliveries == 2


def test_batcher_holds_a_quiet_spells_first_event_one_interval_and_coalesces_a_flood() -> None:
    got: list[list[int]] = []
    batcher = EventBatcher(lambda b: got.append([e.seq for e in b]), interval=60.0)

    async def feed() -> None:
        loop = asyncio.get_running_loop()
        batcher.add(RunStarted(run_id="r", seq=0))  # quiet before: due one interval from now
        handle = batcher._handle
        assert isinstance(handle, asyncio.TimerHandle)
        assert 59.0 < handle.when() - loop.time() <= 60.0
        for i in range(1, 10):  # the rest of the burst joins that delivery, nothing earlier
            batcher.add(RunStarted(run_id="r", seq=i))
            await asyncio.sleep(0)
        assert got == [] and batcher.pending == 10 and batcher._handle is handle
        batcher.flush()  # a pause or the run's end: at once
        assert got == [list(range(10))] and batcher._handle is None
        batcher.add(RunStarted(run_id="r", seq=10))  # right after a delivery: an interval after it
        handle = batcher._handle
        assert isinstance(handle, asyncio.TimerHandle)
        assert 59.0 < handle.when() - loop.time() <= 60.0
        batcher.discard()
        assert batcher._handle is None and batcher.pending == 0

    asyncio.run(feed())
    assert got == [list(range(10))] and batcher.deliveries == 1


def test_batcher_delivers_a_quiet_spells_events_when_the_interval_is_up() -> None:
    got: list[list[int]] = []
    batcher = EventBatcher(lambda b: got.append([e.seq for e in b]), interval=0.01)

    async def feed() -> None:
        batcher.add(RunStarted(run_id="r", seq=0))
        batcher.add(RunStarted(run_id="r", seq=1))
        await asyncio.sleep(0)
        assert got == []
        # a timer due after the batcher's: the batcher's fires first, however late both are
        await asyncio.sleep(0.05)
        assert got == [[0, 1]]

    asyncio.run(feed())


def test_hub_topics_include_the_shell_ones() -> None:
    hub = Hub()
    seen: list[object] = []
    for topic in ("breakpoints", "focus", "theme"):
        assert topic in TOPICS
    hub.subscribe("focus", seen.append)
    hub.subscribe("theme", seen.append)
    hub.set_focus("tools")
    hub.set_focus("tools")
    hub.set_theme("dark")
    assert seen == ["tools", "dark"] and hub.focus_node == "tools" and hub.theme == "dark"


def _frozen(objects: list[Any]) -> bool:
    """Are all of ``objects`` in the collector's permanent generation (``gc.freeze``)?  Objects
    in the collected generations are exactly those ``gc.get_objects()`` lists."""
    import gc

    collected = {id(o) for o in gc.get_objects()}
    return not any(id(o) in collected for o in objects)


def test_gc_policy_freezes_long_lived_objects_in_bulk_and_releases_them_on_reset() -> None:
    import gc

    from studio.app.gc_policy import GcPolicy

    gc.unfreeze()
    hub = Hub()
    try:
        policy = GcPolicy(hub, every=10)
        assert policy.freezes == 1  # the baseline
        baseline = gc.get_freeze_count()
        hub.add_events([RunStarted(run_id="r")] * 9)
        # no freeze: a freeze would add every tracked object; frozen objects may still be freed
        # meanwhile (another test's leftover thread dropping its last references), so the count
        # can only have gone down
        assert policy.freezes == 1 and gc.get_freeze_count() <= baseline
        kept = [[i] for i in range(1000)]  # long-lived containers, like a run's events
        assert not _frozen(kept)
        hub.add_events([RunStarted(run_id="r")])
        # every one of them is frozen now (asked of the collector directly: the frozen count is
        # lowered meanwhile by whatever else frees frozen objects)
        assert policy.freezes == 2 and _frozen(kept) and gc.get_freeze_count() >= len(kept)
        hub.reset()  # a new run: the old one's objects may be garbage now
        assert gc.get_freeze_count() == 0
        hub.add_events([RunStarted(run_id="r")] * 9)
        assert policy.freezes == 2  # the count restarted at the reset
    finally:
        gc.unfreeze()


def test_gc_policy_raises_the_young_generations_threshold_and_never_lowers_it() -> None:
    import gc

    from studio.app.gc_policy import YOUNG, GcPolicy

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, before[1], before[2])
        GcPolicy(Hub())
        assert gc.get_threshold() == (YOUNG, before[1], before[2])
        gc.set_threshold(2 * YOUNG, before[1], before[2])
        GcPolicy(Hub())
        assert gc.get_threshold()[0] == 2 * YOUNG
        gc.set_threshold(0, before[1], before[2])  # collection switched off by the app's host
        GcPolicy(Hub())
        assert gc.get_threshold()[0] == 0
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def test_gc_policy_freezes_when_a_run_ends_after_enough_events() -> None:
    """A chat thread's turns add events without a reset: freezing when a run ends (the
    window idle) keeps full collections small (two stalls of 100-170 ms in 60 studio turns
    before, one of about 50 ms after)."""
    import gc

    from studio.app.gc_policy import GcPolicy

    gc.unfreeze()
    hub = Hub()
    try:
        policy = GcPolicy(hub, every=1_000, after_run=20)
        hub.set_status("running")
        hub.add_events([RunStarted(run_id="r")] * 10)
        hub.set_status("done")
        assert policy.freezes == 1  # too few events since the last freeze
        hub.set_status("running")
        hub.add_events([RunStarted(run_id="r")] * 10)
        kept = [[i] for i in range(1000)]
        hub.set_status("paused")  # not an end: the run goes on
        assert policy.freezes == 1 and not _frozen(kept)
        hub.set_status("done")
        assert policy.freezes == 2 and _frozen(kept)
    finally:
        gc.unfreeze()


def test_hub_shows_running_one_frame_late_and_not_for_a_run_that_ended_within_it() -> None:
    """``shown_status``: a run's "running" shows one frame after it starts, and not at all when
    the run ended (or paused) by then; every other status shows at once.  ``status`` is the
    run's state as it is, at once."""
    hub = Hub()
    shown: list[str] = []
    told: list[str] = []
    hub.subscribe("shown_status", shown.append)
    hub.subscribe("status", told.append)
    hub.set_status("running")  # no loop (a synchronous caller): at once
    hub.set_status("done")
    assert shown == ["running", "done"] and told == ["running", "done"]
    shown.clear()
    told.clear()
    hub.show_running_after = 60.0

    async def runs() -> None:
        hub.set_status("running")  # a turn that ends within its frame: never shown running
        assert hub.status == "running" and hub.shown_status == "done" and shown == []
        hub.set_status("done")
        assert shown == [] and hub._showing is None
        hub.set_status("running")  # a run that pauses within its frame shows paused at once
        hub.set_status("paused")
        assert shown == ["paused"]
        hub.show_running_after = 0.01
        hub.set_status("running")  # a longer run: shown running one frame later
        assert shown == ["paused"]
        await asyncio.sleep(0.05)
        assert shown == ["paused", "running"] and hub.shown_status == "running"
        hub.set_status("done")
        assert shown == ["paused", "running", "done"]

    asyncio.run(runs())
    assert told == ["running", "done", "running", "paused", "running", "done"]

    async def cut_short() -> None:  # the loop stops within the frame of a run's start
        hub.set_status("running")

    async def on_another_loop() -> None:
        hub.set_status("running")
        await asyncio.sleep(0.05)

    asyncio.run(cut_short())
    assert hub.shown_status == "done"
    asyncio.run(on_another_loop())
    assert hub.shown_status == "running"
