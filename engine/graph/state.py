"""State schemas: from a TypedDict, dataclass or pydantic model to channels and back.

``Annotated[T, reducer]`` makes an aggregating channel (``add_messages`` gets the O(appended)
``MessagesChannel``); ``Annotated[T, EphemeralValue]`` / ``UntrackedValue`` pick those
channels; a plain annotation is a ``LastValue``.  The markers ``OmitFromInput``,
``OmitFromOutput`` and ``PrivateStateAttr`` hide a key from the graph's input and/or output.
"""

from __future__ import annotations

import dataclasses
import inspect
import operator
import typing
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ValidationError

from engine import serde
from engine.core.foreign import to_family
from engine.errors import ErrorCode, InvalidUpdateError, create_error_message
from engine.graph.channels import (
    AppendListChannel,
    BaseChannel,
    BinaryOperatorAggregate,
    LastValue,
    MessagesChannel,
)
from engine.graph.managed import ManagedValue, managed_of
from engine.message_log import plain
from engine.messages import BaseMessage, add_messages
from engine.types import Command

__all__ = [
    "ROOT",
    "OmitFromInput",
    "OmitFromOutput",
    "PrivateStateAttr",
    "StateSpec",
    "is_root_schema",
    "schema_fields",
]

ROOT = "__root__"
"""The one channel of a state that is a single value (``StateGraph(Annotated[list, add])``)."""


class _Marker:
    def __repr__(self) -> str:
        return type(self).__name__


class OmitFromInput(_Marker):
    """``Annotated[T, OmitFromInput]``: the key cannot be given as graph input."""


class OmitFromOutput(_Marker):
    """``Annotated[T, OmitFromOutput]``: the key is not part of the graph's output."""


class PrivateStateAttr(OmitFromInput, OmitFromOutput):
    """Both: internal to the graph."""


def _is_marker(meta: Any, cls: type) -> bool:
    return (isinstance(meta, type) and issubclass(meta, cls)) or isinstance(meta, cls)


def _strip_required(tp: Any) -> Any:
    origin = get_origin(tp)
    if origin is not None and origin in _REQUIRED_WRAPPERS:
        return _strip_required(get_args(tp)[0])
    return tp


_REQUIRED_WRAPPERS = tuple(
    w
    for w in (typing.NotRequired, typing.Required, getattr(typing, "ReadOnly", None))
    if w is not None
)


def schema_fields(schema: Any) -> dict[str, Any]:
    """``{key: annotation}`` of a TypedDict, dataclass or pydantic model (extras kept)."""
    if schema is None or schema is dict:
        return {}
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        hints = {}
        for name, f in schema.model_fields.items():
            ann = f.annotation
            if f.metadata:
                ann = Annotated[(ann, *f.metadata)]  # type: ignore[valid-type]
            hints[name] = ann
        return hints
    try:
        hints = get_type_hints(schema, include_extras=True)
    except NameError as exc:
        name = getattr(schema, "__qualname__", repr(schema))
        raise TypeError(
            f"Cannot resolve the annotations of state schema {name}: {exc}. With "
            "`from __future__ import annotations`, define the schema at module level so the names "
            "its annotations use (e.g. add_messages) can be found."
        ) from exc
    if dataclasses.is_dataclass(schema):
        names = {f.name for f in dataclasses.fields(schema)}
        return {k: _strip_required(v) for k, v in hints.items() if k in names}
    return {k: _strip_required(v) for k, v in hints.items()}


def is_root_schema(schema: Any) -> bool:
    """A schema that is one value rather than named keys: ``list``, ``list[str]``,
    ``Annotated[list, operator.add]``, ``int``..."""
    if schema is None or schema is dict or schema is Any:
        return False
    if get_origin(schema) is not None:
        return get_origin(schema) is not dict and not _keyed_class(get_origin(schema))
    if not isinstance(schema, type):
        return False
    return not _keyed_class(schema)


def _keyed_class(tp: Any) -> bool:
    if not isinstance(tp, type):
        return False
    if issubclass(tp, BaseModel | dict) or dataclasses.is_dataclass(tp):
        return True
    if tp.__module__ == "builtins":
        return False
    try:
        return bool(get_type_hints(tp))
    except Exception:
        return True


def _register_types(tp: Any) -> None:
    """Let the serde rebuild pydantic models / dataclasses named in a schema."""
    if isinstance(tp, type):
        if issubclass(tp, BaseModel) or dataclasses.is_dataclass(tp):
            serde.register_type(tp)
        return
    for arg in get_args(tp):
        if not isinstance(arg, str | int | float):
            _register_types(arg)


