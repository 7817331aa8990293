"""``as_chat_model``: whatever a user passes as a model, as a chat model the engine can call.

A ``"provider:model"`` string goes through ``init_chat_model``; a langchain_core chat model
(ChatOpenAI, ChatAnthropic, ...) is wrapped in ``engine.interop.langchain.LangChainChatModel``
(imported only then); anything else is taken as it is (our models, the user's own).
"""

from __future__ import annotations

from typing import Any

from engine.core.foreign import adapt

__all__ = ["as_chat_model"]


def as_chat_model(model: Any) -> Any:
    if isinstance(model, str):
        from engine.models.init import init_chat_model

        return init_chat_model(model)
    adapted = adapt("chat_model", model)  # a langchain_core chat model (ChatOpenAI, ...)
    return model if adapted is None else adapted
