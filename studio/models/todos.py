"""The Todos dock's view state: ``state["todos"]`` as board cards, diffs, and user edits.

Plain Python, no Qt.  ``todo_cards(current, previous)`` marks each card with what changed since
the previous checkpoint (added, status changed, reworded, moved) and lists what was removed.
``TodoDraft`` is the user's working copy while the run is paused (add, reword, reorder, change
status, remove); ``todos_update(values, todos)`` is the state update that applies it so the model
sees it on its next turn: the new ``todos`` plus, because the model only learns its list from the
``write_todos`` result, that ``ToolMessage`` rewritten in place (same id) to the edited list.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

__all__ = [
    "STATUSES",
    "STATUS_TITLES",
    "BoardState",
    "Change",
    "TodoCard",
    "TodoDraft",
    "normalise_todos",
    "tip_writer",
    "todo_cards",
    "todos_update",
]

Status = Literal["pending", "in_progress", "completed"]
STATUSES: tuple[Status, ...] = ("pending", "in_progress", "completed")
STATUS_TITLES: dict[str, str] = {
    "pending": "Pending",
    "in_progress": "In progress",
    "completed": "Completed",
}
Change = Literal["added", "status", "reworded", "moved"]

EDITED_NOTE = "(The user edited this todo list while the run was paused.)"


def normalise_todos(value: Any) -> list[dict[str, str]]:
    """``state["todos"]`` as a clean list of ``{"content", "status"}`` (unknown status: pending)."""
    out: list[dict[str, str]] = []
    for item in value or []:
        if isinstance(item, Mapping):
            content, status = str(item.get("content", "")), str(item.get("status", "pending"))
        else:
            content, status = str(item), "pending"
        out.append({"content": content, "status": status if status in STATUSES else "pending"})
    return out


@dataclass(frozen=True)
class TodoCard:
    index: int
    """Position in the list (the order the agent wrote)."""
    content: str
    status: str
    change: Change | None = None
    """What changed since the previous checkpoint (None: nothing, or no previous list)."""
    before: str | None = None
    """The previous status (``status``) or wording (``reworded``)."""


def _stable(sequence: Sequence[int]) -> set[int]:
    """Positions of a longest increasing subsequence of ``sequence`` (the items that kept their
    relative order; the others moved)."""
    tails: list[int] = []
    tails_at: list[int] = []
    back: list[int] = [-1] * len(sequence)
    for pos, value in enumerate(sequence):
        lo, hi = 0, len(tails)
        while lo < hi:
            mid = (lo + hi) // 2
            if tails[mid] < value:
                lo = mid + 1
            else:
                hi = mid
        back[pos] = tails_at[lo - 1] if lo else -1
        if lo == len(tails):
            tails.append(value)
            tails_at.append(pos)
        else:
            tails[lo] = value
            tails_at[lo] = pos
    keep: set[int] = set()
    pos = tails_at[-1] if tails_at else -1
    while pos >= 0:
        keep.add(pos)
        pos = back[pos]
    return keep


REWORD_SIMILARITY = 0.5
"""How alike (difflib ratio) a new todo and a vanished one must be to count as a rewording."""


def _most_similar(text: str, candidates: Sequence[str]) -> int:
    """The index of the candidate most like ``text`` (-1 when none is alike enough)."""
    best, best_ratio = -1, REWORD_SIMILARITY
    for k, other in enumerate(candidates):
        ratio = difflib.SequenceMatcher(None, text, other).ratio()
        if ratio >= best_ratio and (best < 0 or ratio > best_ratio):
            best, best_ratio = k, ratio
    return best


def todo_cards(current: Any, previous: Any = None) -> tuple[list[TodoCard], list[dict[str, str]]]:
    """Cards for ``current`` with changes against ``previous`` (None = no highlight), and the
    todos of ``previous`` that are gone."""
    now = normalise_todos(current)
    if previous is None:
        return [TodoCard(i, t["content"], t["status"]) for i, t in enumerate(now)], []
    before = normalise_todos(previous)
    unused: dict[str, list[int]] = {}
    for j, t in enumerate(before):
        unused.setdefault(t["content"], []).append(j)
    match: dict[int, int] = {}
    for i, t in enumerate(now):
        slots = unused.get(t["content"])
        if slots:
            match[i] = slots.pop(0)
    matched_before = set(match.values())
    order = sorted(match)
    stable = {order[p] for p in _stable([match[i] for i in order])}
    # an unmatched todo pairs with the most similar unmatched old one: reworded (else new)
    spare = [j for j in range(len(before)) if j not in matched_before]
    cards: list[TodoCard] = []
    for i, t in enumerate(now):
        if i in match:
            old = before[match[i]]
            if old["status"] != t["status"]:
                cards.append(TodoCard(i, t["content"], t["status"], "status", old["status"]))
            elif i not in stable:
                cards.append(TodoCard(i, t["content"], t["status"], "moved"))
            else:
                cards.append(TodoCard(i, t["content"], t["status"]))
        elif (j := _most_similar(t["content"], [before[k]["content"] for k in spare])) >= 0:
            k = spare.pop(j)
            matched_before.add(k)
            cards.append(TodoCard(i, t["content"], t["status"], "reworded", before[k]["content"]))
        else:
            cards.append(TodoCard(i, t["content"], t["status"], "added"))
    removed = [t for j, t in enumerate(before) if j not in matched_before]
    return cards, removed


@dataclass
class BoardState:
    """What the board shows: the cards by column, removed todos, and whether it is a live view."""

    todos: list[dict[str, str]] | None = None
    """None: the thread has no ``todos`` yet at this point."""
    previous: list[dict[str, str]] | None = None
    cards: list[TodoCard] = field(default_factory=list)
    removed: list[dict[str, str]] = field(default_factory=list)

    @classmethod
    def of(cls, todos: Any, previous: Any = None) -> BoardState:
        if todos is None:
            return cls()
        cards, removed = todo_cards(todos, previous)
        prev = None if previous is None else normalise_todos(previous)
        return cls(normalise_todos(todos), prev, cards, removed)

    def column(self, status: str) -> list[TodoCard]:
        return [c for c in self.cards if c.status == status]

    @property
    def changed(self) -> int:
        return sum(1 for c in self.cards if c.change) + len(self.removed)


class TodoDraft:
    """The user's edits of a todo list, before they are applied to the run."""

    def __init__(self, todos: Any = None) -> None:
        self.items: list[dict[str, str]] = normalise_todos(todos)
        self.original: list[dict[str, str]] = [dict(t) for t in self.items]
        self.changed_listeners: list[Callable[[], None]] = []

    def _changed(self) -> None:
        for cb in list(self.changed_listeners):
            cb()

    def _index(self, i: int) -> int:
        if not 0 <= i < len(self.items):
            raise IndexError(f"No todo {i} (the list has {len(self.items)})")
        return i

    @property
    def dirty(self) -> bool:
        return self.items != self.original

    def add(self, content: str, status: str = "pending", index: int | None = None) -> int:
        content = content.strip()
        if not content:
            raise ValueError("A todo needs some text")
        if status not in STATUSES:
            raise ValueError(f"Unknown status {status!r}; expected one of {', '.join(STATUSES)}")
        at = len(self.items) if index is None else max(0, min(index, len(self.items)))
        self.items.insert(at, {"content": content, "status": status})
        self._changed()
        return at

    def reword(self, i: int, content: str) -> None:
        content = content.strip()
        if not content:
            raise ValueError("A todo needs some text (remove it instead)")
        self.items[self._index(i)]["content"] = content
        self._changed()

    def set_status(self, i: int, status: str) -> None:
        if status not in STATUSES:
            raise ValueError(f"Unknown status {status!r}; expected one of {', '.join(STATUSES)}")
        self.items[self._index(i)]["status"] = status
        self._changed()

    def move(self, i: int, to: int) -> None:
        item = self.items.pop(self._index(i))
        self.items.insert(max(0, min(to, len(self.items))), item)
        self._changed()

    def remove(self, i: int) -> None:
        del self.items[self._index(i)]
        self._changed()

    def reset(self) -> None:
        self.items = [dict(t) for t in self.original]
        self._changed()

    def result(self) -> list[dict[str, str]]:
        return [dict(t) for t in self.items]


