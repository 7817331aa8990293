"""The CLI's event tree, fed with recorded event lists (golden text)."""

from __future__ import annotations

from typing import Any

from engine.cli.render import TreeRenderer, render_events, summarize
from engine.events import EVENT_CLASSES, ErrorInfo, EventBase
from tests.engine.cli import agents
from tests.engine.recording.helpers import every_kind

RUN = "r1"


def ev(kind: str, seq: int, span: str | None, parent: str | None, **fields: Any) -> EventBase:
    return EVENT_CLASSES[kind](
        run_id=RUN, thread_id="t", seq=seq, span_id=span, parent_span_id=parent, **fields
    )


def retry_run() -> list[EventBase]:
    """Seed 000's first two supersteps: a model timeout retried, then a disk-full tool retried."""
    timeout = ErrorInfo(type="TimeoutError", message="model call timed out after 30 s")
    disk = ErrorInfo(type="OSError", message="Disk full")
    ai = {
        "type": "ai",
        "content": "",
        "tool_calls": [{"name": "create_file", "args": {"path": "login.tsx"}}],
    }
    tool_msg = {"type": "tool", "content": "created login.tsx"}
    mw, tmw = "ModelRetryMiddleware", "ToolRetryMiddleware"
    return [
        ev(
            "run.started",
            1,
            RUN,
            None,
            graph="agent",
            input={"messages": [{"type": "human", "content": "create files"}]},
        ),
        ev("superstep.started", 2, "s1", RUN, step=1, tasks=[{"node": "model", "task_id": "k1"}]),
        ev("node.started", 3, "n1", "s1", step=1, node="model", task_id="k1"),
        ev("hook.started", 4, "h1", "n1", middleware="TodoListMiddleware", hook="before_model"),
        ev(
            "hook.finished",
            5,
            "h1",
            "n1",
            middleware="TodoListMiddleware",
            hook="before_model",
            duration_ms=0.2,
        ),
        ev("wrapper.started", 6, "w1", "n1", middleware=mw, wrapper="wrap_model_call"),
        ev("attempt.started", 7, "a1", "w1", middleware=mw, attempt=1, max_attempts=3),
        ev(
            "model.request",
            8,
            "m1",
            "a1",
            model="scripted",
            messages_count=1,
            tools=["create_file", "write_todos"],
        ),
        ev("model.response", 9, "m1", "a1", model="scripted", error=timeout, latency_ms=30000.0),
        ev(
            "attempt.finished",
            10,
            "a1",
            "w1",
            middleware=mw,
            attempt=1,
            max_attempts=3,
            outcome="error",
            error=timeout,
            will_retry=True,
            delay_s=1.0,
            duration_ms=30001.0,
        ),
        ev("attempt.started", 11, "a2", "w1", middleware=mw, attempt=2, max_attempts=3),
        ev(
            "model.request",
            12,
            "m2",
            "a2",
            model="scripted",
            messages_count=1,
            tools=["create_file"],
        ),
        ev("model.token", 13, None, "m2", model="scripted", text="Cre"),
        ev("model.response", 14, "m2", "a2", model="scripted", message=ai, latency_ms=12.0),
        ev(
            "attempt.finished",
            15,
            "a2",
            "w1",
            middleware=mw,
            attempt=2,
            max_attempts=3,
            outcome="ok",
            duration_ms=12.5,
        ),
        ev(
            "wrapper.finished",
            16,
            "w1",
            "n1",
            middleware=mw,
            wrapper="wrap_model_call",
            handler_calls=2,
            duration_ms=1013.0,
        ),
        ev("route", 17, None, "n1", from_node="model", to=["tools"], reason="tool_calls"),
        ev("node.finished", 18, "n1", "s1", node="model", task_id="k1", duration_ms=1014.0),
        ev(
            "state.updated",
            19,
            None,
            "s1",
            changes=[{"channel": "messages", "op": "append", "appended": [ai]}],
        ),
        ev("checkpoint.saved", 20, None, "s1", step=1, source="loop", next=["tools"]),
        ev("superstep.finished", 21, "s1", RUN, step=2, duration_ms=1015.0),
        ev("superstep.started", 22, "s2", RUN, step=2, tasks=[{"node": "tools", "task_id": "k2"}]),
        ev("node.started", 23, "n2", "s2", step=2, node="tools", task_id="k2"),
        ev(
            "wrapper.started",
            24,
            "w2",
            "n2",
            middleware=tmw,
            wrapper="wrap_tool_call",
            tool="create_file",
        ),
        ev(
            "attempt.started",
            25,
            "a3",
            "w2",
            middleware=tmw,
            attempt=1,
            max_attempts=2,
            tool="create_file",
        ),
        ev("tool.started", 26, "t1", "a3", tool="create_file", args={"path": "login.tsx"}),
        ev("tool.finished", 27, "t1", "a3", tool="create_file", status="error", error=disk),
        ev(
            "attempt.finished",
            28,
            "a3",
            "w2",
            middleware=tmw,
            attempt=1,
            max_attempts=2,
            outcome="error",
            error=disk,
            will_retry=True,
            delay_s=1.0,
        ),
        ev(
            "attempt.started",
            29,
            "a4",
            "w2",
            middleware=tmw,
            attempt=2,
            max_attempts=2,
            tool="create_file",
        ),
        ev("tool.started", 30, "t2", "a4", tool="create_file", args={"path": "login.tsx"}),
        ev("tool.finished", 31, "t2", "a4", tool="create_file", result=tool_msg),
        ev(
            "attempt.finished",
            32,
            "a4",
            "w2",
            middleware=tmw,
            attempt=2,
            max_attempts=2,
            outcome="ok",
        ),
        ev(
            "wrapper.finished",
            33,
            "w2",
            "n2",
            middleware=tmw,
            wrapper="wrap_tool_call",
            handler_calls=2,
        ),
        ev("node.finished", 34, "n2", "s2", node="tools", task_id="k2"),
        ev("superstep.finished", 35, "s2", RUN, step=3),
        ev("run.finished", 36, RUN, None, status="done", duration_ms=2500.0),
    ]


