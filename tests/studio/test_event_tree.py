"""The event log's span tree (plain Python): nesting, summaries, tokens, failures, filters."""

from __future__ import annotations

from typing import Any

import pytest

from engine.events import (
    AttemptFinished,
    EventBase,
    ModelToken,
    NodeFinished,
    NodeStarted,
    Route,
    ToolFinished,
    ToolStarted,
)
from studio.models.event_tree import EventFilter, EventTree, Row, TreeDelta
from tests.studio.event_samples import AgentScript, seed000_events, synthetic_stream


def walk(tree: EventTree, row: Row | None = None, depth: int = 0) -> list[tuple[int, Row]]:
    out: list[tuple[int, Row]] = []
    for child in tree.children(row or tree.root):
        out.append((depth, child))
        out.extend(walk(tree, child, depth + 1))
    return out


def outline(tree: EventTree) -> list[str]:
    return ["  " * d + r.summary() for d, r in walk(tree)]


def kinds_path(tree: EventTree, row: Row) -> list[str]:
    return [a.kind for a in tree.ancestors(row)] + [row.kind]


@pytest.fixture
def seed() -> EventTree:
    tree = EventTree()
    tree.add_batch(seed000_events(tokens=5))
    return tree


def test_spans_nest_and_closers_merge_into_their_opening_row(seed: EventTree) -> None:
    events = seed000_events(tokens=5)
    assert seed.event_count == len(events)
    runs = seed.children(seed.root)
    assert [r.kind for r in runs] == ["run.started"]
    run = runs[0]
    assert run.end is not None and run.end.kind == "run.finished"
    steps = [r for r in run.children if r.kind == "superstep.started"]
    assert [r.node for r in steps] == [None] * 7
    assert [r.children[0].node for r in steps] == ["model", "tools"] * 3 + ["model"]
    models = [r for r in seed.rows if r.kind == "model.request"]
    assert len(models) == 5  # 4 turns + the timed-out attempt
    assert kinds_path(seed, models[0]) == [
        "run.started",
        "superstep.started",
        "node.started",
        "wrapper.started",
        "wrapper.started",
        "attempt.started",
        "model.request",
    ]
    assert all(r.end is not None for r in seed.rows if r.is_span)
    assert not any(r.kind.endswith(".finished") or r.kind == "model.response" for r in seed.rows)
    # every event is in the log: each seq maps to the row showing it
    for ev in events:
        row = seed.find(ev.seq)
        assert row is not None
        if ev.kind != "model.token":
            assert ev in row.events
    # route, state update and checkpoint sit under their parent spans
    route = next(r for r in seed.rows if r.kind == "route")
    assert route.parent is not None and route.parent.kind == "node.started"
    assert route.node == "model"
    assert route.middleware is None


def test_row_summaries(seed: EventTree) -> None:
    text = outline(seed)
    assert (
        "          ModelRetryMiddleware attempt 1/3 ✗ TimeoutError: model timed out"
        " after 30 s — retrying in 1.0 s" in text
    )
    assert "          tool create_file(login.tsx, …) ✓ 12 ms" in text
    assert "      route model → tools (tool_calls: 1 pending call)" in text
    assert "      route model → __end__ (no_tool_calls)" in text
    assert "      ToolRetryMiddleware.wrap_tool_call (create_file) ✓ (2 calls)" in text
    assert text.count("    state messages +1") == 7
    assert "    checkpoint step 6 (loop) → next: END" in text
    assert text[0] == "run agent ✓ done"
    tool_fail = next(r for r in seed.rows if r.kind == "tool.started" and r.failed)
    assert tool_fail.summary() == (
        "tool create_file(register.tsx, …) ✗ OSError: [Errno 28] No space left on device 2.0 ms"
    )
    assert tool_fail.duration_ms() == 2.0


