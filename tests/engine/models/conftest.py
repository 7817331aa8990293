"""Fixtures for the chat-model tests: a live local OpenAI-compatible server and a client for it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from engine.models import OpenAIChatModel
from tests.fixtures.openai_server import FakeOpenAIServer, openai_server

__all__ = ["FAKE_KEY", "openai_server"]

FAKE_KEY = "sk-test-SECRET123"


@pytest.fixture
async def model(openai_server: FakeOpenAIServer) -> AsyncIterator[OpenAIChatModel]:
    """An ``OpenAIChatModel`` talking to ``openai_server`` over real HTTP."""
    m = OpenAIChatModel(
        "test-model", base_url=openai_server.base_url, api_key=FAKE_KEY, timeout=5.0
    )
    yield m
    await m.aclose()
