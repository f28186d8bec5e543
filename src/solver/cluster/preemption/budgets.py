"""PodDisruptionBudget accounting for victim selection (FilterVictimsWithPDBViolation).

Victims are taken in the order given (most important first); each budget's disruptionsAllowed is
spent by the pods it selects in its namespace, except pods already listed in its disruptedPods
(the API server has counted their eviction). A pod whose eviction would take a budget below zero
violates it; the first such budget decides, later ones are not charged for that pod. A nil selector
selects nothing and an empty one every pod, labelled or not, as in the current upstream.
"""

from __future__ import annotations

from collections.abc import Sequence

from ....model.cluster.facts import DisruptionBudget, Pod, selects


def split_by_budget(
    victims: Sequence[Pod], budgets: Sequence[DisruptionBudget]
) -> tuple[list[Pod], list[Pod]]:
    """(violating, non-violating) victims, each in the input order."""
    if not budgets:
        return [], list(victims)
    allowed = [b.disruptions_allowed for b in budgets]
    violating: list[Pod] = []
    fine: list[Pod] = []
    for pod in victims:
        (violating if violates(pod, budgets, allowed) else fine).append(pod)
    return violating, fine


def violates(pod: Pod, budgets: Sequence[DisruptionBudget], allowed: list[int]) -> bool:
    """Whether evicting the pod takes a budget below zero; `allowed` (per budget) is spent."""
    for i, budget in enumerate(budgets):
        if budget.namespace != pod.namespace or not selects(budget.selector, pod.labels):
            continue
        if pod.name in budget.disrupted_pods:
            continue
        allowed[i] -= 1
        if allowed[i] < 0:
            return True
    return False
