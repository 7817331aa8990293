"""Messages print as langchain_core prints them (docs programs call ``pretty_print``)."""

from __future__ import annotations

import pytest

from engine.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

EXPECTED_AI = """\
================================== Ai Message ==================================
Name: planner

Let me look.
Tool Calls:
  search (c1)
 Call ID: c1
  Args:
    query: cats
    limit: 2
Invalid Tool Calls:
  broken (c2)
 Call ID: c2
  Error: bad json
  Args:
    {oops"""


def _samples() -> list[object]:
    return [
        AIMessage(
            content="Let me look.",
            name="planner",
            tool_calls=[{"name": "search", "args": {"query": "cats", "limit": 2}, "id": "c1"}],
            invalid_tool_calls=[
                {"name": "broken", "args": "{oops", "id": "c2", "error": "bad json"}
            ],
        ),
        AIMessage(content="", tool_calls=[{"name": "f", "args": {}, "id": "x"}]),
        AIMessage(content="plain answer"),
        HumanMessage(content="What is the capital of France?"),
        HumanMessage(content=[{"type": "text", "text": "look"}]),
        SystemMessage(content="Be brief."),
        ToolMessage(content="42", tool_call_id="c1", name="calc"),
    ]


def test_an_ai_message_with_tool_calls_prints_them_one_argument_a_line() -> None:
    assert _samples()[0].pretty_repr() == EXPECTED_AI  # type: ignore[attr-defined]


def test_pretty_print_prints_the_same_text(capsys: pytest.CaptureFixture[str]) -> None:
    HumanMessage(content="hi").pretty_print()
    out = capsys.readouterr().out
    assert out == "=" * 32 + " Human Message " + "=" * 33 + "\n\nhi\n"


def test_every_kind_prints_as_langchain_core_prints_it() -> None:
    pytest.importorskip("langchain_core.messages")
    from engine.interop import to_langchain

    for message in _samples():
        theirs = to_langchain(message)
        assert message.pretty_repr() == theirs.pretty_repr()  # type: ignore[attr-defined]
        assert message.pretty_repr(html=True) == theirs.pretty_repr(html=True)  # type: ignore[attr-defined]


@pytest.mark.parametrize("repl", [False, True])
def test_titles_are_bold_exactly_when_langchain_bolds_them(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], repl: bool
) -> None:
    """A program run by ``python -c`` or piped in has no ``__main__.__file__`` yet is not
    interactive: only an interpreter that sets ``sys.ps2`` (the REPL, IPython) gets bold."""
    import sys
    import types

    lc = pytest.importorskip("langchain_core.messages")
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    if repl:
        monkeypatch.setattr(sys, "ps2", "... ", raising=False)
    else:
        monkeypatch.delattr(sys, "ps2", raising=False)
    HumanMessage("hi").pretty_print()
    ours = capsys.readouterr().out
    lc.HumanMessage("hi").pretty_print()
    assert ours == capsys.readouterr().out
    assert ("\033[1m" in ours) is repl
