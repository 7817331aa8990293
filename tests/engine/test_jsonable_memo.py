"""``jsonable_memo``: a value rendered at several ``max_str`` is what ``to_jsonable`` renders at
each, a pydantic model dumped once; a model request's last messages and new messages are what
they were when each was rendered on its own."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from engine.agents import create_agent
from engine.messages import AIMessage, HumanMessage, ToolMessage
from engine.models import ScriptedChatModel
from engine.serde import jsonable_memo, to_jsonable


class _Odd(BaseModel):
    text: str
    blob: bytes = b"\x00\xff"


class _Broken(BaseModel):
    value: Any = None

    def model_dump(self, **kwargs: Any) -> Any:  # type: ignore[override]
        raise RuntimeError("cannot dump")


VALUES: list[Any] = [
    HumanMessage("short"),
    HumanMessage("x" * 5000),
    AIMessage("y" * 120_000, tool_calls=[{"name": "f", "args": {"a": "z" * 4500}, "id": "c"}]),
    ToolMessage("é" * 3000, tool_call_id="c"),  # 3000 chars, 6000 bytes of JSON
    _Odd(text="t" * 450),
    _Broken(),
    {"plain": "w" * 4100, "n": [1, 2.5, None]},
    "s" * 5000,
    7,
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_each_limit_renders_what_to_jsonable_renders(value: Any) -> None:
    render = jsonable_memo()
    for max_str in (100_000, 4000, 500, 100_000, 4000):
        assert render(value, max_str) == to_jsonable(value, max_str=max_str)


def test_a_model_is_dumped_once_for_every_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    dumps: list[Any] = []
    real = HumanMessage.model_dump

    def counting(self: Any, **kwargs: Any) -> Any:
        dumps.append(self)
        return real(self, **kwargs)

    monkeypatch.setattr(HumanMessage, "model_dump", counting)
    message = HumanMessage("hello")
    render = jsonable_memo()
    assert render(message, 4000) is render(message, 100_000)
    assert dumps == [message]


async def test_a_request_shows_long_messages_as_each_field_did() -> None:
    """The last messages shortened at 4000 characters, the new messages at 100,000, the same
    message objects rendered for both fields."""
    long_question = "q" * 6000
    huge_question = "h" * 150_000
    agent = create_agent(ScriptedChatModel(["a" * 4500]), [])
    sent = [HumanMessage(long_question), HumanMessage(huge_question)]
    events: list[Any] = []
    with agent.subscribe(events.append):
        await agent.ainvoke({"messages": sent}, {"configurable": {"thread_id": "t"}})
    requests = [e for e in events if e.kind == "model.request"]
    assert requests
    first = requests[0]
    assert first.last_messages == [to_jsonable(m, max_str=4000) for m in sent]
    assert first.messages == [to_jsonable(m, max_str=100_000) for m in sent]
