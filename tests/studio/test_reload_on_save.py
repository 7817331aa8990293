"""Issue 28 item 9: reload on save.

A real agent file and a helper module it imports are written in ``tmp_path``; the real main
window loads the file and watches it.  Editing either file reloads the graph (new nodes drawn)
while the thread list, the current thread, the events shown, the breakpoints and the dock
layout stay; a broken edit shows its one-line error and keeps the last good graph; a change
made during a run waits for the run's end; an editor's "write a new file and rename it over"
is followed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.studio.app_agents import make_window, run_until

AGENT = """
from typing import TypedDict

from engine.graph import StateGraph
from helpers import NODES


class S(TypedDict, total=False):
    trail: list


def make(name):
    def step(state):
        return {{"trail": [*state.get("trail", []), name]}}

    return step


g = StateGraph(S)
previous = None
for name in NODES:
    g.add_node(name, make(name))
    if previous is None:
        g.set_entry_point(name)
    else:
        g.add_edge(previous, name)
    previous = name
g.set_finish_point(previous)
agent = g.compile()
INPUT = {{"trail": []}}
{extra}
"""


def _write(path: Path, text: str) -> None:
    """Write ``text`` and move the modification time on (a save a second later)."""
    path.write_text(text, encoding="utf-8")
    st = path.stat()
    bump = getattr(_write, "bump", 0) + 1
    _write.bump = bump  # type: ignore[attr-defined]
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + bump * 1_000_000_000))


def _project(tmp_path: Path, nodes: list[str], extra: str = "") -> Path:
    folder = tmp_path / "project"
    folder.mkdir(exist_ok=True)
    _write(folder / "helpers.py", f"NODES = {nodes!r}\n")
    agent = folder / "agent.py"
    _write(agent, AGENT.format(extra=extra))
    return agent


def _nodes(window: Any) -> set[str]:
    return set(window.graph_panel.state.graph.nodes) - {"__start__", "__end__"}


def _loaded(qtbot: Any, tmp_path: Path, nodes: list[str]) -> tuple[Any, Path]:
    agent = _project(tmp_path, nodes)
    window = make_window(qtbot, tmp_path)
    assert window.load_spec(f"{agent}:agent")
    assert _nodes(window) == set(nodes)
    return window, agent


def test_editing_the_agent_file_or_its_module_reloads_and_keeps_the_work(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window, agent = _loaded(qtbot, tmp_path, ["a", "b"])
    ctl, hub = window.controller, window.hub
    window.actions_.run.trigger()
    run_until(qloop, lambda: hub.status == "done" and not ctl.busy)
    first_thread = hub.thread_id
    window.new_thread()
    threads = list(ctl.threads)
    events = len(hub.events)
    window.graph_panel.view.toggle_breakpoint("b")
    layout = window.saveState()

    with qtbot.waitSignal(window.reloader.reloaded, timeout=5000):
        _write(agent.parent / "helpers.py", "NODES = ['a', 'b', 'c']\n")  # the module
    assert _nodes(window) == {"a", "b", "c"}
    assert ctl.threads == threads and hub.thread_id == threads[-1]
    assert len(hub.events) == events  # the runs so far are still shown
    assert "b" in window.graph_panel.state.breakpoints
    assert window.saveState() == layout
    assert "Reloaded" in window.status.message_label.text()

    window.switch_thread(first_thread)  # the first thread's checkpoints are still there
    assert ctl.graph.get_state(hub.config()).values["trail"] == ["a", "b"]

    with qtbot.waitSignal(window.reloader.reloaded, timeout=5000):
        _write(agent, AGENT.format(extra="agent.name = 'renamed'"))  # the file itself
    assert ctl.graph.name == "renamed"


def test_a_broken_save_shows_one_line_and_keeps_the_last_good_graph(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window, agent = _loaded(qtbot, tmp_path, ["a", "b"])
    graph = window.controller.graph
    with qtbot.waitSignal(window.reloader.failed, timeout=5000) as failed:
        _write(agent, AGENT.format(extra="raise ValueError('half-typed edit')"))
    reason = failed.args[0]
    assert "\n" not in reason and "ValueError: half-typed edit" in reason
    assert "agent.py" in reason
    assert window.controller.graph is graph and _nodes(window) == {"a", "b"}
    assert "half-typed edit" in window.status.message_label.text()
    assert window.error_dialog is None  # a note, not a modal dialog on every save

    with qtbot.waitSignal(window.reloader.reloaded, timeout=5000):  # fixed: reloads again
        _write(agent.parent / "helpers.py", "NODES = ['x']\n")
        _write(agent, AGENT.format(extra=""))
    assert _nodes(window) == {"x"}


def test_a_save_during_a_run_reloads_when_the_run_ends(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    window, agent = _loaded(qtbot, tmp_path, ["a", "b"])
    ctl, hub = window.controller, window.hub
    window.graph_panel.view.toggle_breakpoint("b")
    window.actions_.run.trigger()
    run_until(qloop, lambda: hub.status == "paused")
    graph = ctl.graph
    _write(agent.parent / "helpers.py", "NODES = ['a', 'b', 'c', 'd']\n")
    qtbot.waitUntil(lambda: window.reloader.pending, timeout=5000)
    assert ctl.graph is graph and "when the run ends" in window.status.message_label.text()
    with qtbot.waitSignal(window.reloader.reloaded, timeout=10000):
        window.actions_.run.trigger()  # continue to the end
        run_until(qloop, lambda: not ctl.busy)
    assert _nodes(window) == {"a", "b", "c", "d"}


def test_a_file_replaced_by_rename_is_watched_again(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    window, agent = _loaded(qtbot, tmp_path, ["a"])
    helpers = agent.parent / "helpers.py"
    for n, nodes in enumerate((["a", "b"], ["a", "b", "c"])):
        tmp = agent.parent / f".helpers.py.swp{n}"
        _write(tmp, f"NODES = {nodes!r}\n")
        with qtbot.waitSignal(window.reloader.reloaded, timeout=5000):
            os.replace(tmp, helpers)  # how many editors save
        assert _nodes(window) == set(nodes)
        assert str(helpers) in window.reloader.watcher.files()


def test_a_module_spec_or_a_session_is_not_watched(qtbot: Any, tmp_path: Path) -> None:
    window, agent = _loaded(qtbot, tmp_path, ["a"])
    assert str(agent) in window.reloader.watcher.files()
    window.reloader.watch("engine.some_module:agent")
    assert not window.reloader.watcher.files()