def test_open_spans_read_as_running_then_close() -> None:
    s = AgentScript()
    s.open(NodeStarted, node="tools", task_id="t")
    s.open(ToolStarted, tool="search", tool_call_id="c1", args={"query": "weather"})
    tree = EventTree()
    tree.add_batch(s.events)
    tool = tree.rows[-1]
    assert tool.is_open and tool.summary() == "tool search(weather) …"
    s.close(ToolFinished, tool="search", tool_call_id="c1", result={"content": "sunny"})
    delta = tree.add_batch(s.events[-1:])
    assert delta.changed == {tool} and delta.grown == {}
    assert not tool.is_open and tool.summary() == "tool search(weather) ✓"


def test_tokens_fold_into_their_model_call(seed: EventTree) -> None:
    assert not any(r.kind == "model.token" for r in seed.rows)
    final = [r for r in seed.rows if r.kind == "model.request"][-1]
    assert final.tokens == 5 and final.streamed_text == "Done:"
    assert final.summary().endswith("“Done: login.tsx and register.tsx are created.” (5 tokens)")
    # while streaming, the row shows the tokens so far
    s = AgentScript()
    s.open(NodeStarted, node="model", task_id="t")
    from engine.events import ModelRequest

    s.open(ModelRequest, model="gpt")
    tree = EventTree()
    tree.add_batch(s.events)
    model = tree.rows[-1]
    for piece in ["Hel", "lo", " world"]:
        s.point(ModelToken, model="gpt", text=piece)
    delta = tree.add_batch(s.events[-3:])
    assert delta.changed == {model} and len(tree.rows) == 2
    assert model.summary() == "model gpt streaming… 3 tokens “Hello world”"


def test_ten_thousand_tokens_are_one_row_and_stray_tokens_group() -> None:
    s = AgentScript()
    s.open(NodeStarted, node="model", task_id="t")
    for i in range(10_000):
        s.point(ModelToken, model="gpt", text=str(i % 10))
    s.point(Route, from_node="model", to=["tools"])
    s.point(ModelToken, model="gpt", text="x")
    tree = EventTree()
    tree.add_batch(s.events)
    node = tree.rows[0]
    assert [c.kind for c in node.children] == ["model.token", "route", "model.token"]
    assert node.children[0].tokens == 10_000 and node.children[2].tokens == 1
    assert node.children[0].summary().startswith("tokens ×10000 “")
    assert tree.find(5000) is node.children[0]


def test_failures_mark_the_row_and_its_ancestors(seed: EventTree) -> None:
    failed = [r for r in seed.rows if r.failed]
    assert [r.kind for r in failed] == [
        "attempt.started",
        "model.request",
        "attempt.started",
        "tool.started",
    ]
    attempt = failed[0]
    chain = seed.ancestors(attempt)
    assert all(a.contains_failure for a in chain)
    assert [a.failed for a in chain] == [False] * len(chain)  # retried: the spans succeeded
    retry = next(r for r in attempt.parent.children if r is not attempt)  # type: ignore[union-attr]
    assert not retry.failed and not retry.contains_failure
    first_step = next(r for r in chain[0].children if r.kind == "superstep.started")
    assert not first_step.contains_failure
    assert seed.failures == 4


def test_a_checkpoint_the_apps_saver_did_not_save_is_a_failure_in_its_step() -> None:
    from engine.events import MiddlewareAction, RunStarted, SuperstepStarted

    s = AgentScript()
    s.open(RunStarted)
    s.open(SuperstepStarted)
    for action in ("checkpoint_not_saved", "checkpoint_save_unknown", "jump_to"):
        s.point(MiddlewareAction, middleware="checkpointer", action=action, detail={})
    tree = EventTree()
    tree.add_batch(s.events)
    run = tree.children(tree.root)[0]
    step = run.children[0]
    assert [(r.summary().split()[1], r.failed) for r in step.children] == [
        ("checkpoint_not_saved", True),
        ("checkpoint_save_unknown", True),
        ("jump_to", False),
    ]
    assert step.contains_failure and run.contains_failure and tree.failures == 2


