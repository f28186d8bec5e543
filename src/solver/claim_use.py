"""Which claims of a pod, allocated already, a node cannot use (DynamicResources' Filter): see
claim_status for the rules."""

from __future__ import annotations

from collections.abc import Mapping

from ..model.claim_status import OPTIONAL_NODE_OPERATIONS
from ..model.node_selector import for_allocation, terms_match
from ..model.problem import Claim, Problem, Unit
from ..model.solution import ClaimAllocation


def unusable(
    problem: Problem,
    unit: Unit,
    node: str,
    allocations: Mapping[int, ClaimAllocation],
    binding_timeout: float,
) -> list[tuple[int, str]]:
    """(claim id, why) for each claim of the unit, allocated already, that the node cannot use: its
    allocation's node selector does not take the node, it skips node operations on a node that does
    not declare DRAOptionalNodeOperations, or its binding failed or timed out (the Filter's
    `unavailableClaims`; the scheduler's own words for all of them are UNAVAILABLE)."""
    fact = problem.nodes.get(node)
    labels = fact.labels if fact is not None else {}
    out = []
    for c in dict.fromkeys(unit.claims):
        claim = problem.claims[c]
        earlier = allocations.get(c)
        if not claim.allocated and earlier is None:
            continue
        selector = claim.allocated_selector
        if earlier is not None:
            selector = for_allocation([problem.devices[r.device] for r in earlier.results], earlier.node)
        if selector is not None and not terms_match(selector, node, labels):
            out.append((c, f"claim {claim.ref} is allocated for another node"))
            continue
        if earlier is None:
            why = status_problem(problem, claim, node, binding_timeout)
            if why:
                out.append((c, why))
    return out


def status_problem(problem: Problem, claim: Claim, node: str, binding_timeout: float) -> str:
    """Why the node cannot use the claim, allocated in the input, for what its status says ("" when it
    can): skipped node operations the node's kubelet does not declare it honours, a binding that failed or
    timed out."""
    status = claim.status
    if status is None:
        return ""
    fact = problem.nodes.get(node)
    declared = fact.declared_features if fact is not None else frozenset()
    if (
        status.skips_node_operations
        and problem.on("OptionalNodeOperations")
        and OPTIONAL_NODE_OPERATIONS not in declared
    ):
        return (
            f"claim {claim.ref} skips node operations, and node {node} does not declare "
            f"{OPTIONAL_NODE_OPERATIONS}"
        )
    if problem.on("DeviceBindingAndStatus"):
        return status.binding_problem(problem.now, binding_timeout)
    return ""