def channel_for(annotation: Any) -> tuple[BaseChannel, set[type]]:
    """The channel an annotation asks for, and the markers found on it."""
    markers: set[type] = set()
    if get_origin(annotation) is Annotated:
        base, *meta = get_args(annotation)
        channel: BaseChannel | None = None
        for m in meta:
            if _is_marker(m, _Marker):
                markers.add(m if isinstance(m, type) else type(m))
            elif isinstance(m, BaseChannel):
                typed = getattr(m, "for_annotation", None)  # a channel that takes the field's type
                channel = typed(base) if typed is not None else m
            elif isinstance(m, type) and issubclass(m, BaseChannel):
                channel = m(base) if m is not BinaryOperatorAggregate else None
            elif callable(m) and _is_reducer(m, last=m is meta[-1]):
                if m is add_messages:
                    channel = MessagesChannel(base)
                elif m is operator.add and _is_list_type(base):
                    channel = AppendListChannel(base)
                else:
                    channel = BinaryOperatorAggregate(base, m)
        if channel is None:
            inner, inner_markers = channel_for(base)
            return inner, markers | inner_markers
        return channel, markers
    return LastValue(annotation), markers


def _is_list_type(tp: Any) -> bool:
    origin = get_origin(tp) or tp
    return origin is list


def _is_reducer(fn: Callable[..., Any], *, last: bool = False) -> bool:
    """Is ``fn`` (metadata of an ``Annotated`` key) a reducer ``(a, b) -> c``?  The last
    metadata item, when it is a plain function, must be one: anything else there is an error
    (as in LangGraph) rather than a key that silently stops aggregating."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return True  # builtins such as operator.add
    params = [
        p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    if len(params) == 2:
        return True
    if last and inspect.isfunction(fn):
        raise ValueError(f"Invalid reducer signature. Expected (a, b) -> c. Got {sig}")
    return len(params) > 2


class StateSpec:
    """Everything the runtime needs to know about one schema."""

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self.is_root = is_root_schema(schema)
        self.fields = {ROOT: schema} if self.is_root else schema_fields(schema)
        self.managed: dict[str, type[ManagedValue]] = {
            k: m for k, ann in self.fields.items() if (m := managed_of(ann)) is not None
        }
        """Keys the runtime fills in for each task (``engine.graph.managed``): no channel."""
        for key in self.managed:
            del self.fields[key]
        self.channels: dict[str, BaseChannel] = {}
        self.markers: dict[str, set[type]] = {}
        for key, ann in self.fields.items():
            ch, markers = channel_for(ann)
            ch.key = key
            self.channels[key] = ch
            self.markers[key] = markers
            _register_types(ann)
        if isinstance(schema, type):
            _register_types(schema)
        self.is_pydantic = isinstance(schema, type) and issubclass(schema, BaseModel)
        self.is_dataclass = isinstance(schema, type) and dataclasses.is_dataclass(schema)
        self.foreign_messages = False
        """The pydantic schema's messages are LangChain's own (a ported program's state): a
        node's input holds them as LangChain's (found when our messages fail validation)."""

    @property
    def keys(self) -> list[str]:
        return list(self.fields)

    @property
    def result_key(self) -> str | None:
        """The one key that is a task's whole result (a single-value state's), else None."""
        return ROOT if self.is_root else None

    def present(self, values: dict[str, Any]) -> Any:
        """What users see of ``{key: value}``: the dict, or the single value of a root state."""
        if self.is_root:
            return values.get(ROOT)
        return values

    def input_keys(self) -> list[str]:
        return [
            k for k, m in self.markers.items() if not any(issubclass(x, OmitFromInput) for x in m)
        ]

    def output_keys(self) -> list[str]:
        return [
            k for k, m in self.markers.items() if not any(issubclass(x, OmitFromOutput) for x in m)
        ]

    # -- conversions -------------------------------------------------------------------------

    def to_state(self, values: dict[str, Any]) -> Any:
        """Node input in the schema's own type (dict for TypedDicts)."""
        if self.is_root:
            return plain(values.get(ROOT))
        if self.is_pydantic:  # validated, as LangGraph builds a node's input
            if self.foreign_messages:
                return self.schema(**_langchain_messages(values))
            try:
                return self.schema(**values)
            except ValidationError:
                foreign = _langchain_messages(values)
                if foreign is values:
                    raise
                state = self.schema(**foreign)
                self.foreign_messages = True
                return state
        if self.is_dataclass:
            try:
                return self.schema(**values)
            except TypeError:
                obj = object.__new__(self.schema)
                for f in dataclasses.fields(self.schema):
                    if f.name in values:
                        object.__setattr__(obj, f.name, values[f.name])
                    elif f.default is not dataclasses.MISSING:
                        object.__setattr__(obj, f.name, f.default)
                    elif f.default_factory is not dataclasses.MISSING:
                        object.__setattr__(obj, f.name, f.default_factory())
                return obj
        return values

    def validate_input(self, value: Any) -> dict[str, Any]:
        """Graph input as ``{key: value}`` (pydantic schemas are validated here)."""
        if self.is_root:
            return {ROOT: value}
        if isinstance(value, dict):
            return value  # a pydantic state validates when a node reads it
        if isinstance(value, BaseModel):
            return {
                k: getattr(value, k) for k in value.model_fields_set or type(value).model_fields
            }
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        raise InvalidUpdateError(
            create_error_message(
                message=f"Expected dict, got {value}",
                error_code=ErrorCode.INVALID_GRAPH_NODE_RETURN_VALUE,
            )
        )


