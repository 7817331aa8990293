"""The provider's name of a LangChain chat model (``model_name``, ``model``, ...), read as
``getattr(model, name, None)`` reads it, without asking a pydantic model for a name its class
cannot have: pydantic answers that by raising (and catching) two ``AttributeError`` s, a few
microseconds a name, and a model call reads the name once in Stepwise's innermost layer and once
more in every ``wrap_model_call`` layer.  Which names a class cannot have is worked out once
per class; an instance's own fields and extra fields are still looked at every time."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from engine.attach.per_class import per_class

__all__ = ["model_name"]

_NAMES = ("model_name", "model", "model_id", "deployment_name")
"""Where LangChain's chat models keep the provider's model name, in the order they are read."""

_ABSENT: dict[type, frozenset[str]] = {}
"""Class -> the names of ``_NAMES`` no instance of it has but in its ``__dict__`` or its
pydantic extra fields."""


def _absent(cls: type) -> frozenset[str]:
    """The names of ``_NAMES`` a plain pydantic model class answers only from an instance's
    fields (no class attribute, property or private attribute of that name, pydantic's own
    attribute lookup): for any other class, none."""
    if (
        not issubclass(cls, BaseModel)
        or getattr(cls, "__getattr__", None) is not getattr(BaseModel, "__getattr__", None)
        or cls.__getattribute__ is not object.__getattribute__
    ):
        return frozenset()
    private = getattr(cls, "__private_attributes__", None) or {}
    return frozenset(n for n in _NAMES if n not in private and not hasattr(cls, n))


def _absent_of(model: Any) -> frozenset[str]:
    return _absent(type(model))


def model_name(model: Any) -> str:
    """The first non-empty string among ``model``'s ``_NAMES``, else its class's name."""
    cls = type(model)
    absent = per_class(_ABSENT, model, _absent_of)
    fields: Any = ()
    extra: Any = ()
    if absent:
        fields = vars(model)
        extra = model.__pydantic_extra__ or ()
    for name in _NAMES:
        if name in absent and name not in fields and name not in extra:
            continue  # getattr would find nothing: pydantic would raise
        value = getattr(model, name, None)
        if isinstance(value, str) and value:
            return value
    return cls.__name__
