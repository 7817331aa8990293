"""ProviderToolSearchMiddleware and ``@tool(extras=...)``."""

from __future__ import annotations

from typing import Any

import pytest

from engine.messages import AIMessage
from engine.middleware import ModelRequest, ModelResponse, ProviderToolSearchMiddleware
from engine.middleware.provider_tool_search import model_provider, provider_from_model_name
from engine.tools import tool
from tests.engine.middleware.helpers import actions, captured_events, model_request


@tool
def list_invoices(customer: str) -> str:
    """List a customer's invoices."""
    return "none"


@tool(extras={"defer_loading": True, "team": "billing"})
def void_invoice(invoice_id: str) -> str:
    """Void an invoice."""
    return "voided"


class ProviderModel:
    def __init__(self, provider: str) -> None:
        self.provider = provider


def send(mw: ProviderToolSearchMiddleware, request: ModelRequest) -> ModelRequest:
    seen: list[ModelRequest] = []

    def handler(req: ModelRequest) -> ModelResponse:
        seen.append(req)
        return ModelResponse(result=[AIMessage(content="ok")])

    mw.wrap_model_call(request, handler)
    return seen[0]


def test_extras_on_tools() -> None:
    assert list_invoices.extras is None
    assert void_invoice.extras == {"defer_loading": True, "team": "billing"}


def test_pre_marked_tool_is_deferred_and_reported() -> None:
    request = model_request(ProviderModel("Anthropic"), tools=[list_invoices, void_invoice])
    with captured_events() as events:
        sent = send(ProviderToolSearchMiddleware(), request)
    names = [t.name if hasattr(t, "name") else t for t in sent.tools]
    assert names[:2] == ["list_invoices", "void_invoice"]
    assert sent.tools[-1] == {
        "type": "tool_search_tool_bm25_20251119",
        "name": "tool_search_tool_bm25",
    }
    (action,) = actions(events, "tools_deferred")
    assert action.detail["provider"] == "anthropic"
    assert action.detail["deferred"] == ["void_invoice"]
    assert request.tools == [list_invoices, void_invoice]  # the original request is unchanged


def test_named_tool_gets_a_deferred_copy() -> None:
    request = model_request(ProviderModel("openai"), tools=[list_invoices])
    sent = send(ProviderToolSearchMiddleware(searchable_tools=[list_invoices]), request)
    copy = sent.tools[0]
    assert copy is not list_invoices and getattr(copy, "extras", None) == {"defer_loading": True}
    assert list_invoices.extras is None
    assert sent.tools[1] == {"type": "tool_search"}


def test_nothing_deferred_passes_the_same_request() -> None:
    request = model_request(object(), tools=[list_invoices, {"type": "web_search"}])
    assert send(ProviderToolSearchMiddleware(), request) is request


def test_errors() -> None:
    with pytest.raises(ValueError, match=r"not bound to the model: a_tool, b_tool"):
        send(
            ProviderToolSearchMiddleware(searchable_tools=["b_tool", "a_tool"]),
            model_request(ProviderModel("mistral"), tools=[list_invoices]),
        )
    with pytest.raises(ValueError, match="could not determine the provider"):
        send(ProviderToolSearchMiddleware(), model_request(object(), tools=[void_invoice]))
    with pytest.raises(ValueError, match="got 'mistralai'"):
        send(
            ProviderToolSearchMiddleware(),
            model_request(ProviderModel("MistralAI"), tools=[void_invoice]),
        )


async def test_async_path() -> None:
    seen: list[ModelRequest] = []

    async def handler(req: ModelRequest) -> ModelResponse:
        seen.append(req)
        return ModelResponse(result=[AIMessage(content="ok")])

    request = model_request(ProviderModel("openai"), tools=[void_invoice])
    await ProviderToolSearchMiddleware().awrap_model_call(request, handler)
    assert seen[0].tools[-1] == {"type": "tool_search"}


class Configurable:
    def __init__(self, defaults: dict[str, Any], params: dict[str, Any] | None = None) -> None:
        self._default_config = defaults
        self.params = params or {}

    def _model_params(self, config: Any = None) -> dict[str, Any]:
        return self.params if config is None else config.get("configurable", {})


class Run:
    def __init__(self, config: Any) -> None:
        self.config = config


def test_provider_detection() -> None:
    assert provider_from_model_name("anthropic:claude-x") == "anthropic"
    assert provider_from_model_name("o3-mini") == "openai"
    assert provider_from_model_name("my-local-llm") is None
    assert model_provider(Configurable({"model": "claude-3"})) == "anthropic"
    runtime = Run({"configurable": {"model_provider": "openai"}})
    assert model_provider(Configurable({"model_provider": "anthropic"}), runtime) == "openai"
    assert model_provider(Configurable({}, {"model": "gpt-5"}), Run(42)) == "openai"
    ChatOpenAI = type("ChatOpenAI", (), {})
    assert model_provider(ChatOpenAI()) == "openai"