def _langchain_messages(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with our messages (alone or in a list) as LangChain's own; ``values`` itself
    when it holds none."""
    out: dict[str, Any] | None = None
    for k, v in values.items():
        if isinstance(v, BaseMessage):
            new: Any = to_family("langchain", v)
        elif (
            isinstance(v, Sequence)
            and not isinstance(v, str | bytes)
            and any(isinstance(m, BaseMessage) for m in v)
        ):
            new = [to_family("langchain", m) if isinstance(m, BaseMessage) else m for m in v]
        else:
            continue
        if out is None:
            out = dict(values)
        out[k] = new
    return values if out is None else out


class UnknownStateKeyWarning(UserWarning):
    """A node (or an update) wrote keys the state does not have; they were dropped."""


def warn_unknown_keys(source: str, dropped: Sequence[str], known: Iterable[str]) -> None:
    """Warn that ``source`` wrote ``dropped`` keys the state does not have."""
    names = ", ".join(repr(k) for k in dict.fromkeys(dropped))
    keys = ", ".join(sorted(k for k in known if not k.startswith(("__", "branch:"))))
    warnings.warn(
        f"{source} wrote {names}, which the state does not have (keys: {keys}); dropped",
        UnknownStateKeyWarning,
        stacklevel=3,
    )


def updates_from_output(
    output: Any, known_keys: Sequence[str] | set[str], dropped: list[str] | None = None
) -> tuple[list[tuple[str, Any]], list[Command]]:
    """State writes and commands from a node's return value (unknown keys dropped, and named
    in ``dropped`` when a list is given)."""
    keys = known_keys if isinstance(known_keys, set) else set(known_keys)
    writes: list[tuple[str, Any]] = []
    commands: list[Command] = []

    def add(obj: Any) -> None:
        if obj is None:
            return
        if isinstance(obj, Command):
            commands.append(obj)
            if obj.update is not None:
                add_update(obj.update, in_command=True)
            return
        add_update(obj)

    def add_update(obj: Any, *, in_command: bool = False) -> None:
        if ROOT in keys:
            writes.append((ROOT, obj))
        elif isinstance(obj, dict):
            writes.extend((k, v) for k, v in obj.items() if k in keys)
            if dropped is not None:
                dropped.extend(str(k) for k in obj if k not in keys)
        elif isinstance(obj, BaseModel):
            # as LangGraph reads a returned model: every field but those left at a None default
            model_fields = type(obj).model_fields
            kept = obj.model_fields_set
            for k, info in model_fields.items():
                v = getattr(obj, k)
                if k in keys and (v is not None or info.default is not None or k in kept):
                    writes.append((k, v))
        elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            writes.extend(
                (f.name, getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.name in keys
            )
        elif (
            in_command  # a ``Command``'s update may be ``(key, value)`` pairs; a return may not
            and isinstance(obj, list | tuple)
            and all(isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) for x in obj)
        ):
            writes.extend((k, v) for k, v in obj if k in keys)
        else:
            raise InvalidUpdateError(
                create_error_message(
                    message=f"Expected dict, got {obj}",
                    error_code=ErrorCode.INVALID_GRAPH_NODE_RETURN_VALUE,
                )
            )

    if isinstance(output, list) and any(isinstance(x, Command) for x in output):
        for item in output:
            add(item)
    else:
        add(output)
    return writes, commands


_GRAPH_CLASSES = {
    "StateGraph": "engine.graph.builder",
    "CompiledStateGraph": "engine.graph.compiled",
}
"""The classes LangGraph's ``langgraph.graph.state`` offers whose home is elsewhere: a program
ported by imports finds them here, looked up on first use (they import this module)."""


def __getattr__(name: str) -> Any:
    home = _GRAPH_CLASSES.get(name)
    if home is None:
        raise AttributeError(f"module 'engine.graph.state' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(home), name)
