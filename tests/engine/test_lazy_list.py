"""``LazyList``: a list whose items are decoded on first read (issue 26), behaving as a plain
list for every reader: len, indexing, slicing, iteration, equality, arithmetic, changes,
copies, and the ``add_messages`` reducer."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from engine.lazy_list import LazyList
from engine.messages import AIMessage, HumanMessage, add_messages
from engine.serde import decode_lists, encode


def _texts(values: list[Any]) -> list[str]:
    """Stored texts as a log blob holds them (each but the last ends with a comma)."""
    out = [json.dumps(encode(v), separators=(",", ":")) for v in values]
    return [t + "," for t in out[:-1]] + out[-1:]


class Counting:
    def __init__(self) -> None:
        self.decoded = 0
        self.calls = 0

    def __call__(self, texts: list[str]) -> list[Any]:
        self.calls += 1
        self.decoded += len(texts)
        return decode_lists([json.loads("[" + ",".join(t.rstrip(",") for t in texts) + "]")])[0]


def _lazy(values: list[Any]) -> tuple[LazyList, Counting]:
    dec = Counting()
    return LazyList.of_texts([(True, _texts(values))], dec), dec


MSGS = [
    HumanMessage(f"q{i}", id=f"h{i}") if i % 2 == 0 else AIMessage(f"a{i}", id=f"a{i}")
    for i in range(600)
]


def test_len_and_one_item_decode_only_what_is_read() -> None:
    lazy, dec = _lazy(MSGS)
    assert isinstance(lazy, list) and len(lazy) == 600 and lazy and dec.decoded == 0
    assert lazy[-1] == MSGS[-1] and lazy[3] == MSGS[3]
    assert dec.decoded == 2 and lazy.pending == 598
    assert lazy[3] is lazy[3]  # decoded once, kept
    assert dec.decoded == 2
    with pytest.raises(IndexError):
        lazy[600]


def test_a_slice_is_lazy_and_shares_decoded_items() -> None:
    lazy, dec = _lazy(MSGS)
    tail = lazy[-5:]
    assert isinstance(tail, list) and len(tail) == 5 and dec.decoded == 0
    assert tail == MSGS[-5:] and dec.decoded == 5
    assert tail[0] is lazy[595]
    assert lazy[::100] == MSGS[::100]
    assert lazy[10:2] == [] and lazy[:] == MSGS


def test_iteration_decodes_in_few_calls_and_the_list_settles() -> None:
    lazy, dec = _lazy(MSGS)
    assert [m.id for m in lazy] == [m.id for m in MSGS]
    assert dec.decoded == 600 and dec.calls <= 3 and lazy.pending == 0
    assert list(reversed(lazy)) == MSGS[::-1]
    first = next(iter(_lazy(MSGS)[0]))
    assert first == MSGS[0]


def test_equality_and_comparisons_both_ways() -> None:
    a, _ = _lazy(MSGS)
    b, _ = _lazy(MSGS)
    # both operand orders on purpose: a plain list on the left asks the lazy one
    assert a == MSGS and MSGS == a and a == b  # noqa: SIM300
    assert not (a != MSGS) and not (MSGS != b)  # noqa: SIM202, SIM300
    c, _ = _lazy(MSGS[:-1])
    assert a != c and c != MSGS
    assert _lazy([1, 2])[0] < [1, 3] and [1, 3] > _lazy([1, 2])[0]  # noqa: SIM300
    assert {"messages": _lazy(MSGS)[0]} == {"messages": MSGS}
    assert MSGS[5] in a and HumanMessage("nope") not in a
    assert a.index(MSGS[7]) == 7 and a.count(MSGS[7]) == 1


def test_arithmetic_gives_plain_lists_of_decoded_items() -> None:
    lazy, _ = _lazy([1, 2, 3])
    assert lazy + [4] == [1, 2, 3, 4] and type(lazy + [4]) is list  # noqa: RUF005
    assert [0] + _lazy([1, 2])[0] == [0, 1, 2]
    assert _lazy([1])[0] * 2 == [1, 1] and 2 * _lazy([1])[0] == [1, 1]
    assert [*_lazy([1, 2])[0]] == [1, 2] and tuple(_lazy([1, 2])[0]) == (1, 2)
    assert sorted(_lazy([3, 1, 2])[0]) == [1, 2, 3] and set(_lazy([1, 1])[0]) == {1}
    assert json.dumps(list(_lazy([1, "x"])[0])) == '[1, "x"]'


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda x: x.append(9), [1, 2, 3, 9]),
        (lambda x: x.extend([8, 9]), [1, 2, 3, 8, 9]),
        (lambda x: x.__iadd__([9]), [1, 2, 3, 9]),
        (lambda x: x.insert(0, 0), [0, 1, 2, 3]),
        (lambda x: x.__setitem__(1, 7), [1, 7, 3]),
        (lambda x: x.__setitem__(slice(0, 2), [5]), [5, 3]),
        (lambda x: x.__delitem__(0), [2, 3]),
        (lambda x: x.pop(), [1, 2]),
        (lambda x: x.remove(2), [1, 3]),
        (lambda x: x.reverse(), [3, 2, 1]),
        (lambda x: x.sort(reverse=True), [3, 2, 1]),
        (lambda x: x.clear(), []),
        (lambda x: x.__imul__(2), [1, 2, 3, 1, 2, 3]),
    ],
)
def test_changes_behave_as_on_a_plain_list(change: Any, expected: list[int]) -> None:
    lazy, _ = _lazy([1, 2, 3])
    change(lazy)
    assert (
        lazy == expected
        and list(lazy) == expected
        and [lazy[i] for i in range(len(lazy))] == expected
    )


def test_items_appended_after_pending_ones_are_not_decoded_again() -> None:
    lazy, dec = _lazy(MSGS[:3])
    extra = AIMessage("extra", id="x")
    lazy.append(extra)
    assert lazy[3] is extra and dec.decoded == 0
    assert lazy == [*MSGS[:3], extra] and lazy.pending == 0


def test_copies() -> None:
    lazy, _ = _lazy(MSGS[:10])
    shallow = copy.copy(lazy)
    assert shallow == MSGS[:10] and shallow[0] is lazy[0] and shallow is not lazy
    deep = copy.deepcopy(lazy)
    assert deep == MSGS[:10] and deep[0] is not lazy[0] and type(deep) is list
    same = lazy.copy()
    same.append(1)
    assert len(lazy) == 10 and len(same) == 11


def test_the_add_messages_reducer_reads_a_lazy_history_as_a_list() -> None:
    lazy, _ = _lazy(MSGS[:4])
    merged = add_messages(lazy, [AIMessage("new", id="n1"), HumanMessage("edit", id="h0")])
    assert [m.id for m in merged] == ["h0", "a1", "h2", "a3", "n1"]
    assert merged[0].content == "edit"
    assert [m.id for m in add_messages(MSGS[:2], _lazy(MSGS[2:4])[0])] == ["h0", "a1", "h2", "a3"]
    assert lazy == MSGS[:4]  # the reducer does not change its input


def test_repr_and_materialize() -> None:
    lazy, dec = _lazy([1, {"a": 2}])
    assert repr(lazy) == "[1, {'a': 2}]" and dec.decoded == 2
    lazy2, _ = _lazy([1, 2])
    assert lazy2.materialize() is lazy2 and lazy2.pending == 0


def test_a_slice_keeps_its_items_when_the_list_it_was_cut_from_changes() -> None:
    lazy, _ = _lazy([3, 1, 2, 5, 4])
    tail = lazy[2:]
    lazy.sort()
    assert tail == [2, 5, 4] and lazy == [1, 2, 3, 4, 5]
    lazy2, _ = _lazy([1, 2, 3])
    head = lazy2[:2]
    lazy2.clear()
    assert head == [1, 2] and lazy2 == []
