"""Issue 11, targets 1 and 2: engine overhead per agent turn, and how it grows with the history.

A seed-000-like agent (ModelRetry + ToolRetry + TodoList middleware, a ``create_file`` tool, an
in-memory checkpointer) on a scripted model, in a conversation of many turns on one thread.
Each turn is one ``invoke``: a user message, a model call that writes a file, the tool, and a
model call that answers (2 model calls, 6 supersteps, 4 new messages).  The same conversation
runs on LangChain's ``create_agent`` with LangChain's middleware when the ``bench`` extra is
installed.  Scripted models do no I/O, so the time measured is the framework's.

- Target 1: our time per turn (events built only if someone listens; nobody does) at most 0.5x
  LangChain's; with a session recorder attached, at most 1.0x.
- Target 2 (issue 26): per-turn time at turn ~2,000 at most 1.3x per-turn time at turn ~25,
  in the same conversation (the median over three conversations of the ratio of the two
  windows' medians); the ratio at turn ~400 is printed too.  LangChain's growth is measured
  over 400 turns (its turns grow too slow to run 2,000 of them here).
"""

from __future__ import annotations

import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.bench.report import Clock, Figure, Timing, goal, median, peer_available

EARLY = range(15, 35)
MIDDLE = range(380, 400)
LATE = range(1980, 2000)
SHORT_TURNS = 30


def _reply_policy(ai_cls: Any) -> Callable[[list[Any]], Any]:
    """Write a file for each user message, then answer once the tool result is in."""

    def reply(messages: list[Any]) -> Any:
        last = messages[-1]
        n = len(messages)
        if getattr(last, "type", "") == "human":
            call = {
                "name": "create_file",
                "args": {"path": f"file_{n}.py", "content": "print(1)\n"},
                "id": f"call_{n}",
            }
            return ai_cls(content="", tool_calls=[call])
        return ai_cls(content=f"Created file_{n - 2}.py with a print statement. Anything else?")

    return reply


def seed_agent(checkpointer: Any = None) -> tuple[Any, Any]:
    """(our seed-000 middleware agent, its scripted model), on an in-memory saver by default."""
    from engine import create_agent
    from engine.checkpoint import InMemorySaver
    from engine.messages import AIMessage
    from engine.middleware import ModelRetryMiddleware, TodoListMiddleware, ToolRetryMiddleware
    from engine.models import ScriptedChatModel
    from engine.tools import tool

    @tool
    def create_file(path: str, content: str = "") -> str:
        """Create a file."""
        return f"created {path}"

    policy = _reply_policy(AIMessage)
    model = ScriptedChatModel([lambda messages, tools: policy(messages)] * 10_000)
    agent = create_agent(
        model,
        [create_file],
        middleware=[
            ModelRetryMiddleware(max_retries=2, retry_on=(TimeoutError,), initial_delay=0.0),
            ToolRetryMiddleware(max_retries=1, retry_on=(OSError,), initial_delay=0.0),
            TodoListMiddleware(),
        ],
        checkpointer=checkpointer or InMemorySaver(),
    )
    return agent, model


Turn = Callable[[int], Timing]


def ours(record: bool = False) -> tuple[Turn, Callable[[], None]]:
    """(run turn i -> seconds, close)."""
    from engine.messages import HumanMessage

    agent, model = seed_agent()
    closer: Callable[[], None] = lambda: None  # noqa: E731
    if record:
        from engine.recording import SessionRecorder

        recorder = SessionRecorder(Path(tempfile.mkdtemp()) / "bench.stepwise")
        recorder.attach(agent)
        closer = recorder.close
    cfg = {"configurable": {"thread_id": "bench"}}

    def turn(i: int) -> Timing:
        model.calls.clear()  # the scripted model keeps every request; not part of the engine
        with Clock() as clock:
            agent.invoke(
                {"messages": [HumanMessage(content=f"Please create file number {i}.")]}, cfg
            )
        return clock.timing

    return turn, closer


