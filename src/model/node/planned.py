"""What the planner's kubelet check reads of the input, gathered once before the plan is solved: the
nodes whose kubelet the input describes (a NodeTopology), the pods as those kubelets see them, and where
their claims stand. The planner adds its placements to make each node's NodeProblem (the pods the input
binds there, then the pods the plan puts there, with the devices it allocated them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import InputError
from .devices import ClaimUse, Result
from .problem import KubeletPolicy, Machine, PodFacts


@dataclass(frozen=True)
class KubeletNode:
    machine: Machine | None = None
    policy: KubeletPolicy | None = None
    # The node's kubelet settings are bad input: said when the plan puts a pod there.
    error: InputError | None = None


@dataclass(frozen=True)
class ClaimState:
    """A ResourceClaim a pod's claim names, as the plan leaves it: allocated by the plan (when `claim`,
    the Problem's claim, is one the plan allocates), else as the input allocated it (`results`)."""

    claim: int | None = None
    results: tuple[Result, ...] = ()


@dataclass(frozen=True)
class KubeletPod:
    # The pod as its kubelet sees it, its containers without devices, by the PodLevelResources gate of
    # the kubelets that may admit it.
    facts: Mapping[bool, PodFacts]
    uses: tuple[tuple[ClaimUse, ...], ...] = ()  # each container's claims, in container order
    claims: tuple[tuple[str, ClaimState | None], ...] = ()  # (pod claim, the claim it names) in spec order
    node: str = ""  # spec.nodeName as written
    error: InputError | None = None  # the pod's resources are bad input: said when it is on a node checked


@dataclass(frozen=True)
class KubeletFacts:
    nodes: Mapping[str, KubeletNode]
    bound: tuple[KubeletPod, ...]  # the pods the input binds to these nodes and the plan does not place
    units: Mapping[int, KubeletPod]  # the plan's pods by unit
    numa: Mapping[int, frozenset[int]]  # a Problem device -> its NUMA nodes (left out: none)
