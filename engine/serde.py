"""JSON serialization of state values, checkpoints and event payloads. Never pickle.

Plain JSON values pass through.  Richer values are written as tagged objects
``{"__sw__": tag, ...}``: messages, pydantic models, dataclasses, tuples, sets, bytes,
datetimes, UUIDs, enums, ``Send``, ``Interrupt``, ``Command``.

Decoding a pydantic model or dataclass never imports anything: the class must be *known*,
i.e. registered with ``register_type`` (graphs register the types named in their state
schema; every class encoded in this process is registered too).  An unknown class decodes
to its plain data (a dict), so a session file from elsewhere can always be read safely.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import enum
import json
import sys
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from engine.messages import BaseMessage, message_from_dict, messages_from_dicts

__all__ = [
    "TAG",
    "SerializationError",
    "decode",
    "dumps",
    "encode",
    "jsonable_memo",
    "loads",
    "register_type",
    "to_jsonable",
]

TAG = "__sw__"

_REGISTRY: dict[str, type] = {}
_EXTRA_ENCODERS: list[tuple[type, str, Callable[[Any], Any]]] = []
_EXTRA_DECODERS: dict[str, Callable[[Any], Any]] = {}


class SerializationError(TypeError):
    """A value cannot be written as JSON."""


def _qualname(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


_MOVED = {
    "engine.types.": "engine.types.",
    "engine.errors.": "engine.errors.",
    "engine.core.execution.": "engine.core.execution.",
    "engine.message_log.": "engine.message_log.",
}
"""Modules whose types moved: a session written before the move names the old module."""


def _registered(name: str) -> type | None:
    cls = _REGISTRY.get(name)
    if cls is None:
        for old, new in _MOVED.items():
            if name.startswith(old):
                return _REGISTRY.get(new + name[len(old) :])
    return cls


def register_type(cls: type) -> type:
    """Allow ``cls`` (a pydantic model, dataclass or enum) to be rebuilt when decoding."""
    _REGISTRY[_qualname(cls)] = cls
    return cls


def register_codec(
    cls: type, tag: str, enc: Callable[[Any], Any], dec: Callable[[Any], Any]
) -> None:
    """Teach the serde a new tagged type (used by engine modules for their own types)."""
    _EXTRA_ENCODERS.append((cls, tag, enc))
    _EXTRA_DECODERS[tag] = dec


def encode(obj: Any, _path: str = "$") -> Any:
    """A JSON-compatible structure for ``obj`` (tagged where plain JSON loses the type)."""
    if obj is None or isinstance(obj, bool | int | str):
        return obj
    if isinstance(obj, float):
        if obj != obj or obj in (float("inf"), float("-inf")):
            return {TAG: "float", "v": repr(obj)}
        return obj
    if isinstance(obj, BaseMessage):
        # defaults (empty kwargs, null name, ...) are left out: messages are most of the bytes
        data = obj.model_dump(mode="json", exclude_defaults=True)
        data["type"] = obj.type
        return {TAG: "msg", "v": data}
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        for k, v in obj.items():
            if not isinstance(k, str):
                return {
                    TAG: "dict",
                    "items": [
                        [encode(k, _path), encode(v, f"{_path}[{k!r}]")] for k, v in obj.items()
                    ],
                }
            out[k] = encode(v, f"{_path}.{k}")
        if TAG in out:
            return {TAG: "escaped", "v": out}
        return out
    if isinstance(obj, list):
        return [encode(v, f"{_path}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, tuple):
        if hasattr(obj, "_fields"):  # NamedTuple: keep as a list of values
            return [encode(v, _path) for v in obj]
        return {TAG: "tuple", "v": [encode(v, _path) for v in obj]}
    for cls, tag, enc in _EXTRA_ENCODERS:
        if isinstance(obj, cls):
            return {TAG: tag, "v": enc(obj)}
    if isinstance(obj, BaseModel):
        cls = type(obj)
        register_type(cls)
        return {TAG: "model", "cls": _qualname(cls), "v": obj.model_dump(mode="json")}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        cls = type(obj)
        register_type(cls)
        fields = {
            f.name: encode(getattr(obj, f.name), f"{_path}.{f.name}")
            for f in dataclasses.fields(cls)
        }
        return {TAG: "dc", "cls": _qualname(cls), "v": fields}
    if isinstance(obj, enum.Enum):
        register_type(type(obj))
        return {TAG: "enum", "cls": _qualname(type(obj)), "v": encode(obj.value)}
    if isinstance(obj, set | frozenset):
        return {TAG: "set", "v": [encode(v, _path) for v in obj]}
    if isinstance(obj, bytes | bytearray):
        return {TAG: "bytes", "v": base64.b64encode(bytes(obj)).decode("ascii")}
    if isinstance(obj, dt.datetime):
        return {TAG: "datetime", "v": obj.isoformat()}
    if isinstance(obj, dt.date):
        return {TAG: "date", "v": obj.isoformat()}
    if isinstance(obj, uuid.UUID):
        return {TAG: "uuid", "v": str(obj)}
    if isinstance(obj, Mapping):
        return encode(dict(obj), _path)
    seq: Any = obj
    if hasattr(seq, "__iter__") and hasattr(seq, "__len__") and hasattr(seq, "__getitem__"):
        return [encode(v, _path) for v in seq]  # sequence views such as MessageList
    raise SerializationError(
        f"Cannot serialize a value of type {type(obj).__name__} at {_path} to JSON. "
        "State values must be JSON data, messages, pydantic models or dataclasses."
    )


def decode(data: Any) -> Any:
    """Inverse of ``encode``."""
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict):
        return data
    tag = data.get(TAG)
    if tag is None:
        return {k: decode(v) for k, v in data.items()}
    v: Any = data.get("v")
    if tag == "msg":
        return message_from_dict(v)
    if tag == "tuple":
        return tuple(decode(x) for x in v)
    if tag == "escaped":
        return {k: decode(x) for k, x in v.items()}
    if tag == "dict":
        return {decode(k): decode(x) for k, x in data["items"]}
    if tag == "model":
        cls = _registered(data["cls"])
        if cls is not None and issubclass(cls, BaseModel):
            return cls.model_validate(v)
        return v
    if tag == "dc":
        cls = _registered(data["cls"])
        fields = {k: decode(x) for k, x in v.items()}
        if cls is not None and dataclasses.is_dataclass(cls):
            init = {f.name for f in dataclasses.fields(cls) if f.init}
            obj = cls(**{k: x for k, x in fields.items() if k in init})
            return obj
        return fields
    if tag == "enum":
        cls = _registered(data["cls"])
        value = decode(v)
        return cls(value) if cls is not None else value
    if tag == "set":
        return {decode(x) for x in v}
    if tag == "bytes":
        return base64.b64decode(v)
    if tag == "datetime":
        return dt.datetime.fromisoformat(v)
    if tag == "date":
        return dt.date.fromisoformat(v)
    if tag == "uuid":
        return uuid.UUID(v)
    if tag == "float":
        return float(v)
    dec = _EXTRA_DECODERS.get(tag)
    if dec is not None:
        return dec(v)
    return {k: decode(x) for k, x in data.items()}


def decode_lists(lists: list[list[Any]]) -> list[list[Any]]:
    """``[decode(x) for x in lists]``, with the messages of all of them validated in one call
    (a long message log is decoded at once, not message by message)."""
    flat = [item for items in lists for item in items]
    if not all(type(item) is dict and item.get(TAG) == "msg" for item in flat):
        return [decode(items) for items in lists]
    messages = messages_from_dicts([item["v"] for item in flat])
    out: list[list[Any]] = []
    start = 0
    for items in lists:
        out.append(messages[start : start + len(items)])
        start += len(items)
    return out


def dumps(obj: Any) -> str:
    """``encode`` then compact JSON text."""
    return json.dumps(encode(obj), separators=(",", ":"), ensure_ascii=False)


def loads(text: str | bytes) -> Any:
    """Inverse of ``dumps``."""
    return decode(json.loads(text))


_SCALARS = frozenset({type(None), bool, int, float})
_PLAIN = frozenset({type(None), bool, int, float, str})


def _json_size(model: BaseModel) -> int:
    """The length in bytes of ``model``'s JSON (a bound that never says too little: an
    unserializable model counts as infinitely long)."""
    try:
        return len(model.__pydantic_serializer__.to_json(model, warnings=False))
    except Exception:
        return sys.maxsize


def to_jsonable(obj: Any, *, max_str: int | None = None, max_items: int | None = None) -> Any:
    """A plain-JSON rendering for display (events, logs): never raises, never tagged.

    Messages become their dict form; unknown objects become their ``repr``.  With
    ``max_str``, long strings are shortened; with ``max_items``, long sequences keep their last
    ``max_items`` items after a marker (a summary of a long history costs O(max_items)).
    """
    try:
        # fast paths for the exact built-in types events are mostly made of (subclasses, enums,
        # models... take the general path below); the result is the same
        t = type(obj)
        if t in _SCALARS:
            return obj
        if t is str:
            if max_str is not None and len(obj) > max_str:
                return obj[:max_str] + f"… (+{len(obj) - max_str} chars)"
            return obj
        if t is dict:
            if max_str is None:
                return {
                    k if type(k) is str else str(k): v
                    if type(v) in _PLAIN
                    else to_jsonable(v, max_items=max_items)
                    for k, v in obj.items()
                }
            # a short string is kept as it is, without a call (the most common value)
            return {
                k if type(k) is str else str(k): v
                if type(v) in _SCALARS or (type(v) is str and len(v) <= max_str)
                else to_jsonable(v, max_str=max_str, max_items=max_items)
                for k, v in obj.items()
            }
        if (t is list or t is tuple) and (max_items is None or len(obj) <= max_items):
            if max_str is None:
                return [
                    v if type(v) in _PLAIN else to_jsonable(v, max_items=max_items) for v in obj
                ]
            return [
                v
                if type(v) in _SCALARS or (type(v) is str and len(v) <= max_str)
                else to_jsonable(v, max_str=max_str, max_items=max_items)
                for v in obj
            ]
        if max_str is None and isinstance(obj, BaseModel):
            return obj.model_dump(mode="json")  # already plain JSON: nothing to shorten
        if obj is None or isinstance(obj, bool | int | float):
            return obj
        if isinstance(obj, str):
            if max_str is not None and len(obj) > max_str:
                return obj[:max_str] + f"… (+{len(obj) - max_str} chars)"
            return obj
        if isinstance(obj, BaseModel):
            dumped = obj.model_dump(mode="json")
            if max_str is not None and _json_size(obj) <= max_str:
                # its JSON is no longer than max_str, so neither is any string in it (a char
                # takes a byte or more): nothing to shorten, and the dump is plain JSON already
                return dumped
            return to_jsonable(dumped, max_str=max_str)
        if isinstance(obj, Mapping):
            return {
                str(k): to_jsonable(v, max_str=max_str, max_items=max_items) for k, v in obj.items()
            }
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            return {
                f.name: to_jsonable(getattr(obj, f.name), max_str=max_str, max_items=max_items)
                for f in dataclasses.fields(type(obj))
            }
        if isinstance(obj, enum.Enum):
            return to_jsonable(obj.value, max_str=max_str)
        if isinstance(obj, set | frozenset):
            obj = list(obj)
        seq: Any = obj
        is_seq = (
            hasattr(seq, "__len__")
            and hasattr(seq, "__getitem__")
            and not isinstance(seq, bytes | bytearray)
        )
        if is_seq and max_items is not None and len(seq) > max_items:
            tail = [
                to_jsonable(v, max_str=max_str, max_items=max_items)
                for v in seq[len(seq) - max_items :]
            ]
            return [f"… {len(seq) - max_items} earlier items", *tail]
        if isinstance(obj, list | tuple):
            return [to_jsonable(v, max_str=max_str, max_items=max_items) for v in obj]
        to_json = getattr(obj, "to_jsonable", None)
        if callable(to_json):
            return to_json()
        if is_seq:
            return [to_jsonable(v, max_str=max_str, max_items=max_items) for v in seq]
        return repr(obj)
    except Exception as exc:  # display helper: never fail
        return f"<unrenderable {type(obj).__name__}: {exc}>"


def jsonable_memo() -> Callable[[Any, int], Any]:
    """``render(obj, max_str)``: ``to_jsonable(obj, max_str=max_str)``, with each pydantic
    model dumped and measured once however many limits it is rendered at (one event's fields:
    a model request shows its last messages shortened and its new ones in full).  Only for
    one moment: a model changed in place afterwards is not seen by a later call."""
    seen: dict[int, tuple[BaseModel, Any, int]] = {}

    def render(obj: Any, max_str: int) -> Any:
        if not isinstance(obj, BaseModel):
            return to_jsonable(obj, max_str=max_str)
        hit = seen.get(id(obj))
        if hit is None or hit[0] is not obj:
            try:
                dumped = obj.model_dump(mode="json")
            except Exception:
                return to_jsonable(obj, max_str=max_str)  # its own rendering of the failure
            hit = seen[id(obj)] = (obj, dumped, _json_size(obj))
        _obj, dumped, size = hit
        if size <= max_str:  # as ``to_jsonable`` decides: nothing to shorten
            return dumped
        return to_jsonable(dumped, max_str=max_str)

    return render