RETRY_GOLDEN = """\
┌ run agent  thread t  input "create files"
  ┌ superstep 1: model
    ┌ node model
      ┌ TodoListMiddleware.before_model
      └ TodoListMiddleware.before_model ✓
      ┌ ModelRetryMiddleware.wrap_model_call
        ┌ ModelRetryMiddleware attempt 1/3
          ┌ model scripted  1 messages, 2 tools
          └ model scripted ✗ TimeoutError: model call timed out after 30 s
        └ ModelRetryMiddleware attempt 1/3 ✗ TimeoutError: model call timed out after 30 s, retrying in 1.0 s
        ┌ ModelRetryMiddleware attempt 2/3
          ┌ model scripted  1 messages, 1 tools
          └ model scripted ✓ → create_file({"path": "login.tsx"})
        └ ModelRetryMiddleware attempt 2/3 ✓
      └ ModelRetryMiddleware.wrap_model_call ✓ (2 calls)
      → route model → tools (tool_calls)
    └ node model ✓
    Δ state messages +1
    ◆ checkpoint step 1 (loop) next: tools
  └ superstep 1 ✓
  ┌ superstep 2: tools
    ┌ node tools
      ┌ ToolRetryMiddleware.wrap_tool_call (create_file)
        ┌ ToolRetryMiddleware attempt 1/2
          ┌ tool create_file  {"path": "login.tsx"}
          └ tool create_file ✗ OSError: Disk full
        └ ToolRetryMiddleware attempt 1/2 ✗ OSError: Disk full, retrying in 1.0 s
        ┌ ToolRetryMiddleware attempt 2/2
          ┌ tool create_file  {"path": "login.tsx"}
          └ tool create_file ✓ "created login.tsx"
        └ ToolRetryMiddleware attempt 2/2 ✓
      └ ToolRetryMiddleware.wrap_tool_call (create_file) ✓ (2 calls)
    └ node tools ✓
  └ superstep 2 ✓
└ run agent ✓ done
"""

RUN_GOLDEN = """\
┌ run counter  thread t  input {"n": 1}
  ◆ checkpoint step -1 (input) next: __start__
  ┌ superstep 0: __start__
    Δ state n = 1
    ◆ checkpoint step 0 (loop) next: bump
  └ superstep 0 ✓
  ┌ superstep 1: bump
    ┌ node bump
      → route bump → END (static)
    └ node bump ✓
    Δ state n = 2
    ◆ checkpoint step 1 (loop) next: END
  └ superstep 1 ✓
└ run counter ✓ done
"""


def test_golden_tree_of_a_small_run():
    events = list(
        agents.counter.stream_events(
            {"n": 1}, {"configurable": {"thread_id": "t"}}, version="stepwise"
        )
    )
    assert render_events(events, times=False) == RUN_GOLDEN