def test_node_error_and_interrupts() -> None:
    s = AgentScript()
    s.open(NodeStarted, node="tools", task_id="t")
    from engine.events import ErrorInfo

    s.close(
        NodeFinished,
        node="tools",
        task_id="t",
        status="error",
        error=ErrorInfo(type="ValueError", message="bad args\nTraceback..."),
    )
    s.open(NodeStarted, node="approve", task_id="u")
    s.close(NodeFinished, node="approve", task_id="u", status="interrupted")
    tree = EventTree()
    tree.add_batch(s.events)
    err, intr = tree.rows
    assert err.failed and err.summary() == "node tools ✗ ValueError: bad args"
    assert intr.interrupted and not intr.failed and intr.summary() == "node approve ‖"


def test_the_hook_a_run_waits_at_is_marked_interrupted_not_done(qloop: Any) -> None:
    """The built-in approval agent (``HumanInTheLoopMiddleware``) stops for a decision in its
    ``after_model`` hook: that hook's row says the run waits there; a hook that returned is ✓."""
    from engine.messages import HumanMessage
    from resources.scenarios.approval import INPUT, build_agent, scripted_model

    agent = build_agent(model=scripted_model())
    events: list[EventBase] = []
    agent.subscribe(events.append)
    cfg = {"configurable": {"thread_id": "hitl"}}
    qloop.run_until_complete(agent.ainvoke({"messages": [HumanMessage(INPUT)]}, cfg))
    tree = EventTree()
    tree.add_batch(events)
    hooks = [r for _, r in walk(tree) if r.kind == "hook.started"]
    waiting = [r for r in hooks if r.interrupted]
    assert len(waiting) == 1 and not waiting[0].failed
    assert waiting[0].summary() == "HumanInTheLoopMiddleware.after_model ‖ interrupted"
    assert all(r.summary().endswith("✓") or "✓ " in r.summary() for r in hooks if r not in waiting)
    assert waiting[0].parent is not None and waiting[0].parent.interrupted  # and its node


def test_a_reply_with_tool_calls_the_model_got_wrong_says_so() -> None:
    """An invalid tool call (arguments that are not JSON): no tool runs for it, and an agent
    whose reply holds only such calls ends; the model's row says why, not an empty reply."""
    from engine.events import ModelRequest, ModelResponse

    bad = {"name": "get_weather", "args": '{"city": sf', "id": "x1", "error": "bad json"}
    s = AgentScript()
    s.open(ModelRequest, model="gpt")
    s.close(
        ModelResponse,
        model="gpt",
        message={"type": "ai", "content": "", "invalid_tool_calls": [bad]},
    )
    s.open(ModelRequest, model="gpt")
    s.close(
        ModelResponse,
        model="gpt",
        message={
            "type": "ai",
            "content": "",
            "tool_calls": [{"name": "get_weather", "args": {"city": "la"}, "id": "x2"}],
            "invalid_tool_calls": [{**bad, "error": None}],
        },
    )
    tree = EventTree()
    tree.add_batch(s.events)
    first, second = tree.rows
    assert first.summary() == "model gpt ✓ → get_weather ✗ invalid call: bad json"
    assert second.summary() == "model gpt ✓ → get_weather(la), get_weather ✗ invalid call"


def test_lone_closers_and_unknown_parents_still_show() -> None:
    tree = EventTree()
    orphan = AttemptFinished.model_construct(
        run_id="r",
        seq=7,
        span_id="gone",
        parent_span_id="never-seen",
        middleware="ModelRetryMiddleware",
        attempt=2,
        max_attempts=3,
        outcome="ok",
    )
    tree.add_batch([orphan])
    (row,) = tree.children(tree.root)
    assert row.kind == "attempt.started" and row.end is orphan
    assert row.summary() == "ModelRetryMiddleware attempt 2/3 ✓"


def test_seq_lookup_across_runs() -> None:
    tree = EventTree()
    first, second = seed000_events(run_id="a"), seed000_events(run_id="b")
    tree.add_batch(first + second)
    assert tree.find(1, "a") is tree.children(tree.root)[0]
    assert tree.find(1) is tree.children(tree.root)[1]  # the latest run that has it
    assert tree.find(10_000) is None
    assert tree.offset_s(tree.find(3, "b")) == pytest.approx(0.002)  # type: ignore[arg-type]


