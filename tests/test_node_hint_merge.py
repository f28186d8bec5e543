"""The topology manager's hint merging and its policies (topologymanager/policy*.go)."""

from __future__ import annotations

import pytest

from kubefit.solver.node.bitmask import Hint, mask_of, narrower
from kubefit.solver.node.hint_merge import Merger, NUMAInfo, merge

FOUR = NUMAInfo(
    (0, 1, 2, 3), {0: [10, 11, 12, 12], 1: [11, 10, 12, 12], 2: [12, 12, 10, 11], 3: [12, 12, 11, 10]}
)
TWO = NUMAInfo((0, 1), {0: [10, 11], 1: [11, 10]})


def H(*nodes: int, preferred: bool = True) -> Hint:
    return Hint(mask_of(nodes), preferred)


def test_narrower_counts_nodes_then_compares_the_number() -> None:
    assert narrower(mask_of([0]), mask_of([0, 1]))
    assert narrower(mask_of([1, 2]), mask_of([0, 3]))
    assert not narrower(mask_of([0, 1]), mask_of([0, 1]))


@pytest.mark.parametrize(
    ("target", "current", "candidate", "wins"),
    [
        (4, H(0, 1, 2, preferred=False), H(0, 1, 2, preferred=False), "current"),  # 3cc.1
        (4, H(0, 1, 2, preferred=False), H(1, 2, 3, preferred=False), "current"),  # 3cc.2
        (4, H(1, 2, 3, preferred=False), H(0, 1, 2, preferred=False), "candidate"),  # 3cc.3
        (4, H(1, 2, 3, preferred=False), H(0, 1, preferred=False), "current"),  # 3cb
        (2, H(0, 1, 2, preferred=False), H(0, 1, preferred=False), "candidate"),  # 1
        (2, H(0, 1, preferred=False), H(2, preferred=False), "current"),  # 2
        (1, H(0, 1, preferred=False), H(0, preferred=True), "candidate"),
    ],
)
def test_compare_as_upstream_table(target: int, current: Hint, candidate: Hint, wins: str) -> None:
    """Upstream TestMergeCompare (cases named after the comment in compare())."""
    merger = Merger(FOUR, [], False)
    merger.best_non_preferred = target
    assert merger._compare(current, candidate) is (current if wins == "current" else candidate)


def test_a_provider_without_hints_is_any_preferred() -> None:
    assert merge("restricted", TWO, [None, None], False) == (Hint(mask_of([0, 1]), True), True)


def test_an_empty_hint_list_cannot_be_satisfied() -> None:
    best, admit = merge("restricted", TWO, [{"cpu": []}], False)
    assert not admit and not best.preferred
    assert merge("best-effort", TWO, [{"cpu": []}], False)[1]


def test_preferred_only_if_all_masks_agree() -> None:
    providers = [
        {"cpu": [H(0), H(1), H(0, 1, preferred=False)]},
        {"memory": [H(1), H(0, 1, preferred=False)]},
    ]
    assert merge("restricted", TWO, providers, False) == (H(1), True)


def test_single_numa_node_drops_wide_hints_and_answers_nil_for_all_nodes() -> None:
    assert merge("single-numa-node", TWO, [{"cpu": [H(0, 1)]}], False) == (Hint(None, False), False)
    one = NUMAInfo((0,), {})
    assert merge("single-numa-node", one, [{"cpu": [H(0)]}], False) == (Hint(None, True), True)


def test_prefer_closest_numa_nodes_picks_the_nearer_pair() -> None:
    providers = [{"cpu": [H(0, 2), H(1, 2)]}, {"device": [H(0, 2), H(1, 2)]}]
    near = NUMAInfo((0, 1, 2), {0: [10, 30, 11], 1: [30, 10, 20], 2: [11, 20, 10]})
    assert merge("restricted", near, providers, False)[0] == H(0, 2)
    near2 = NUMAInfo((0, 1, 2), {0: [10, 30, 40], 1: [30, 10, 11], 2: [40, 11, 10]})
    assert merge("restricted", near2, providers, False)[0] == H(0, 2)
    assert merge("restricted", near2, providers, True)[0] == H(1, 2)


def test_policy_none_has_no_opinion() -> None:
    assert merge("none", TWO, [{"cpu": []}], False) == (Hint(None, True), True)
