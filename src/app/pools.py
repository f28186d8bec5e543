"""`kubefit pools`: what is left in each resource pool, as a ResourcePoolStatusRequest reports it.

The pipeline: objects -> Problem (`translate.dra.build`) -> the pools the request
matches (`translate.dra.pool_facts`: the status controller's slices and the allocator's view of
each pool) -> per pool the device counts, the partition types (`solver.pools.partitions`) with
exactly how many more of each can be allocated (`solver.pools.allocatable`), and the shareable
capacity (`solver.pools.shareable`) -> a status (`solver.pools.status`) -> a List of
ResourcePoolStatusRequests or tables (`pools_render`). The request's flags are checked as the API
checks its spec (`translate.validation.pool_request`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model.features import FeatureGates
from ..model.pools import PoolRequest
from ..runtime import process
from ..solver.pools.allocatable import Solver
from ..solver.pools.status import PoolStatus, pool_status
from ..translate.dra.build import build
from ..translate.dra.pool_facts import pools
from ..translate.kube import ObjectSet
from ..translate.validation.pool_request import pool_request
from .loading import load_valid
from .pools_render import document, text
from .requests import EXIT_OK, Answer, Input

__all__ = ["PoolRequest", "PoolStatus", "PoolsRequest", "pool_request", "pools_verb", "report", "statuses"]


@dataclass(frozen=True)
class PoolsRequest:
    input: Input
    fmt: str
    driver: str | None = None  # pools of this driver only
    pool: str | None = None  # this pool only
    limit: int | None = None  # at most this many pools (default 100, at most 1000)
    # Group partitions by this attribute (domain/name) where their slice declares no partitionTypeAttribute.
    default_partition_type_attribute: str | None = None


def pools_verb(request: PoolsRequest) -> Answer:
    """The verb: the request's flags checked as the API checks a ResourcePoolStatusRequest's spec (before
    the input is read), then the statuses."""
    wanted = pool_request(
        request.driver, request.pool, request.limit, request.default_partition_type_attribute
    )
    # The controller reads stored objects: what only API validation refuses is a warning (--strict: error).
    objects = load_valid(request.input, api_problems_are_errors=False)
    doc, out = report(objects, request.input.gates, wanted)
    process.settle()
    return Answer(doc, out, EXIT_OK, request.fmt)


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
