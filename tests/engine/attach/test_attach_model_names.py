"""A chat model's name (shown on every model call and wrapper attempt) is read as ``getattr``
reads it, whatever the class keeps it in; only the names a pydantic class cannot have are
not asked for, and the answer is worked out once per class."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_core")
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    GenericFakeChatModel,
)
from pydantic import BaseModel, ConfigDict, PrivateAttr

from engine.attach.model_names import model_name


def by_getattr(model: Any) -> str:
    """What the name was read as before (one ``getattr`` per name)."""
    for attr in ("model_name", "model", "model_id", "deployment_name"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


class Extra(BaseModel):
    model_config = ConfigDict(extra="allow")


class Private(BaseModel):
    _model: str = PrivateAttr(default="private")
    model_id: str = ""


class Property(BaseModel):
    @property
    def model(self) -> str:
        return "from a property"


class Plain:
    def __init__(self) -> None:
        self.model = "plain"


def models() -> list[Any]:
    sneaky = GenericFakeChatModel(messages=iter([]))
    object.__setattr__(sneaky, "model_id", "set past pydantic")
    return [
        GenericFakeChatModel(messages=iter([])),
        FakeListChatModel(responses=["a"]),
        sneaky,
        Extra(model="an extra field"),
        Extra(),
        Extra(deployment_name="deployed"),
        Private(),
        Private(model_id="mid"),
        Property(),
        Plain(),
        object(),
    ]


@pytest.mark.parametrize("model", models(), ids=lambda m: type(m).__name__)
def test_the_name_is_what_getattr_reads(model: Any) -> None:
    assert model_name(model) == by_getattr(model)
    assert model_name(model) == by_getattr(model)  # the class's answer kept: the same


def test_a_field_set_later_is_seen() -> None:
    model = Extra()
    assert model_name(model) == "Extra"
    model.model_id = "later"  # type: ignore[attr-defined]
    assert model_name(model) == "later" == by_getattr(model)