# -- filters -----------------------------------------------------------------------------------


def visible(tree: EventTree) -> list[str]:
    return [r.summary() for _, r in walk(tree)]


def test_text_filter_keeps_matches_and_their_ancestors(seed: EventTree) -> None:
    seed.set_filter(EventFilter(text="  TIMEOUT "))
    rows = [r for _, r in walk(seed)]
    assert [r.kind for r in rows] == [
        "run.started",
        "superstep.started",
        "node.started",
        "wrapper.started",
        "wrapper.started",
        "attempt.started",
        "model.request",
    ]
    assert all(seed.visible_index(r) == i for i, r in enumerate(seed.children(rows[4])))
    seed.set_filter(EventFilter())
    assert len(walk(seed)) == len(seed.rows)


def test_kind_node_middleware_and_failure_filters(seed: EventTree) -> None:
    seed.set_filter(EventFilter(kinds=frozenset({"tool"})))
    leaves = [r for _, r in walk(seed) if not seed.children(r)]
    assert [r.kind for r in leaves] == ["tool.started"] * 4
    seed.set_filter(EventFilter(kinds=frozenset({"route"}), node="tools"))
    assert [r.summary() for _, r in walk(seed) if r.kind == "route"] == [
        "route tools → model (static)"
    ] * 3
    seed.set_filter(EventFilter(middleware="ToolRetryMiddleware", kinds=frozenset({"attempt"})))
    attempts = [r for _, r in walk(seed) if r.kind == "attempt.started"]
    assert len(attempts) == 4 and {r.middleware for r in attempts} == {"ToolRetryMiddleware"}
    seed.set_filter(EventFilter(middleware="TodoListMiddleware", kinds=frozenset({"model"})))
    assert len([r for _, r in walk(seed) if r.kind == "model.request"]) == 5  # inside its wrapper
    seed.set_filter(EventFilter(failures_only=True))
    assert [r.kind for _, r in walk(seed) if r.failed] == [
        "attempt.started",
        "model.request",
        "attempt.started",
        "tool.started",
    ]
    seed.set_filter(EventFilter(kinds=frozenset({"model.token"})))
    assert len([r for _, r in walk(seed) if r.kind == "model.request"]) == 4
    seed.set_filter(EventFilter(text="no such thing"))
    assert walk(seed) == []


def test_filter_jobs_run_in_slices_and_see_late_rows() -> None:
    tree = EventTree()
    tree.add_batch(list(synthetic_stream(20_000)))
    job = tree.start_filter(EventFilter(text="no space left"))
    assert not job.run(budget_s=0.0) and 0 < job.progress < 1
    assert len(walk(tree)) == len(tree.rows)  # not applied yet
    tree.add_batch(seed000_events(run_id="late"))  # arrives while the job runs
    while not job.run(budget_s=0.001):
        pass
    tree.apply_filter(job)
    failed_tools = [r for _, r in walk(tree) if r.kind == "tool.started"]
    assert failed_tools and all("No space left" in r.summary() for r in failed_tools)
    assert failed_tools[-1].event.run_id == "late"


class Recorder:
    """A listener checking the tree's promises: touch before growth, inserts in order."""

    def __init__(self, tree: EventTree) -> None:
        self.tree = tree
        self.calls: list[tuple[str, Any, int]] = []

    def touch(self, parent: Row) -> None:
        self.calls.append(("touch", parent, len(self.tree.children(parent))))

    def before_insert(self, parent: Row, pos: int) -> None:
        self.calls.append(("before", parent, pos))

    def after_insert(self, parent: Row, pos: int) -> None:
        kids = self.tree.children(parent)
        assert [r.index for r in kids] == sorted(r.index for r in kids)
        assert all(self.tree.visible_index(r) == i for i, r in enumerate(kids))
        self.calls.append(("after", parent, pos))


