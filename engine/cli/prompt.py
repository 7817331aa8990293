"""Terminal prompts of ``stepwise run``: the breakpoint prompt and the interrupt (HITL) prompts.

Prompts read a line on a daemon thread, so the event loop keeps running while the user types
(Ctrl+C is handled by the loop) and a test can drive them with any file-like ``stdin``.  End
of input means "continue" at a breakpoint and "leave it interrupted" at an interrupt.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from engine.cli.text import styled_safe, terminal_safe
from engine.debug import Debugger
from engine.events import EventBase
from engine.redaction import scrub
from engine.serde import to_jsonable

__all__ = ["STOP", "Console", "ask_resume", "breakpoint_prompt", "is_hitl_request"]

STOP: Any = object()
"""Returned by the interrupt prompts when the user leaves the run interrupted."""

BREAK_HELP = "c continue · s step into · n step over · o step out · q stop · state · stack"
_COMMANDS = {
    "c": "continue_",
    "continue": "continue_",
    "s": "step_into",
    "step": "step_into",
    "n": "step_over",
    "next": "step_over",
    "o": "step_out",
    "out": "step_out",
    "q": "stop",
    "quit": "stop",
    "stop": "stop",
}
_DECISIONS = {"a": "approve", "e": "edit", "r": "reject", "s": "respond"}
_LABELS = {"approve": "[a]pprove", "edit": "[e]dit", "reject": "[r]eject", "respond": "re[s]pond"}
_DEFAULT_ALLOWED = ("approve", "edit", "reject")
_ALL_DECISIONS = ("approve", "edit", "reject", "respond")


class Console:
    """The CLI's terminal: output lines, error lines, and prompts.  Everything written passes
    through ``engine.redaction.scrub`` and ``engine.cli.text.terminal_safe``, and through the
    ``filters`` added (the personal data the agent's PII middleware redacts)."""

    def __init__(self, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.eof = False
        self.filters: list[Callable[[str], str]] = []

    def _write(self, stream: TextIO, text: str, *, styled: bool = False) -> None:
        for flt in self.filters:
            text = flt(text)
        text = scrub(text)  # no registered credential (or sk-... key) ever reaches the terminal
        # shown, never obeyed: escape sequences, \r, bidi overrides (a tree line keeps its colours)
        text = styled_safe(text) if styled else terminal_safe(text)
        try:
            stream.write(text)
        except UnicodeEncodeError:
            enc = getattr(stream, "encoding", None) or "ascii"
            stream.write(text.encode(enc, "replace").decode(enc))
        stream.flush()

    def out(self, text: str = "", *, styled: bool = False) -> None:
        """Print a line (``styled``: a tree line whose own colour sequences are kept)."""
        self._write(self.stdout, text + "\n", styled=styled)

    def err(self, text: str) -> None:
        self._write(self.stderr, text + "\n")

    async def ask(self, prompt: str) -> str | None:
        """Print ``prompt`` and read one line (None at end of input)."""
        if self.eof:
            return None
        self._write(self.stdout, prompt)
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[str] = loop.create_future()

        def read() -> None:
            try:
                line = self.stdin.readline()
            except (OSError, ValueError):
                line = ""
            loop.call_soon_threadsafe(lambda: fut.done() or fut.set_result(line))

        threading.Thread(target=read, name="stepwise-prompt", daemon=True).start()
        line = await fut
        if not line:
            self.eof = True
            self.out()
            return None
        line = line.rstrip("\r\n")
        if not self._interactive():
            self.out(line)  # echo piped answers so the transcript reads like a session
        return line

    def _interactive(self) -> bool:
        isatty = getattr(self.stdin, "isatty", None)
        try:
            return bool(isatty and isatty())
        except ValueError:
            return False


def _pretty(value: Any) -> str:
    return json.dumps(to_jsonable(value), indent=2, ensure_ascii=False)


async def breakpoint_prompt(console: Console, dbg: Debugger) -> None:
    """Ask what to do while the run is paused, then resume it (or stop it)."""
    while True:
        answer = await console.ask("(stepwise) [c/s/n/o/q/state] > ")
        if answer is None:
            console.out("(end of input: continuing)")
            dbg.continue_()
            return
        cmd = answer.strip().lower()
        if cmd in _COMMANDS:
            getattr(dbg, _COMMANDS[cmd])()
            return
        if cmd == "state":
            state = dbg.state()
            console.out(_pretty(state) if state is not None else "(no state yet)")
        elif cmd in ("stack", "where"):
            for i, ev in enumerate(dbg.span_stack()):
                console.out(f"{'  ' * i}{_span_name(ev)}")
        elif cmd:
            console.out(f"unknown command {cmd!r}: {BREAK_HELP}")
        else:
            console.out(BREAK_HELP)


def _span_name(ev: EventBase) -> str:
    d = ev.__dict__
    name = (
        d.get("node")
        or d.get("middleware")
        or d.get("tool")
        or d.get("model")
        or d.get("graph")
        or ""
    )
    return f"{ev.kind} {name}".rstrip()


def is_hitl_request(value: Any) -> bool:
    """Is ``value`` a HumanInTheLoopMiddleware request (``action_requests`` + ``review_configs``)?"""
    return (
        isinstance(value, dict)
        and isinstance(value.get("action_requests"), list)
        and "review_configs" in value
    )


def is_tool_approval(value: Any) -> bool:
    """Is ``value`` a per-call HumanInTheLoopMiddleware request (``type: "tool_approval"``)?"""
    return isinstance(value, dict) and value.get("type") == "tool_approval"


def _allowed_by_schema(schema: Any) -> list[str]:
    """The decision types a per-call interrupt's ``response_schema`` accepts (all if unknown)."""
    if not isinstance(schema, dict):
        return list(_ALL_DECISIONS)
    branches = schema.get("oneOf") or schema.get("anyOf")
    if isinstance(branches, list):
        names = [str(b.get("$ref", "")).rsplit("/", 1)[-1] for b in branches if isinstance(b, dict)]
        found = [d for d in _ALL_DECISIONS if f"{d.capitalize()}Decision" in names]
        return found or list(_ALL_DECISIONS)
    const = ((schema.get("properties") or {}).get("type") or {}).get("const")
    return [const] if const in _ALL_DECISIONS else list(_ALL_DECISIONS)


async def _ask_json(console: Console, prompt: str, *, want_object: bool = False) -> Any:
    while True:
        text = await console.ask(prompt)
        if text is None or text.strip().lower() in ("q", "quit"):
            return STOP
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            console.out(f"invalid JSON: {exc}; try again (q to leave the run interrupted)")
            continue
        if want_object and not isinstance(value, dict):
            console.out('expected a JSON object like {"key": "value"}; try again')
            continue
        return value


async def _ask_decision(console: Console, request: dict[str, Any], allowed: Sequence[str]) -> Any:
    name = str(request.get("name", "?"))
    args = request.get("args", {})
    console.out(
        str(
            request.get("description")
            or f"Tool execution requires approval\n\nTool: {name}\nArgs: {args}"
        )
    )
    keys = " ".join(_LABELS.get(w, w) for w in allowed)
    while True:
        answer = await console.ask(f"{keys} > ")
        if answer is None or answer.strip().lower() in ("q", "quit"):
            return STOP
        word = answer.strip().lower()
        choice = _DECISIONS.get(word, word)
        if choice not in allowed:
            console.out(f"choose one of: {', '.join(allowed)}")
            continue
        if choice == "approve":
            return {"type": "approve"}
        if choice == "edit":
            console.out(f"current args: {json.dumps(args, ensure_ascii=False)}")
            new_args = await _ask_json(console, "new args (JSON object) > ", want_object=True)
            if new_args is STOP:
                return STOP
            return {"type": "edit", "edited_action": {"name": name, "args": new_args}}
        if choice == "reject":
            reason = await console.ask("reason (empty for none) > ")
            if reason is None:
                return STOP
            return {"type": "reject", "message": reason} if reason.strip() else {"type": "reject"}
        message = await console.ask("response to the model > ")
        if message is None:
            return STOP
        return {"type": "respond", "message": message}


async def _ask_hitl(console: Console, value: dict[str, Any]) -> Any:
    configs = {
        str(c.get("action_name")): c
        for c in value.get("review_configs") or []
        if isinstance(c, dict)
    }
    decisions = []
    requests = value["action_requests"]
    for i, req in enumerate(requests, 1):
        req = req if isinstance(req, dict) else {"name": str(req)}
        allowed = list(
            configs.get(str(req.get("name")), {}).get("allowed_decisions") or _DEFAULT_ALLOWED
        )
        console.out(f"── approval {i}/{len(requests)} ──")
        decision = await _ask_decision(console, req, allowed)
        if decision is STOP:
            return STOP
        decisions.append(decision)
    return {"decisions": decisions}


async def ask_resume(console: Console, interrupts: list[EventBase]) -> Any:
    """Ask for the value(s) that resume the interrupted run.

    Returns the next run's input: ``Command(resume=...)`` (one value, or a map by interrupt
    id), ``None`` to go past a static ``interrupt_before/after``, or ``STOP``.
    """
    from engine.types import Command

    values: dict[str, Any] = {}
    static_only = True
    for ev in interrupts:
        d = ev.__dict__
        if d.get("static"):
            continue
        static_only = False
        value = d.get("value")
        if isinstance(value, dict) and is_hitl_request(value):
            answer = await _ask_hitl(console, value)
        elif isinstance(value, dict) and is_tool_approval(value):
            allowed = _allowed_by_schema(d.get("response_schema"))
            answer = await _ask_decision(console, value, allowed)
        else:
            console.out(f"interrupt in {d.get('node')}: {_pretty(value)}")
            answer = await _ask_json(console, "resume value (JSON) > ")
        if answer is STOP:
            return STOP
        values[str(d.get("interrupt_id"))] = answer
    if static_only:
        answer = await console.ask(
            "the run stopped at an interrupt_before/after: continue? [Y/n] > "
        )
        if answer is None or answer.strip().lower() in ("n", "no", "q"):
            return STOP
        return None
    if len(values) == 1:
        return Command(resume=next(iter(values.values())))
    return Command(resume=values)
