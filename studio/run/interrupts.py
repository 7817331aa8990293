"""Answering a paused run: pick the right dialog, await it, return what resumes the run.

    answer = await handle_interrupt(hub, snapshot.interrupts, main_window)
    if answer is None:          # "Answer later": the run stays paused at the interrupt
        ...
    else:
        await graph.ainvoke(run_input(answer), hub.config())

- An interrupt whose value is a ``HumanInTheLoopMiddleware`` request opens the approval dialog;
  its edits are checked against the schemas of the agent's own tools (``agent_tools``).
- Any other ``interrupt(value)`` opens the generic resume dialog (a JSON or text value).
- No interrupt value at all (a static ``interrupt_before/after`` pause) opens the pause dialog:
  Continue, or Edit state and continue (the studio's Edit State dialog, then continue once an
  edit is applied); its answer is ``CONTINUE``: resume with no input
  (``run_input(CONTINUE) is None``).

One pending interrupt resumes with ``Command(resume=value)``; several (parallel tasks) are asked
one after the other and resume with ``Command(resume={interrupt_id: value, ...})``.
Dialogs are window-modal and awaited as futures: no nested event loop.  ``answer_pending(hub)``
re-reads the thread's pending interrupts, for answering later (timeline, toolbar).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from engine.events import InterruptRaised
from engine.targets import Capability
from engine.tools import BaseTool
from engine.types import Command
from studio.dialogs.approval_model import Answerable, ApprovalRequest, Outcome, is_hitl_request
from studio.dialogs.resume_model import PauseRequest, ValueRequest

if TYPE_CHECKING:
    from PySide6.QtWidgets import QDialog, QWidget

    from studio.models.hub import Hub

__all__ = [
    "CONTINUE",
    "Continue",
    "agent_tools",
    "answer_pending",
    "dialog_opened",
    "handle_interrupt",
    "run_input",
]


@dataclass(frozen=True)
class Continue:
    """Resume a static pause with no new input (``graph.ainvoke(None, config)``)."""


CONTINUE = Continue()

InterruptAnswer = Command | Continue | None

dialog_opened = Outcome()
"""Fires ``(dialog)`` each time an interrupt dialog opens (for the shell and tests)."""


def run_input(answer: Command | Continue) -> Command | None:
    """What to pass to ``ainvoke`` / ``astream_events`` to resume with ``answer``."""
    return None if isinstance(answer, Continue) else answer


def agent_tools(graph: Any) -> dict[str, BaseTool]:
    """The tools of an agent graph, by name: read from its tool nodes (``create_agent``'s
    ``ToolNode.tools_by_name``; an attached LangGraph app's node holds it as ``runnable``, and
    its langchain_core tools come as ours by their schema, which the approval dialog checks an
    edit against).  Empty for graphs without tool nodes."""
    out: dict[str, BaseTool] = {}
    builder = getattr(graph, "builder", None)
    specs = getattr(builder, "nodes", {}) or {}
    for spec in specs.values():
        node = getattr(spec, "fn", None) or getattr(spec, "runnable", None)
        found = getattr(node, "tools_by_name", None)
        if isinstance(found, Mapping):
            for name, tool in found.items():
                ours = tool if isinstance(tool, BaseTool) else _ours(tool)
                if ours is not None:
                    out[str(name)] = ours
    return out


def _ours(tool: Any) -> BaseTool | None:
    """A langchain_core tool as one of ours that only describes its arguments (the schema the
    model is shown, ``tool_call_schema``: injected arguments hidden), for the checks; None
    when it is no such tool.  Nothing of LangChain's is changed or called."""
    if not type(tool).__module__.startswith("langchain"):
        return None
    schema = getattr(tool, "tool_call_schema", None)
    if not isinstance(schema, dict | type) or (
        isinstance(schema, type) and not issubclass(schema, BaseModel)
    ):
        return None
    return BaseTool(
        name=str(getattr(tool, "name", "") or ""),
        description=str(getattr(tool, "description", "") or ""),
        args_schema=schema,
    )


def _interrupt_id(item: Any) -> str | None:
    return getattr(item, "id", None) or getattr(item, "interrupt_id", None)


def _theme(hub: Hub) -> str:
    return hub.theme


def _raised(hub: Hub) -> list[InterruptRaised]:
    return [e for e in hub.events if isinstance(e, InterruptRaised) and not e.ns]


def _caller(hub: Hub, iid: str | None) -> str:
    """The node that called ``interrupt()`` when it ran in a subgraph (the innermost report of
    the interrupt; the root graph reports it again at the node running the subgraph)."""
    inner = [
        e for e in hub.events
        if isinstance(e, InterruptRaised) and e.ns and iid and e.interrupt_id == iid and e.node
    ]  # fmt: skip
    return max(inner, key=lambda e: e.ns.count("|")).node if inner else ""


async def _ask(dialog: QDialog, request: Answerable) -> Any:
    future = request.future()
    dialog.open()
    dialog_opened.emit(dialog)
    try:
        return await future
    finally:
        dialog.deleteLater()