def theirs() -> tuple[Turn, Callable[[], None]]:
    from langchain.agents import create_agent
    from langchain.agents.middleware import (
        ModelRetryMiddleware,
        TodoListMiddleware,
        ToolRetryMiddleware,
    )
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.tools import tool
    from langgraph.checkpoint.memory import InMemorySaver

    policy = _reply_policy(AIMessage)

    class PolicyModel(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "policy"

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

        def _generate(
            self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any
        ) -> ChatResult:
            return ChatResult(generations=[ChatGeneration(message=policy(messages))])

    @tool
    def create_file(path: str, content: str = "") -> str:
        """Create a file."""
        return f"created {path}"

    agent = create_agent(
        PolicyModel(),
        [create_file],
        middleware=[
            ModelRetryMiddleware(max_retries=2, retry_on=(TimeoutError,), initial_delay=0.0),
            ToolRetryMiddleware(max_retries=1, retry_on=(OSError,), initial_delay=0.0),
            TodoListMiddleware(),
        ],
        checkpointer=InMemorySaver(),
    )
    cfg = {"configurable": {"thread_id": "bench"}}

    def turn(i: int) -> Timing:
        with Clock() as clock:
            agent.invoke(
                {"messages": [HumanMessage(content=f"Please create file number {i}.")]}, cfg
            )
        return clock.timing

    return turn, lambda: None


def _conversation(make: Callable[[], tuple[Turn, Callable[[], None]]], turns: int) -> list[Timing]:
    turn, close = make()
    try:
        return [turn(i) for i in range(turns)]
    finally:
        close()


def _window(times: list[Timing], window: range, clock: str = "wall") -> float:
    return median(times[window.start : window.stop], clock)


def run() -> list[Figure]:
    figs: list[Figure] = []
    peer = peer_available("langchain.agents") and peer_available("langgraph")
    # target 1: best of 3 short conversations, median of turns 20-29 (warm, history small)
    mine = min(_window(_conversation(ours, SHORT_TURNS), EARLY) for _ in range(3))
    recorded = min(
        _window(_conversation(lambda: ours(record=True), SHORT_TURNS), EARLY) for _ in range(3)
    )
    figs.append(Figure("agent turn, seed-000 middleware, no subscriber", mine * 1e3, "ms/turn"))
    figs.append(Figure("agent turn, with the session recorder", recorded * 1e3, "ms/turn"))
    if peer:
        base = min(_window(_conversation(theirs, SHORT_TURNS), EARLY) for _ in range(3))
        figs.append(
            Figure("  LangChain create_agent + LangGraph, same turn", base * 1e3, "ms/turn")
        )
        figs.append(
            Figure("  ratio, no subscriber", mine / base, "x", "<= 0.5", mine / base <= 0.5)
        )
        figs.append(
            Figure(
                "  ratio, with the recorder", recorded / base, "x", "<= 1.0", recorded / base <= 1.0
            )
        )
    # target 2: three 2,000-turn conversations; each one's late window over its early window
    runs = [_conversation(ours, LATE.stop) for _ in range(3)]
    for window, bound in ((MIDDLE, None), (LATE, 1.3)):
        ratio = statistics.median(_window(t, window) / _window(t, EARLY) for t in runs)
        cpu = statistics.median(_window(t, window, "cpu") / _window(t, EARLY, "cpu") for t in runs)
        early = statistics.median(_window(t, EARLY) for t in runs)
        late = statistics.median(_window(t, window) for t in runs)
        name = f"per-turn time at turn ~{window.stop:,} / at turn ~25"
        note = f"{early * 1e3:.2f} ms -> {late * 1e3:.2f} ms; CPU time {cpu:.2f}x"
        if bound is None:
            figs.append(Figure(name, ratio, "x", note=note))
        else:
            figs.append(goal(name, ratio, bound, "x", note))
    if peer:
        lruns = [_conversation(theirs, MIDDLE.stop) for _ in range(2)]
        le = min(_window(t, EARLY) for t in lruns)
        ll = min(_window(t, MIDDLE) for t in lruns)
        figs.append(
            Figure(
                "  LangChain + LangGraph, growth at turn ~400",
                ll / le,
                "x",
                note=f"{le * 1e3:.2f} ms -> {ll * 1e3:.2f} ms",
            )
        )
    return figs


if __name__ == "__main__":
    for f in run():
        print(f.line())
