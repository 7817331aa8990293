"""The input form: a graph that takes no chat message gets its input from a form built from
its input schema (typed fields, defaults, checked before the run, a JSON tab), in attach mode
and on the engine; a graph with a ``context_schema`` gets its run context from it too."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QPlainTextEdit

from engine.events import RunFinished
from studio.models.input_form import MISSING, InputForm
from tests.fixtures.docs_app_sources import CONTEXT_APP, STATEGRAPH_APP
from tests.fixtures.docs_apps import write_app
from tests.fixtures.plain_langgraph import plain_module
from tests.studio.app_agents import make_window, run_until

NO_INPUT = STATEGRAPH_APP.replace('INPUT = {"topic": "cats"}\n', "")


def test_the_form_model_types_defaults_and_problems() -> None:
    app_schema = {
        "properties": {
            "topic": {"title": "Topic", "type": "string"},
            "words": {"default": 20, "title": "Words", "type": "integer"},
            "tone": {"enum": ["dry", "warm"], "title": "Tone"},
            "notes": {"default": [], "items": {"type": "string"}, "type": "array"},
            "ratio": {"anyOf": [{"type": "number"}, {"type": "null"}], "default": None},
        },
        "required": ["topic", "tone"],
        "type": "object",
    }
    form = InputForm.from_schema(app_schema)
    kinds = {f.name: f.kind for f in form.fields}
    assert kinds == {
        "topic": "text",
        "words": "integer",
        "tone": "choice",
        "notes": "json",
        "ratio": "number",
    }
    assert form.required_names == ["topic", "tone"]
    value, problems = form.parse({"topic": "", "words": "many", "tone": "", "notes": "[1,"})
    assert problems == [
        "Topic: required",
        "Words: a whole number, not 'many'",
        "Tone: required",
        "notes: not valid JSON (Expecting value, column 4)",
    ]
    value, problems = form.parse({"topic": "cats", "words": "30", "tone": '"dry"', "notes": ""})
    assert problems == [] and value == {"topic": "cats", "words": 30, "tone": "dry"}
    assert form.parse_json('{"words": "x"}')[1] == [
        "topic: required",
        "tone: required",
        "Words: a whole number",
    ]
    whole = InputForm.from_schema({"type": "array", "items": {"type": "string"}})
    assert whole.whole and whole.parse_json('["sf"]') == (["sf"], [])
    assert whole.parse_json('{"a": 1}')[1] == ["the input is array, not dict"]


def _type(qtbot: Any, editor: Any, text: str) -> None:
    editor.setFocus()
    editor.clear()
    qtbot.keyClicks(editor, text)


def test_run_on_a_graph_without_input_opens_the_form_and_runs_what_it_says(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    app = write_app(tmp_path, NO_INPUT)
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(app.spec)
    window.actions_.run.trigger()
    dialog = window.input_form_dialog
    qtbot.waitUntil(dialog.isVisible)
    page = dialog.form_page
    assert page is not None and page.editors["words"].text() == "20"  # the default
    _type(qtbot, page.editors["words"], "lots")
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and dialog.error_label.isVisible()
    assert dialog.error_label.text() == "Topic: required\nWords: a whole number, not 'lots'"
    _type(qtbot, page.editors["topic"], "dogs")
    _type(qtbot, page.editors["words"], "7")
    dialog.tabs.setCurrentWidget(dialog.json_edit)  # the JSON tab carries the form over
    assert '"topic": "dogs"' in dialog.json_edit.toPlainText()
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    state = window.controller.graph.real.get_state(window.hub.config())
    assert state.values["topic"] == "dogs" and state.values["words"] == 7
    assert "published" in state.values["notes"]
    kept = window.controller.typed_input  # Restart runs it again
    assert kept["topic"] == "dogs" and kept["words"] == 7


def _run_city_graph(
    qtbot: Any, tmp_path: Path, typed_dict: str, graph: str, city_type: str = "str"
) -> tuple[Any, Any]:
    """Open a graph of ``city`` and ``days`` (its TypedDict and StateGraph from the given
    imports) in the window and press Run: the input form opens."""
    path = tmp_path / "cities.py"
    path.write_text(
        f"{typed_dict}\n{graph}\n"
        f"class S(TypedDict):\n    city: {city_type}\n    days: int\n"
        "g = StateGraph(S)\n"
        "g.add_node('plan', lambda s: {'days': s['days'] + 1})\n"
        "g.add_edge(START, 'plan')\n"
        "graph = g.compile()\n"
    )
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(f"{path}:graph")
    window.actions_.run.trigger()
    dialog = window.input_form_dialog
    qtbot.waitUntil(dialog.isVisible)
    return window, dialog


def test_the_engine_gets_the_form_too(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    window, dialog = _run_city_graph(
        qtbot, tmp_path, "from typing import TypedDict", "from engine import START, StateGraph"
    )
    assert dialog.json_edit is not None and dialog.form_page is not None
    dialog.tabs.setCurrentWidget(dialog.json_edit)
    editor: QPlainTextEdit = dialog.json_edit
    editor.setPlainText('{"city": "Oslo", "days": 2}')
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    snap = window.hub.snapshot()
    assert snap is not None and snap.values == {"city": "Oslo", "days": 3}


def test_an_attached_app_on_a_typing_typeddict_gets_typed_fields(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """``from typing import TypedDict``, as users write it: pydantic refuses it on Python <
    3.12, so LangGraph has no schema for the input; the form still has its typed fields (it
    was one JSON box a field, a city typed without quotes refused as "not valid JSON")."""
    window, dialog = _run_city_graph(
        qtbot,
        tmp_path,
        "from typing import TypedDict",
        "from langgraph.graph import START, StateGraph",
    )
    page = dialog.form_page
    assert page is not None and set(page.editors) == {"city", "days"}
    assert page.findChild(QLabel, "form_description") is None
    assert isinstance(page.editors["city"], QLineEdit)
    _type(qtbot, page.editors["city"], "Oslo")
    _type(qtbot, page.editors["days"], "two")
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    assert dialog.error_label.text() == "Days: a whole number, not 'two'"  # before the run
    _type(qtbot, page.editors["days"], "2")
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    (final,) = [e for e in window.hub.events if isinstance(e, RunFinished)]
    assert final.status == "done" and final.output == {"city": "Oslo", "days": 3}


def test_an_attached_app_whose_input_cannot_be_described_runs_from_its_keys(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """A field of a type no schema can describe (a plain class): the state's keys, each
    taking JSON, and the form says why."""
    window, dialog = _run_city_graph(
        qtbot,
        tmp_path,
        "from typing import TypedDict\nclass Place:\n    pass",
        "from langgraph.graph import START, StateGraph",
        city_type="Place",
    )
    page = dialog.form_page
    assert page is not None and set(page.editors) == {"city", "days"}
    note = page.findChild(QLabel, "form_description")
    assert note is not None and "could not be derived" in note.text()
    _type(qtbot, page.editors["city"], '"Oslo"')
    _type(qtbot, page.editors["days"], "2")
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    (final,) = [e for e in window.hub.events if isinstance(e, RunFinished)]
    assert final.status == "done" and final.output == {"city": "Oslo", "days": 3}


def test_a_context_schema_gets_its_context_from_the_form(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    app = write_app(tmp_path, CONTEXT_APP)
    window = make_window(qtbot, tmp_path)
    window.controller.attach = type(window.controller.attach)(stream_tokens=False)
    assert window.load_spec(app.spec)
    window.actions_.run.trigger()
    dialog = window.input_form_dialog
    qtbot.waitUntil(dialog.isVisible)
    assert dialog.input_form is None and dialog.context_page is not None  # INPUT is given
    name: QLineEdit = dialog.context_page.editors["user_name"]  # type: ignore[assignment]
    _type(qtbot, name, "John Smith")
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    run_until(qloop, lambda: window.hub.status == "done" and not window.controller.busy)
    tools = [e for e in window.hub.events if e.kind == "tool.finished"]
    assert tools and "John Smith" in str(tools[0].__dict__["result"])
    assert window.controller.context == {"user_name": "John Smith"}


def test_stepwise_open_takes_input_and_context_as_json() -> None:
    from studio.app.entry import _given_input, parse_args

    args = parse_args(["open", "app.py:graph", "--input-json", '{"topic": "x"}',
                       "--context-json", '{"user_name": "Ada"}'])  # fmt: skip
    assert _given_input(args) == ({"topic": "x"}, {"user_name": "Ada"})
    with pytest.raises(SystemExit):
        parse_args(["open", "app.py:graph", "--context-json", "{nope"])
    plain = plain_module  # the fixtures stay importable here (no Qt needed)
    assert callable(plain)


def test_titles_and_descriptions_from_the_apps_schema_show_as_written(qtbot: Any) -> None:
    from PySide6.QtWidgets import QFormLayout, QLabel

    from studio.dialogs.input_form import FormPage

    crafted = "<b>bold</b><img src=x>"
    schema = {
        "type": "object",
        "properties": {"topic": {"type": "string", "title": crafted, "description": crafted}},
    }
    page = FormPage(InputForm.from_schema(schema))
    qtbot.addWidget(page)
    layout = page.layout()
    assert isinstance(layout, QFormLayout)
    item = layout.itemAt(0, QFormLayout.ItemRole.LabelRole)
    assert item is not None
    label = item.widget()
    assert isinstance(label, QLabel) and label.textFormat() == Qt.TextFormat.PlainText
    assert label.text().startswith(crafted)
    tip = page.editors["topic"].toolTip()
    assert "<b>" not in tip and "&lt;b&gt;bold" in tip


def test_a_string_input_is_the_text_as_typed_and_json_strings_still_read() -> None:
    form = InputForm.from_schema({"title": "LangGraphInput", "type": "string"})
    assert form.takes_text
    assert form.parse_json("cats") == ("cats", [])
    assert form.parse_json('"cats"') == ("cats", [])
    assert form.parse_json("42") == ("42", [])
    assert form.parse_json("  ") == (MISSING, ["the input is empty"])
    numbers = InputForm.from_schema({"type": "array", "items": {"type": "integer"}})
    assert not numbers.takes_text and numbers.parse_json("cats")[1][0].startswith("not valid")