def _last_write_todos(messages: Sequence[Any]) -> ToolMessage | None:
    for m in reversed(messages):
        if isinstance(m, ToolMessage) and m.name == "write_todos" and m.status == "success":
            return m
    return None


def todos_update(values: Mapping[str, Any], todos: Sequence[Mapping[str, str]]) -> dict[str, Any]:
    """The ``update_state`` values that replace the todo list with ``todos``.

    The model learns its list from the last successful ``write_todos`` result, so that
    ``ToolMessage`` is rewritten in place (same id: ``add_messages`` replaces it) to say the
    edited list, with a note that the user edited it.  Rewriting keeps the transcript valid at
    any pause (a new message after an AIMessage with pending tool calls would not be).  Without
    such a result (the agent never wrote todos), a HumanMessage states the list, unless the last
    message is an AIMessage whose tool calls are still unanswered (then only ``todos`` changes).
    """
    new = normalise_todos(todos)
    update: dict[str, Any] = {"todos": new}
    messages: Sequence[BaseMessage] = list(values.get("messages") or [])
    last = _last_write_todos(messages)
    if last is not None and last.id:
        text = f"Updated todo list to {new}\n\n{EDITED_NOTE}"
        update["messages"] = [last.model_copy(update={"content": text})]
    elif not _awaiting_tools(messages):
        update["messages"] = [HumanMessage(content=f"I set the todo list to {new}.")]
    return update


def _awaiting_tools(messages: Sequence[BaseMessage]) -> bool:
    last_ai = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
    if last_ai is None or not last_ai.tool_calls:
        return False
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    return any(c.get("id") not in answered for c in last_ai.tool_calls)


def tip_writer(events: Sequence[Any], snapshot: Any) -> str | None:
    """The node that wrote the checkpoint ``snapshot`` is at, when exactly one did: the
    ``as_node`` that keeps ``update_state`` from changing what runs next.  From its
    ``checkpoint.saved`` event, else the checkpoint's own ``writes`` metadata; None when unknown
    (``update_state`` then infers the last writer itself)."""
    config = getattr(snapshot, "config", None) or {}
    checkpoint_id = config.get("configurable", {}).get("checkpoint_id")
    for event in reversed(events):
        if (
            getattr(event, "kind", "") == "checkpoint.saved"
            and event.checkpoint_id == checkpoint_id
        ):
            writers = [w for w in event.writer_nodes if not w.startswith("__")]
            return writers[0] if len(writers) == 1 else None
    writes = (getattr(snapshot, "metadata", None) or {}).get("writes") or {}
    names = [w for w in writes if not str(w).startswith("__")]
    return str(names[0]) if len(names) == 1 else None
