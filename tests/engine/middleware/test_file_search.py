"""FilesystemFileSearchMiddleware: glob and grep tools, path safety, output modes, events."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine.agents import create_agent
from engine.messages import AIMessage, HumanMessage, ToolMessage
from engine.middleware import FilesystemFileSearchMiddleware
from engine.middleware.search_paths import expand_braces, include_matches, is_valid_include
from engine.models import ScriptedChatModel
from tests.engine.middleware.helpers import actions, captured_events


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "src" / "main.py").write_text("import os\nTODO: wire config\n")
    (root / "src" / "pkg" / "util.pyi").write_text("def helper() -> int: ...\n# TODO later\n")
    (root / "docs" / "notes.md").write_text("nothing to do\n")
    (tmp_path / "outside.txt").write_text("TODO secret outside\n")
    return root


def search(root: Path) -> FilesystemFileSearchMiddleware:
    return FilesystemFileSearchMiddleware(root_path=str(root), use_ripgrep=False)


def test_tools_are_registered(project: Path) -> None:
    mw = search(project)
    assert [t.name for t in mw.tools] == ["glob_search", "grep_search"]
    params = mw.grep_search.tool_call_schema["parameters"]
    assert set(params["properties"]) == {"pattern", "path", "include", "output_mode"}
    assert params["properties"]["output_mode"]["enum"] == ["files_with_matches", "content", "count"]


def test_glob_newest_first_and_scoped(project: Path) -> None:
    os.utime(project / "src" / "main.py", (1_000, 1_000))
    os.utime(project / "src" / "pkg" / "util.pyi", (2_000, 2_000))
    mw = search(project)
    assert mw.glob_search.func(pattern="**/*.py*") == "/src/pkg/util.pyi\n/src/main.py"
    assert mw.glob_search.func(pattern="*.md", path="/docs") == "/docs/notes.md"
    assert mw.glob_search.func(pattern="*.md", path="/src") == "No files found"


@pytest.mark.parametrize(
    ("pattern", "path"),
    [("*.txt", "/../"), ("*.txt", "~"), ("../outside.txt", "/"), ("/etc/*", "/")],
)
def test_glob_never_leaves_the_root(project: Path, pattern: str, path: str) -> None:
    assert search(project).glob_search.func(pattern=pattern, path=path) == "No files found"


def test_symlinks_out_of_the_root_are_ignored(project: Path) -> None:
    (project / "leak.txt").symlink_to(project.parent / "outside.txt")
    (project / "up").symlink_to(project.parent)
    mw = search(project)
    assert mw.glob_search.func(pattern="*.txt") == "No files found"
    assert mw.glob_search.func(pattern="*.txt", path="/up") == "No files found"
    assert "secret" not in mw.grep_search.func(pattern="secret", output_mode="content")


def test_grep_modes_and_include(project: Path) -> None:
    mw = search(project)
    assert mw.grep_search.func(pattern="TODO") == "/src/main.py\n/src/pkg/util.pyi"
    assert mw.grep_search.func(pattern="TODO", include="*.{py,md}") == "/src/main.py"
    assert mw.grep_search.func(pattern="TODO", output_mode="content") == (
        "/src/main.py:2:TODO: wire config\n/src/pkg/util.pyi:2:# TODO later"
    )
    assert mw.grep_search.func(pattern="o", path="/docs", output_mode="count") == "/docs/notes.md:1"
    assert mw.grep_search.func(pattern="absent") == "No matches found"
    assert mw.grep_search.func(pattern="(").startswith("Invalid regex pattern:")
    assert mw.grep_search.func(pattern="x", include="*.{py") == "Invalid include pattern"


def test_grep_skips_big_files(tmp_path: Path) -> None:
    (tmp_path / "big.log").write_text("needle\n" + "z" * (1024 * 1024 + 10))
    (tmp_path / "small.log").write_text("needle\n")
    mw = FilesystemFileSearchMiddleware(
        root_path=str(tmp_path), use_ripgrep=False, max_file_size_mb=1
    )
    assert mw.grep_search.func(pattern="needle") == "/small.log"


def test_missing_ripgrep_falls_back_to_python(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    mw = FilesystemFileSearchMiddleware(root_path=str(project), use_ripgrep=True)
    with captured_events() as events:
        assert mw.grep_search.func(pattern="wire") == "/src/main.py"
    (ev,) = actions(events, "file_search")
    assert ev.detail["backend"] == "python" and ev.detail["files"] == 1


def test_include_patterns() -> None:
    assert expand_braces("*.{py,pyi}") == ["*.py", "*.pyi"]
    assert expand_braces("a{b,c}{1,2}") == ["ab1", "ab2", "ac1", "ac2"]
    for bad in ("*.{py", "*.py}", "*.{}", "", "a\nb"):
        assert not is_valid_include(bad)
    assert include_matches("x.pyi", "*.{py,pyi}") and not include_matches("x.md", "*.{py,pyi}")


def test_ripgrep_output_is_parsed_and_contained(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in ``rg`` on PATH: its JSON is parsed, out-of-root paths dropped, ``--`` used."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "rg-args.json"
    inside = project / "src" / "main.py"
    outside = project.parent / "outside.txt"
    records = [
        {"type": "begin", "data": {"path": {"text": str(inside)}}},
        {
            "type": "match",
            "data": {
                "path": {"text": str(inside)},
                "line_number": 2,
                "lines": {"text": "TODO: wire config\n"},
            },
        },
        {
            "type": "match",
            "data": {
                "path": {"text": str(outside)},
                "line_number": 1,
                "lines": {"text": "TODO secret\n"},
            },
        },
        {"type": "summary", "data": {}},
    ]
    script = bin_dir / "rg"
    script.write_text(
        "#!/usr/bin/env python3\n"
        "import json, sys\n"
        f"open({str(log)!r}, 'w').write(json.dumps(sys.argv[1:]))\n"
        f"for r in {records!r}:\n"
        "    print(json.dumps(r))\n"
        "print('not json')\n"
    )
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    mw = FilesystemFileSearchMiddleware(root_path=str(project))
    with captured_events() as events:
        out = mw.grep_search.func(pattern="-TODO", include="*.py", output_mode="content")
    assert out == "/src/main.py:2:TODO: wire config"
    args = json.loads(log.read_text())
    assert args[:3] == ["--json", "--glob", "*.py"]
    assert args[args.index("--") + 1 :] == ["-TODO", str(project)]
    (ev,) = actions(events, "file_search")
    assert ev.detail["backend"] == "ripgrep"


def test_tools_run_inside_an_agent(project: Path) -> None:
    model = ScriptedChatModel(
        [
            AIMessage(
                content="",
                tool_calls=[
                    {
                        "name": "grep_search",
                        "args": {"pattern": "wire", "output_mode": "count"},
                        "id": "g1",
                    }
                ],
            ),
            "one file mentions it",
        ],
        name="m",
    )
    agent = create_agent(model, middleware=[search(project)])
    result = agent.invoke({"messages": [HumanMessage(content="where is wiring?")]})
    (answer,) = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert answer.content == "/src/main.py:1"
    assert {t["name"] for t in model.calls[0].tools} == {"glob_search", "grep_search"}
