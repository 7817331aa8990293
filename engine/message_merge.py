"""Adding streamed message pieces up as langchain_core adds them (``AIMessageChunk + chunk``).

- content: two strings join; a string then a list becomes the string followed by the list's
  items; two lists merge (``merge_lists``); a list then a string extends the list's last
  string item, or is appended (an empty string adds nothing).
- lists: an item that is a dict with an ``index`` is merged into the earlier item with that
  index (its ``type`` left out), any other item is appended.
- dicts (``additional_kwargs``, content blocks): a key only on one side, or None on one side,
  takes the other's value; strings join (``id``, ``output_version`` and ``model_provider``
  stay as they are when both sides agree); dicts merge, lists merge; equal values stay; two
  different ints add up (``index``, ``created`` and ``timestamp`` take the later one).  Values
  of different types, or different values of any other type, are a ``TypeError``.
- any two values (a tool message's ``artifact``): None on one side takes the other; strings
  join, dicts and lists merge as above, equal values stay; values of different types are a
  ``TypeError``, different values of another type a ``ValueError``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["merge_content", "merge_dicts", "merge_lists", "merge_values"]

_KEPT_WHEN_EQUAL = frozenset({"id", "output_version", "model_provider"})
_LATER_WINS = frozenset({"index", "created", "timestamp"})


def merge_content(first: Any, *more: Any) -> Any:
    """``first`` with each of ``more`` added, as a message's content."""
    merged = first
    for content in more:
        if isinstance(merged, str):
            merged = merged + content if isinstance(content, str) else [merged, *content]
        elif isinstance(content, list):
            merged = merge_lists(merged, content)
        elif merged and isinstance(merged[-1], str):
            merged = [*merged[:-1], merged[-1] + content]
        elif content != "" and merged:
            merged = [*merged, content]
    return merged


def merge_lists(left: list[Any] | None, *others: list[Any] | None) -> list[Any] | None:
    """``left`` with the items of each of ``others`` merged in (see the module docstring)."""
    merged = None if left is None else list(left)
    for other in others:
        if other is None:
            continue
        if merged is None:
            merged = list(other)
            continue
        for item in other:
            if isinstance(item, dict) and "index" in item:
                at = next(
                    (
                        i
                        for i, have in enumerate(merged)
                        if isinstance(have, dict) and have.get("index") == item["index"]
                    ),
                    None,
                )
                if at is not None:
                    rest = {k: v for k, v in item.items() if k != "type"}
                    merged[at] = merge_dicts(merged[at], rest)
                    continue
            merged.append(item)
    return merged


def merge_dicts(left: dict[str, Any], *others: dict[str, Any]) -> dict[str, Any]:
    """``left`` with each of ``others`` merged in, key by key (see the module docstring)."""
    merged = dict(left)
    for other in others:
        for key, value in other.items():
            have = merged.get(key)
            if key not in merged or (value is not None and have is None):
                merged[key] = value
            elif value is None:
                continue
            elif type(have) is not type(value):
                raise TypeError(
                    f'additional_kwargs["{key}"] already exists in this message, '
                    "but with a different type."
                )
            elif isinstance(have, str):
                if not (key in _KEPT_WHEN_EQUAL and have == value):
                    merged[key] = have + value
            elif isinstance(have, dict):
                merged[key] = merge_dicts(have, value)
            elif isinstance(have, list):
                merged[key] = merge_lists(have, value)
            elif have == value:
                continue
            elif isinstance(have, int) and not isinstance(have, bool):
                merged[key] = value if key in _LATER_WINS else have + value
            else:
                raise TypeError(
                    f"Additional kwargs key {key} already exists in left dict and value has "
                    f"unsupported type {type(have)}."
                )
    return merged


def merge_values(left: Any, right: Any) -> Any:
    """``left`` and ``right`` as one value (see the module docstring)."""
    if left is None:
        return right
    if right is None:
        return left
    if type(left) is not type(right):
        raise TypeError(
            f"left and right are of different types. Left type:  {type(left)}. "
            f"Right type: {type(right)}."
        )
    if isinstance(left, str):
        return left + right
    if isinstance(left, dict):
        return merge_dicts(left, right)
    if isinstance(left, list):
        return merge_lists(left, right)
    if left != right:
        raise ValueError(
            f"Unable to merge {left=} and {right=}. Both must be of type str, dict, or list, "
            "or else be two equal objects."
        )
    return left
