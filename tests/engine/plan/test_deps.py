"""build_dependency_chain, dependants and find_cycle (seed 003's three test shapes)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from engine.plan import build_dependency_chain, dependants, find_cycle


@dataclass
class S:
    depends_on: list[int] = field(default_factory=list)


def steps(*deps: list[int]) -> list[S]:
    return [S(list(d)) for d in deps]


# seed 003, "测试场景 1": 0 -> 1 -> 2 -> 3
LINEAR = steps([], [0], [1], [2])
# seed 003, "测试场景 2": 0 -> 1 -> 3 and 0 -> 2 -> 4
BRANCHES = steps([], [0], [0], [1], [2])
# seed 003, "测试场景 3": 0 -> 1 -> 5, 2 -> 3 -> 5, 4 -> 5
JOIN = steps([], [0], [], [2], [], [1, 3, 4])
# seed 003, scenario 3 of the comparison: A, B, C(A), D(B, C)
PARTIAL = steps([], [], [0], [1, 2])


def test_seed_example_linear_chain():
    assert build_dependency_chain(LINEAR, [1]) == {1, 2, 3}
    assert build_dependency_chain(LINEAR, [0]) == {0, 1, 2, 3}
    assert build_dependency_chain(LINEAR, [3]) == {3}


def test_branches_retry_only_the_failed_branch():
    assert build_dependency_chain(BRANCHES, [1]) == {1, 3}
    assert build_dependency_chain(BRANCHES, [2]) == {2, 4}
    assert build_dependency_chain(BRANCHES, [0]) == {0, 1, 2, 3, 4}


def test_join_pulls_in_the_join_step_only():
    assert build_dependency_chain(JOIN, [1]) == {1, 5}
    assert build_dependency_chain(JOIN, [3]) == {3, 5}
    assert build_dependency_chain(JOIN, [1, 3]) == {1, 3, 5}
    assert build_dependency_chain(JOIN, [4]) == {4, 5}
    assert build_dependency_chain(JOIN, [0]) == {0, 1, 5}


def test_partial_success_precise_retry():
    assert build_dependency_chain(PARTIAL, [1, 3]) == {1, 3}
    assert build_dependency_chain(PARTIAL, [1]) == {1, 3}


def test_empty_and_repeated_sources():
    assert build_dependency_chain(LINEAR, []) == set()
    assert build_dependency_chain(LINEAR, [2, 2, 3]) == {2, 3}
    assert build_dependency_chain([], []) == set()


def test_unknown_source_is_an_error():
    with pytest.raises(
        ValueError, match=r"source step\(s\) \[4, -1\] do not exist \(the plan has 4 steps\)"
    ):
        build_dependency_chain(LINEAR, [1, 4, -1])


def test_unknown_dependency_is_an_error():
    with pytest.raises(ValueError, match="step 1 depends on step 9, which does not exist"):
        build_dependency_chain(steps([], [9]), [0])


def test_forward_dependencies_are_followed():
    # step 0 depends on a later step: the chain still follows flow direction
    s = steps([2], [], [1])
    assert build_dependency_chain(s, [1]) == {0, 1, 2}


def _sweep(deps: list[list[int]], sources: list[int]) -> set[int]:
    """The seed's buildDependencyChain: repeated sweeps until nothing changes (reference)."""
    result = set(sources)
    changed = True
    while changed:
        changed = False
        for i, d in enumerate(deps):
            if i not in result and any(x in result for x in d):
                result.add(i)
                changed = True
    return result


@pytest.mark.parametrize("seed", range(40))
def test_agrees_with_the_seeds_sweep_on_random_dags(seed: int):
    rng = random.Random(seed)
    n = rng.randint(1, 40)
    deps = [rng.sample(range(i), rng.randint(0, min(i, 3))) for i in range(n)]
    sources = rng.sample(range(n), rng.randint(0, min(n, 4)))
    assert build_dependency_chain(steps(*deps), sources) == _sweep(deps, sources)


def test_deep_chain_needs_no_recursion():
    n = 20_000
    chain = steps([], *([i] for i in range(n - 1)))
    assert len(build_dependency_chain(chain, [1])) == n - 1


def test_dependants_are_ascending_and_deduplicated():
    assert dependants(steps([], [0, 0], [0], [1, 0])) == [[1, 2, 3], [3], [], []]


def test_find_cycle():
    assert find_cycle(JOIN) is None
    assert find_cycle(steps([1], [0])) == [0, 1, 0]
    # 3 -> 1 -> 2 -> 3 (flow direction), reported from the smallest index
    assert find_cycle(steps([], [3], [1], [2])) == [1, 2, 3, 1]
    assert find_cycle(steps([], [1])) == [1, 1]


def test_find_cycle_on_a_deep_dag_and_a_deep_cycle():
    n = 20_000
    assert find_cycle(steps([], *([i] for i in range(n - 1)))) is None
    looped = steps([n - 1], *([i] for i in range(n - 1)))
    cycle = find_cycle(looped)
    assert cycle is not None and cycle[0] == 0 and cycle[-1] == 0 and len(cycle) == n + 1
