"""What `kubefit pools` is asked (a ResourcePoolStatusRequest's spec) and the pools it reports, as plain
facts: the status controller's view of each pool's newest generation beside the allocator's view."""

from __future__ import annotations

from dataclasses import dataclass

from .problem import PoolView

LIMIT_DEFAULT = 100  # resourcev1alpha3.ResourcePoolStatusRequestLimitDefault
LIMIT_MAX = 1000


@dataclass(frozen=True)
class PoolRequest:
    driver: str | None = None
    pool: str | None = None
    limit: int | None = None
    default_attribute: str | None = None

    @property
    def effective_limit(self) -> int:
        return self.limit if self.limit is not None else LIMIT_DEFAULT

    def matches(self, driver: str, pool: str) -> bool:
        return (self.driver is None or driver == self.driver) and (self.pool is None or pool == self.pool)


@dataclass(frozen=True)
class PoolFacts:
    """One pool: its newest generation's slices as the status controller counts them, and the pool as
    the allocator sees it (`view`)."""

    driver: str
    pool: str
    generation: int
    slices: int  # the newest generation's slices
    expected: int  # the slice count the pool announces (the first slice's, as the controller reads it)
    node_name: str | None  # the node every slice names, if they agree on one
    shared_counters: bool  # whether any of the slices publishes shared counters
    devices: tuple[int, ...]  # device ids, slice by slice (slices by name)
    partition_attributes: dict[int, str]  # device -> the partitionTypeAttribute its slice declares, or ""
    capacity_texts: dict[int, dict[str, str]]  # device -> capacity name -> its value as published
    view: PoolView

    @property
    def ref(self) -> str:
        return f"{self.driver}/{self.pool}"

    @property
    def complete(self) -> bool:
        return self.slices >= self.expected

    def partition_attribute(self, d: int) -> str:
        return self.partition_attributes[d]

    def capacity_text(self, d: int, name: str) -> str:
        return self.capacity_texts[d][name]