async def _ask_value(hub: Hub, item: Any, parent: QWidget | None) -> tuple[bool, Any]:
    """(answered, resume value) for one interrupt."""
    value = getattr(item, "value", None)
    iid = _interrupt_id(item)
    if is_hitl_request(value):
        from studio.dialogs.approval import ApprovalDialog

        request = ApprovalRequest(
            value,
            interrupt_id=iid,
            tools=agent_tools(hub.graph),
            response_schema=getattr(item, "response_schema", None),
        )
        drafts = hub.approval_drafts
        request.restore(drafts.get(iid or "", []))
        command = await _ask(ApprovalDialog(request, parent, _theme(hub)), request)
        if command is None:  # answer later: keep what was decided for the next time
            drafts[iid or ""] = request.draft()
        else:
            drafts.pop(iid or "", None)
        return command is not None, None if command is None else command.resume
    from studio.dialogs.resume import ResumeValueDialog

    node = (
        _caller(hub, iid)
        or getattr(item, "node", "")
        or next((e.node for e in reversed(_raised(hub)) if e.interrupt_id == iid), "")
    )
    vrequest = ValueRequest(value, interrupt_id=iid, node=node)
    answer = await _ask(ResumeValueDialog(vrequest, parent, _theme(hub)), vrequest)
    return vrequest.state == "answered", answer


def edit_state_available() -> bool:
    """True when the studio has an edit-state dialog (``studio.dialogs.edit_state``)."""
    return importlib.util.find_spec("studio.dialogs.edit_state") is not None


async def _ask_pause(hub: Hub, parent: QWidget | None) -> InterruptAnswer:
    snapshot = await hub.read_state(None)
    nodes = tuple(snapshot.next) if snapshot is not None else ()
    static = [e for e in _raised(hub) if e.static is not None]
    when = static[-1].static if static else None
    if static and not nodes:
        nodes = (static[-1].node,)
    from studio.dialogs.resume import PauseDialog

    can_edit = (
        hub.target is not None
        and Capability.EDIT_STATE in hub.target.capabilities
        and edit_state_available()
    )
    while True:
        request = PauseRequest(nodes, when=when, can_edit=can_edit)
        answer = await _ask(PauseDialog(request, parent, _theme(hub)), request)
        if answer is None:
            return None
        if answer == "continue" or await _edit_state(hub, parent):
            return CONTINUE
        # the edit was closed without applying: back to the choice


async def _edit_state(hub: Hub, parent: QWidget | None) -> bool:
    """Open the Edit State dialog on the paused tip; True once an edit was applied."""
    import asyncio

    from studio.dialogs.edit_state import EditStateDialog

    dialog = EditStateDialog(hub, None, parent=parent)
    outcome: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
    dialog.applied.connect(lambda _new_id: outcome.done() or outcome.set_result(True))
    dialog.finished.connect(lambda _code: outcome.done() or outcome.set_result(False))
    dialog.open()
    dialog_opened.emit(dialog)
    try:
        return await outcome
    finally:
        dialog.deleteLater()


async def _exact(hub: Hub, items: list[Any]) -> list[Any]:
    """The pending ``Interrupt`` objects for ``items`` where the thread has them: an
    ``interrupt.raised`` event carries a display copy of the value (long strings shortened).
    An item is found by its interrupt id, else by its task (the one interrupt that task waits
    on: two tasks interrupting at once each get their own).  They come in the thread's order
    (its tasks'), not the order parallel tasks happened to raise them in, so the same pause
    always asks its questions in the same order."""
    try:
        snapshot = await hub.read_state(None)
    except Exception:  # a recorded session without its graph: the events are all there is
        return items
    if snapshot is None:
        return items
    by_id = {i.id: i for i in snapshot.interrupts}
    by_task = {
        t.id: list(t.interrupts) for t in getattr(snapshot, "tasks", ()) or () if t.interrupts
    }
    rank = {iid: n for n, iid in enumerate(by_id)}
    found = []
    for item in items:
        exact = by_id.get(_interrupt_id(item) or "")
        waiting = by_task.get(getattr(item, "task_id", None) or "", [])
        if exact is None and len(waiting) == 1:
            exact = waiting[0]
        found.append((item, exact))
    found.sort(key=lambda pair: rank.get(pair[1].id if pair[1] else "", len(rank)))
    return [
        item
        if exact is None
        else _Pending(
            exact.value,
            exact.id,
            getattr(item, "node", ""),
            getattr(exact, "response_schema", None),
        )
        for item, exact in found
    ]


@dataclass(frozen=True)
class _Pending:
    value: Any
    id: str
    node: str = ""
    response_schema: Any = None


async def handle_interrupt(
    hub: Hub, interrupts: Sequence[Any], parent_widget: QWidget | None = None
) -> InterruptAnswer:
    """Ask the user to answer the pending ``interrupts`` (``Interrupt`` objects, or
    ``interrupt.raised`` events); see the module docstring.  None: cancelled, still paused."""
    items = [i for i in interrupts if getattr(i, "value", None) is not None or _interrupt_id(i)]
    if not items:
        return await _ask_pause(hub, parent_widget)
    items = await _exact(hub, items)
    values: dict[str, Any] = {}
    for item in items:
        answered, value = await _ask_value(hub, item, parent_widget)
        if not answered:
            return None
        values[_interrupt_id(item) or ""] = value
    if len(items) == 1:
        return Command(resume=next(iter(values.values())))
    return Command(resume=values)


async def answer_pending(hub: Hub, parent_widget: QWidget | None = None) -> InterruptAnswer:
    """Open the dialog for whatever the thread is paused at (None when nothing is pending or
    the user cancels again)."""
    snapshot = await hub.read_state(None)
    if snapshot is None:
        return None
    if snapshot.interrupts:
        return await handle_interrupt(hub, list(snapshot.interrupts), parent_widget)
    if snapshot.next and hub.status == "interrupted":  # not "paused": a live run, at a breakpoint
        return await _ask_pause(hub, parent_widget)
    return None
