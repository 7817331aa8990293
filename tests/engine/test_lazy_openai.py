"""The OpenAI SDK is imported only by what uses it.

It takes longer to import than the rest of the engine (1.5 of 2.2 s of ``import engine.models``
on the shared CI machine), and attach mode first touches ``engine.models`` inside the app's
first model call: an app that never calls OpenAI had that call shown as 2 s long.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

ATTACHED_RUN = """
import asyncio, sys
from typing import Any
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from engine.attach import attach

class Model(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kw: Any) -> "Model":
        return self

graph = attach(create_agent(Model(messages=iter([AIMessage("hi")])), tools=[]), stream_tokens=True)

async def run() -> list[Any]:
    inp = {"messages": [{"role": "user", "content": "hello"}]}
    return [e async for e in graph.astream_events(inp, {}, version="stepwise")]

events = asyncio.run(run())
assert any(e.kind == "model.response" for e in events)
print("openai" in sys.modules)
"""


def _imports_openai(code: str) -> bool:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    return out.stdout.strip().splitlines()[-1] == "True"


def test_the_engine_and_the_studio_start_without_the_sdk() -> None:
    code = (
        "import sys, engine, engine.models, engine.attach, engine.recording, engine.cli.command\n"
        "print('openai' in sys.modules)"
    )
    assert not _imports_openai(code)


def test_an_attached_langchain_run_does_not_load_the_sdk() -> None:
    pytest.importorskip("langchain.agents")
    assert not _imports_openai(ATTACHED_RUN)


def test_asking_for_the_openai_model_loads_it() -> None:
    code = "import sys\nfrom engine.models import OpenAIChatModel\nprint('openai' in sys.modules)"
    assert _imports_openai(code)
