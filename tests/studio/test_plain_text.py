"""Text from an agent, a model, a tool or a session file shows literally in the studio: never
as rich text (``<img src='/dev/zero'>`` in a todo used to crash it; links and bold text could
be faked).  In this process the widgets get ``SAFE`` text (an image tag that cannot eat
memory); the whole window gets the real ``<img src='/dev/zero'>``, live and from a crafted
session file, in a child process with an address-space cap, so a regression is a failed test,
not a machine out of memory."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from engine.events import StateUpdated
from studio.dialogs.approval import ApprovalDialog
from studio.dialogs.approval_model import ApprovalRequest
from studio.dialogs.confirm import ConfirmDialog
from studio.dialogs.errors import ErrorDialog
from studio.docks.plan.view import PlanDock
from studio.docks.todos.view import TodoBoardDock
from studio.models.hub import Hub
from studio.widgets.elided_label import ElidedLabel
from studio.widgets.plain_text import plain_tip, shows_literally
from tests.studio.crafted_text import (
    BOLD,
    IMG,
    LINK,
    PROBE,
    SAFE,
    crafted_graph,
    record_crafted_session,
)

ROOT = Path(__file__).resolve().parents[2]


def _plain_everywhere(widget: QWidget, texts: tuple[str, ...] = SAFE) -> int:
    """Assert every label of ``widget`` showing one of ``texts`` does so as plain text (and
    every tooltip shows literally); returns how many labels showed one."""
    found = 0
    for label in [widget, *widget.findChildren(QWidget)]:
        if isinstance(label, QLabel) and any(t in label.text() for t in texts):
            found += 1
            assert label.textFormat() == Qt.TextFormat.PlainText, label.text()
        tip = label.toolTip()
        for t in texts:
            if t in tip:
                assert shows_literally(tip, tip) and not _rich(tip), tip
    return found


def _rich(text: str) -> bool:
    from PySide6.QtGui import Qt as QtGui

    return QtGui.mightBeRichText(text)


@pytest.mark.parametrize(
    "text", [IMG, LINK, BOLD, "a < b", "x\n<b>y</b>", "  <i>lead</i>", "&lt;b&gt;", ""]
)
def test_plain_tip_shows_any_text_literally(text: str) -> None:
    assert shows_literally(plain_tip(text), text)


def test_error_confirm_and_approval_dialogs_show_agent_text_literally(qtbot: Any) -> None:
    error = ErrorDialog(PROBE, LINK, details=BOLD)
    confirm = ConfirmDialog(BOLD, f"Re-running loads {PROBE} (its code runs)", "Load")
    request = ApprovalRequest(
        {
            "action_requests": [{"name": PROBE, "args": {"q": LINK}, "description": BOLD}],
            "review_configs": [{"action_name": PROBE, "allowed_decisions": ["approve"]}],
        }
    )
    approval = ApprovalDialog(request)
    for dialog, expected in ((error, 2), (confirm, 2), (approval, 2)):
        qtbot.addWidget(dialog)
        assert _plain_everywhere(dialog) >= expected
        dialog.show()  # laid out and painted only once every format was checked
        dialog.grab()
    assert error.message_label.text() == LINK and error.details_view.toPlainText() == BOLD
    approval.reject()


def test_todo_cards_live_show_their_text_literally(qtbot: Any) -> None:
    graph = crafted_graph()
    hub = Hub()
    hub.set_graph(graph, graph.get_graph())
    dock = TodoBoardDock(hub)
    qtbot.addWidget(dock)
    todos = [
        {"content": t, "status": s}
        for t, s in zip(SAFE, ("pending", "in_progress", "completed"), strict=False)
    ]
    hub.add_events(
        [
            StateUpdated(
                run_id="r", seq=1, changes=[{"channel": "todos", "op": "set", "value": todos}]
            )
        ]
    )
    qtbot.waitUntil(lambda: sum(len(c.cards) for c in dock.columns.values()) == 3)
    assert _plain_everywhere(dock) == 3
    dock.show()
    dock.grab()
    texts = [w.text.text() for c in dock.columns.values() for w in c.cards]
    assert texts == [PROBE, LINK, f"✓ {BOLD}"]


def test_plan_objective_details_and_step_tooltips_show_literally(qtbot: Any) -> None:
    hub = Hub()
    dock = PlanDock(hub)
    qtbot.addWidget(dock)
    dock.model.load_state(
        {
            "plan": {
                "objective": PROBE,
                "steps": [{"name": LINK, "tool": BOLD}, {"name": PROBE, "depends_on": [0]}],
            },
            "steps": [{"index": 0, "status": "failed", "message": PROBE}],
        }
    )
    qtbot.waitUntil(lambda: dock.objective_label.text() == PROBE)
    assert _plain_everywhere(dock) >= 1
    for item in dock.canvas.scene().items():
        tip = item.toolTip()
        if tip:
            assert not _rich(tip) or PROBE not in tip, tip
    dock._show_details(0)  # the rich details line escapes what it shows
    assert PROBE not in dock.details_label.text() and "&lt;img" in dock.details_label.text()
    dock.show()
    dock.grab()


def test_an_elided_label_is_plain_and_its_tooltip_literal(qtbot: Any) -> None:
    label = ElidedLabel(PROBE)
    qtbot.addWidget(label)
    assert label.textFormat() == Qt.TextFormat.PlainText
    assert shows_literally(label.toolTip(), PROBE)


@pytest.mark.parametrize("mode", ["session", "live"])
def test_crafted_text_shows_literally_in_the_window(tmp_path: Path, mode: str) -> None:
    """Every dock at every checkpoint, every label and tooltip, of a crafted session file or
    of the crafted graph run live in the window."""
    if mode == "session":
        target = tmp_path / "crafted.stepwise"
        record_crafted_session(target)
    else:
        target = ROOT / "tests" / "studio" / "crafted_text.py"
    limit = 2 << 30  # the window needs ~0.4 GiB; reading /dev/zero as an image needs 4+
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.studio.open_crafted",
            mode,
            f"{target}:agent" if mode == "live" else str(target),
            str(limit),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and lines and lines[-1].startswith("checked "), (
        done.stdout + done.stderr[-2000:]
    )
    problems = [line for line in lines if line.startswith("PROBLEM ")]
    assert problems == []  # no label or tooltip rendered crafted text as rich text
    assert int(lines[-1].split()[1]) > 100  # labels, tooltips, trees, timeline, graph, plan


def _calls(name: str) -> list[tuple[Path, int, ast.Call]]:
    out = []
    for path in sorted((ROOT / "studio").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if called == name:
                out.append((path, node.lineno, node))
    return out


def test_every_studio_label_is_made_plain_or_from_escaped_html() -> None:
    """A bare ``QLabel(...)`` guesses its format: labels come from ``plain_label`` (or, for
    HTML the studio builds and escapes, ``rich_label``) in studio/widgets/plain_text.py."""
    bare = [
        f"{p.relative_to(ROOT)}:{line}"
        for p, line, _ in _calls("QLabel")
        if p.name != "plain_text.py"
    ]
    assert bare == [], "use studio.widgets.plain_text.plain_label / rich_label: " + ", ".join(bare)


def test_every_tooltip_with_data_goes_through_plain_tip() -> None:
    def literal(arg: ast.expr) -> bool:
        if isinstance(arg, ast.Constant):
            return True
        if isinstance(arg, ast.JoinedStr):  # only constants and literal-free formatting
            return all(isinstance(v, ast.Constant) for v in arg.values)
        if isinstance(arg, ast.Call):  # plain_tip(...), or another widget's (safe) tooltip
            f = arg.func
            name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")
            return name in ("plain_tip", "toolTip")
        return False

    loose = [
        f"{p.relative_to(ROOT)}:{line}"
        for p, line, call in _calls("setToolTip")
        if call.args and not literal(call.args[0])
    ]
    assert loose == [], "wrap data in studio.widgets.plain_text.plain_tip: " + ", ".join(loose)
