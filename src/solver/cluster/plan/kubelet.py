"""Kubelet admission on the nodes whose kubelet the input describes (a NodeTopology, and its
KubeletConfiguration): the planned pods, bound there with their claims allocated, go through the
kubelet's CPU, memory and topology managers (the `admit` verb's own code), in order after the pods
already running. A node that rejects some planned pod gets a cut in the model (not all of these pods
together) and the plan is solved again.

Each node's NodeProblem is made of the facts read from the input before planning (KubeletFacts) and the
plan's placements: which pods each node gets and the devices allocated for their claims."""

from __future__ import annotations

from collections.abc import Mapping

from ....model.node.devices import Result, with_devices
from ....model.node.planned import KubeletFacts, KubeletPod
from ....model.node.problem import NodeProblem, PodFacts
from ....model.problem import Problem
from ....model.solution import ClaimAllocation
from ... import registry
from .decode import Placement


def kubelet_nodes(facts: KubeletFacts | None) -> set[str]:
    return set(facts.nodes) if facts is not None else set()


def rejections(
    facts: KubeletFacts, problem: Problem, placements: Mapping[int, Placement], nodes: set[str]
) -> dict[int, str]:
    """Planned pods the kubelet of their node rejects: unit -> the kubelet's reason and message."""
    targets = {p.node for p in placements.values()} & nodes
    if not targets:
        return {}
    unit_of = {u.pod: u.id for u in problem.units if u.pod}
    allocated = _allocations(problem, placements)
    out: dict[int, str] = {}
    engine = registry.node("greedy")
    for node in sorted(targets):
        solution = engine.admit(node_problem(facts, problem, placements, allocated, node))
        for admission in solution.reported:
            unit = unit_of.get(f"{admission.pod.namespace}/{admission.pod.name}")
            if (
                unit is not None
                and not admission.admitted
                and unit in placements
                and placements[unit].node == node
            ):
                out[unit] = f"{admission.reason}: {admission.message}"
    return out


def node_problem(
    facts: KubeletFacts,
    problem: Problem,
    placements: Mapping[int, Placement],
    allocated: Mapping[int, ClaimAllocation],
    node: str,
) -> NodeProblem:
    """The node's kubelet with the plan applied: the pods the input binds there, then the plan's pods
    there (by unit), each with the devices of its claims. Bad input about the node or one of these pods
    is said here, when the plan puts a pod there."""
    kubelet = facts.nodes[node]
    if kubelet.error is not None:
        raise kubelet.error
    assert kubelet.machine is not None and kubelet.policy is not None
    here = [p for p in facts.bound if p.node == node]
    for unit in problem.units:
        pod = facts.units.get(unit.id)
        placed = placements.get(unit.id)
        # A pending pod the input had bound already stays there while the plan leaves it pending.
        if pod is not None and ((placed.node if placed is not None and placed.node else pod.node) == node):
            here.append(pod)
    level = kubelet.policy.pod_level_resources
    pods = tuple(_admitted(pod, level, allocated, facts.numa) for pod in here)
    return NodeProblem(node, kubelet.machine, kubelet.policy, pods)


def _allocations(problem: Problem, placements: Mapping[int, Placement]) -> dict[int, ClaimAllocation]:
    """Claim -> the plan's allocation of it (a claim several pods share: the first of them's)."""
    out: dict[int, ClaimAllocation] = {}
    for unit in problem.units:
        placed = placements.get(unit.id)
        for allocation in placed.allocations if placed is not None else ():
            out.setdefault(allocation.claim, allocation)
    return out


def _admitted(
    pod: KubeletPod, level: bool, allocated: Mapping[int, ClaimAllocation], numa: Mapping[int, frozenset[int]]
) -> PodFacts:
    if pod.error is not None:
        raise pod.error
    results: dict[str, list[Result]] = {}
    for pod_claim, state in pod.claims:
        if state is None:
            continue
        allocation = allocated.get(state.claim) if state.claim is not None else None
        found = (
            [(r.request, numa.get(r.device, frozenset())) for r in allocation.results]
            if allocation is not None
            else state.results
        )
        results.setdefault(pod_claim, []).extend(found)
    return with_devices(pod.facts[level], pod.uses, lambda pod_claim: results.get(pod_claim, ()))
