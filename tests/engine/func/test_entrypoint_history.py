"""An entrypoint's thread history reads as LangGraph's: no value before the function has
returned (``None``, not ``{}``), and the entrypoint task's result is what it returned."""

from __future__ import annotations

from engine.checkpoint.memory import InMemorySaver
from engine.func import entrypoint, task
from engine.types import Command, interrupt


@task
def draft(topic: str) -> str:
    return f"An essay about {topic}"


@entrypoint(checkpointer=InMemorySaver())
def essay(topic: str) -> dict[str, object]:
    text = draft(topic).result()
    ok = interrupt({"essay": text})
    return {"essay": text.upper() if ok else text, "approved": bool(ok)}


def test_the_history_of_an_interrupted_and_resumed_entrypoint() -> None:
    config = {"configurable": {"thread_id": "t"}}
    essay.invoke("cats", config)
    done = essay.invoke(Command(resume=True), config)
    assert done == {"essay": "AN ESSAY ABOUT CATS", "approved": True}

    newest, first = list(essay.get_state_history(config))
    assert newest.values == done and newest.next == ()
    assert first.values is None and first.next == ("essay",)
    [entry] = first.tasks
    assert entry.name == "essay" and entry.result == done  # not {"__end__": done}
    assert [i.value for i in entry.interrupts] == [{"essay": "An essay about cats"}]
