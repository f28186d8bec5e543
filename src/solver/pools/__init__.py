"""`kubefit pools`: what is left in each resource pool, as a ResourcePoolStatusRequest reports it.

The pipeline: objects -> Problem (`translate.dra.build`) -> the pools the request
matches (gather.py: the status controller's slices and the allocator's view of each
pool) -> per pool the device counts, the partition types (partitions.py) with exactly
how many more of each can be allocated (allocatable.py), and the shareable capacity
(shareable.py) -> a status (status.py) -> a List of ResourcePoolStatusRequests or
tables (render.py). The request's flags are checked as the API checks its spec
(request.py).
"""

from __future__ import annotations

from typing import Any

from ...model.features import FeatureGates
from ...translate.dra.build import build
from ...translate.kube import ObjectSet
from .allocatable import Solver
from .gather import pools
from .render import document, text
from .request import PoolRequest
from .status import PoolStatus, pool_status

__all__ = ["PoolRequest", "PoolStatus", "report", "statuses"]


def statuses(objects: ObjectSet, gates: FeatureGates, request: PoolRequest) -> tuple[list[PoolStatus], int]:
    """The statuses of the first `limit` matching pools (by driver, then pool name), and how many match."""
    built = build(objects, gates)
    matched = pools(built, request)
    solver = Solver(built.problem)
    shown = matched[: request.effective_limit]
    return [pool_status(built.problem, facts, request, solver) for facts in shown], len(matched)


def report(objects: ObjectSet, gates: FeatureGates, request: PoolRequest) -> tuple[dict[str, Any], str]:
    """The List document and the table text."""
    found, matched = statuses(objects, gates, request)
    return document(found, request, matched), text(found, matched)
