"""Docs programs for the file-system middleware, real LangChain vs ported vs attached:
``FilesystemFileSearchMiddleware`` (glob and grep searches, their output modes, a bad regex,
a path outside the root) and ``ShellToolMiddleware`` on the host (startup commands, env, a
failing command, a restart, and a call with neither ``command`` nor ``restart``: the model
validator's error is left out of the tools node's message, as LangGraph filters it).
The shell tool's description is the engine's own wording (not printed here)."""

from __future__ import annotations

import shutil

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

FILE_SEARCH = r"""
import os, tempfile
from langchain.agents import create_agent
from langchain.agents.middleware import FilesystemFileSearchMiddleware
from langchain.messages import AIMessage
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        self.seen.append(("bind", sorted(getattr(t, "name", None) or (t.get("name") if isinstance(t, dict) else None) or t["function"]["name"] for t in tools), kw.get("tool_choice")))
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.seen.append(("call", [(m.type, m.content if isinstance(m.content, str) else str(m.content)) for m in messages]))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)
def show(out):
    for m in out["messages"]:
        print(" ", type(m).__name__, repr(m.content)[:200], getattr(m, "tool_calls", None) and [(c["name"], c["args"]) for c in m.tool_calls], getattr(m, "tool_call_id", None), getattr(m, "name", None), getattr(m, "status", None))
    print("  keys", sorted(out))

root = tempfile.mkdtemp()
os.makedirs(os.path.join(root, "src", "pkg"))
for rel, text in [("src/app.py", "import os\nclass App:\n    pass\n"), ("src/pkg/util.py", "def helper():\n    return 'TODO: fix'\n"), ("README.md", "# Demo\nTODO: docs\n"), ("src/pkg/data.json", "{}")]:
    with open(os.path.join(root, rel), "w") as f:
        f.write(text)
mw = FilesystemFileSearchMiddleware(root_path=root, use_ripgrep=False, max_file_size_mb=10)
print(sorted(t.name for t in mw.tools))
for t in mw.tools:
    print(t.name, t.description[:80].replace(root, "<root>"), sorted(t.args))
model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "glob_search", "args": {"pattern": "**/*.py"}, "id": "g1"}]),
    AIMessage("", tool_calls=[{"name": "glob_search", "args": {"pattern": "*.md", "path": "/"}, "id": "g2"}, {"name": "glob_search", "args": {"pattern": "*.py", "path": "/src/pkg"}, "id": "g3"}]),
    AIMessage("", tool_calls=[{"name": "grep_search", "args": {"pattern": "TODO"}, "id": "r1"}]),
    AIMessage("", tool_calls=[{"name": "grep_search", "args": {"pattern": "TODO", "output_mode": "content"}, "id": "r2"}, {"name": "grep_search", "args": {"pattern": "TODO", "output_mode": "count", "include": "*.py"}, "id": "r3"}]),
    AIMessage("", tool_calls=[{"name": "grep_search", "args": {"pattern": "[unclosed"}, "id": "r4"}, {"name": "glob_search", "args": {"pattern": "*.py", "path": "/../etc"}, "id": "g4"}, {"name": "glob_search", "args": {"pattern": "*.zzz"}, "id": "g5"}]),
    AIMessage("done"),
]))
agent = create_agent(model, tools=[], middleware=[mw])
out = agent.invoke({"messages": [{"role": "user", "content": "find"}]})
for m in out["messages"]:
    if m.type == "tool":
        print(m.name, m.status, repr(m.content.replace(root, "<root>")))
"""

SHELL = r"""
import tempfile
from langchain.agents import create_agent
from langchain.agents.middleware import ShellToolMiddleware, HostExecutionPolicy
from langchain.messages import AIMessage
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        self.seen.append(("bind", sorted(getattr(t, "name", None) or (t.get("name") if isinstance(t, dict) else None) or t["function"]["name"] for t in tools), kw.get("tool_choice")))
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.seen.append(("call", [(m.type, m.content if isinstance(m.content, str) else str(m.content)) for m in messages]))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)
def show(out):
    for m in out["messages"]:
        print(" ", type(m).__name__, repr(m.content)[:200], getattr(m, "tool_calls", None) and [(c["name"], c["args"]) for c in m.tool_calls], getattr(m, "tool_call_id", None), getattr(m, "name", None), getattr(m, "status", None))
    print("  keys", sorted(out))

ws = tempfile.mkdtemp()
mw = ShellToolMiddleware(workspace_root=ws, execution_policy=HostExecutionPolicy(), startup_commands=["export GREETING=hello"], env={"FOO": "bar", "PATH": "/usr/bin:/bin"})
print([t.name for t in mw.tools], mw.name)
t = mw.tools[0]
print(sorted(t.args))
model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "shell", "args": {"command": "echo $GREETING $FOO; pwd | sed 's#.*/##' | wc -c"}, "id": "s1"}]),
    AIMessage("", tool_calls=[{"name": "shell", "args": {"command": "cd /tmp && X=1; echo X=$X; false"}, "id": "s2"}]),
    AIMessage("", tool_calls=[{"name": "shell", "args": {"command": "echo $X; ls nosuchfile 2>/dev/null"}, "id": "s3"}]),
    AIMessage("", tool_calls=[{"name": "shell", "args": {"restart": True}, "id": "s4"}]),
    AIMessage("", tool_calls=[{"name": "shell", "args": {"command": "echo after restart $X $GREETING"}, "id": "s5"}]),
    AIMessage("", tool_calls=[{"name": "shell", "args": {}, "id": "s6"}]),
    AIMessage("done"),
]))
agent = create_agent(model, tools=[], middleware=[mw])
out = agent.invoke({"messages": [{"role": "user", "content": "run"}]})
for m in out["messages"]:
    if m.type == "tool":
        print(m.name, m.status, repr(m.content.replace(ws, "<ws>")), m.artifact if hasattr(m, "artifact") else None)
print(sorted(k for k in out if k != "messages"))
"""


def test_file_search_tools() -> None:
    compare(FILE_SEARCH)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_shell_tool_on_the_host() -> None:
    compare(SHELL)