def parallel_tools(s: AgentScript) -> None:
    """Two tool calls in flight at once; only the first one fails (late)."""
    from engine.events import ErrorInfo

    s.open(NodeStarted, node="tools", task_id="t")
    a = s.open(ToolStarted, tool="search", tool_call_id="c1", args={"q": "a"})
    s._stack.pop()
    b = s.open(ToolStarted, tool="fetch", tool_call_id="c2", args={"url": "b"})
    s._stack.pop()
    s.point(ToolFinished, span_id=b, tool="fetch", tool_call_id="c2", result={"content": "ok"})
    err = ErrorInfo(type="OSError", message="disk full")
    s.point(ToolFinished, span_id=a, tool="search", tool_call_id="c1", status="error", error=err)


def test_live_rows_are_revealed_in_tree_order_under_a_filter() -> None:
    s = AgentScript()
    parallel_tools(s)
    head, tail = s.events[:3], s.events[3:]
    tree = EventTree()
    tree.set_filter(EventFilter(kinds=frozenset({"tool"})))
    rec = Recorder(tree)
    delta = tree.add_batch(head, rec)
    node = tree.rows[0]
    assert [r.summary() for r in tree.children(node)] == ["tool search(a) …", "tool fetch(b) …"]
    assert delta.grown == {tree.root: 0, node: 0}
    tree.set_filter(EventFilter(text="disk full"))
    assert walk(tree) == []
    delta = tree.add_batch(tail, rec)  # the first call fails after the second finished
    assert [r.summary() for _, r in walk(tree)] == [
        "node tools …",
        "tool search(a) ✗ OSError: disk full",
    ]
    assert delta.grown == {tree.root: 0, node: 0}
    assert [c[0] for c in rec.calls] == ["touch"] * 4  # appends only: no mid-list inserts


def test_a_hidden_ancestor_revealed_between_visible_siblings_is_inserted_in_place() -> None:
    s = AgentScript()
    parallel_tools(s)
    tree = EventTree()
    tree.add_batch(s.events[:3])  # node, search (open), fetch (open)
    tree.set_filter(EventFilter(text="fetch"))
    node = tree.rows[0]
    assert [r.summary() for r in tree.children(node)] == ["tool fetch(b) …"]
    rec = Recorder(tree)
    # a token stream under the *first* tool makes it match: it must go before fetch
    search_span = tree.rows[1].event.span_id
    s.point(ModelToken, parent_span_id=search_span, model="m", text="fetching")
    delta = tree.add_batch(s.events[-1:], rec)
    assert [r.summary()[:12] for r in tree.children(node)] == ["tool search(", "tool fetch(b"]
    assert ("before", node, 0) in rec.calls and ("after", node, 0) in rec.calls
    assert isinstance(delta, TreeDelta) and node in delta.grown


@pytest.mark.slow
def test_two_hundred_thousand_events() -> None:
    events: list[EventBase] = list(synthetic_stream(200_000, tokens=24))
    tree = EventTree()
    for i in range(0, len(events), 5000):
        tree.add_batch(events[i : i + 5000])
    assert tree.event_count == 200_000
    tokens = sum(1 for e in events if e.kind == "model.token")
    assert sum(r.tokens for r in tree.rows) == tokens
    closers = sum(1 for e in events if e.kind.endswith(".finished") or e.kind == "model.response")
    assert len(tree.rows) == 200_000 - tokens - closers
    assert all(tree.find(e.seq) is not None for e in events[::97])
    assert [r.kind for r in tree.children(tree.root)] == ["run.started"]
    assert all(r.index == i for r in tree.rows[:5000] for i in [r.parent.children.index(r)])  # type: ignore[union-attr]
    tree.set_filter(EventFilter(text="no space left on device"))
    hits = [r for _, r in walk(tree) if r.kind == "tool.started"]
    assert hits and all(r.failed for r in hits)
    assert tree.failures == sum(1 for r in tree.rows if r.failed)