def test_golden_tree_with_retried_attempts():
    assert render_events(retry_run(), times=False) == RETRY_GOLDEN


def test_times_and_colours():
    plain = render_events(retry_run())
    assert "\x1b[" not in plain
    assert (
        "└ ModelRetryMiddleware attempt 1/3 ✗ TimeoutError: model call timed out after 30 s, retrying in 1.0 s  30.00 s"
        in plain
    )
    assert "└ run agent ✓ done  2.50 s" in plain
    assert (
        "└ node model ✓  1.01 s" in plain
        and "└ ModelRetryMiddleware attempt 2/3 ✓  12.5 ms" in plain
    )
    coloured = render_events(retry_run(), color=True)
    assert "\x1b[31m✗\x1b[0m" in coloured and "\x1b[32m✓\x1b[0m" in coloured
    assert "\x1b[33m, retrying in 1.0 s\x1b[0m" in coloured
    strip = __import__("re").compile(r"\x1b\[[0-9;]*m")
    assert strip.sub("", coloured) == plain


def test_every_kind_renders_one_line():
    events = every_kind()
    r = TreeRenderer(times=False)
    lines = [r.line(e) for e in events]
    assert lines[0] == '┌ run demo  thread t  input "hi"'
    by_kind = {e.kind: line for e, line in zip(events, lines, strict=True)}
    assert by_kind["model.token"] is None  # tokens are not printed by default
    assert all(
        isinstance(line, str) and "\n" not in line
        for k, line in by_kind.items()
        if k != "model.token"
    )
    assert by_kind["interrupt.raised"] == '  ⏸ interrupt in ask: {"question": "ok?"}'
    assert by_kind["plan.step"] == "  • plan step 2 read: skipped SKIP_UPSTREAM_FAILED"
    assert by_kind["debug.paused"] == "  ⏸ paused (breakpoint: before node tools) at node.started"
    assert by_kind["loop.detected"] == (
        "  ⟳ loop detected in tools: create_file(login.tsx) called 3 times with the same arguments"
    )
    assert (
        by_kind["middleware.action"]
        == '  • HumanInTheLoopMiddleware hitl_decision {"type": "approve"}'
    )
    assert (
        by_kind["hook.finished"] == "  └ TodoListMiddleware.before_model ✓ jump_to end update todos"
    )
    token = next(e for e in events if e.kind == "model.token")
    assert TreeRenderer(tokens=True).line(token) == '  · "Hel"'


def test_events_whose_parent_was_not_seen_still_render():
    # paging from the middle of a run: the first event's spans were never opened
    tail = retry_run()[12:16]
    text = render_events(tail, times=False)
    assert text.splitlines() == [
        '  └ model scripted ✓ → create_file({"path": "login.tsx"})',  # unknown parent: one level in
        "  └ ModelRetryMiddleware attempt 2/3 ✓",
        "  └ ModelRetryMiddleware.wrap_model_call ✓ (2 calls)",
    ]


def test_summarize():
    assert summarize("x" * 100, 10) == '"xxxxxxxx…'
    assert summarize({"a": [1, 2]}) == '{"a": [1, 2]}'
    assert summarize("two\nlines") == '"two\\nlines"'


def test_a_reply_with_tool_calls_it_got_wrong_says_so() -> None:
    """Arguments that are not JSON make an invalid tool call: no tool runs for it and an agent
    whose reply holds only such calls ends; the tree says why, not an empty reply."""
    bad = {"name": "get_weather", "args": '{"city": sf', "id": "x1", "error": "bad json"}
    good = {"name": "get_weather", "args": {"city": "la"}, "id": "x2"}

    def call(seq: int, message: dict[str, Any]) -> list[EventBase]:
        span = f"m{seq}"
        return [
            ev("model.request", seq, span, None, model="gpt"),
            ev("model.response", seq + 1, span, None, model="gpt", message=message),
        ]

    only_bad = {"type": "ai", "content": "", "invalid_tool_calls": [bad]}
    both = {"type": "ai", "content": "", "tool_calls": [good], "invalid_tool_calls": [bad]}
    both["invalid_tool_calls"] = [{**bad, "error": None}]
    lines = render_events([*call(1, only_bad), *call(3, both)], times=False).splitlines()
    assert lines[1].endswith('model gpt ✓ → get_weather ✗ invalid call: "bad json"')
    assert lines[3].endswith('✓ → get_weather({"city": "la"}), get_weather ✗ invalid call')
