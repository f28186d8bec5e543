"""Warnings about a pool whose slices disagree on how many slices it has.

The API validates each ResourceSlice alone, so the slices of one pool generation may declare different
`pool.resourceSliceCount` values. The allocator (GatherPools) takes the count of the first slice of the
generation it lists and compares the number of slices with it (kubernetes/kubernetes#141117, still open;
#141118 only documented it): whether the pool is complete then depends on the order the slices are
listed in. kubefit lists them by name, so it takes the count of the slice whose name sorts first.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...model.errors import Problem
from ..kube import KubeObject, slice_spec

_PATH = ("spec", "pool", "resourceSliceCount")


def pool_slice_warnings(objects: Iterable[KubeObject]) -> list[Problem]:
    generations: dict[tuple[str, str, int], list[tuple[str, int, KubeObject]]] = {}
    for obj in objects:
        if obj.kind != "ResourceSlice":
            continue
        spec = slice_spec(obj)
        pool = getattr(spec, "pool", None)
        if pool is None or pool.name is None or pool.generation is None or pool.resource_slice_count is None:
            continue  # API validation reports the missing field
        key = (spec.driver or "", pool.name, int(pool.generation))
        generations.setdefault(key, []).append((obj.name, int(pool.resource_slice_count), obj))
    problems = []
    for (driver, pool_name, generation), slices in generations.items():
        counts = sorted({count for _, count, _ in slices})
        if len(counts) < 2:
            continue
        slices.sort(key=lambda s: s[0])
        first_name, first_count, first = slices[0]
        listed = ", ".join(f"{name}: {count}" for name, count, _ in slices)
        complete = "complete" if len(slices) == first_count else "incomplete"
        message = (
            f"resource pool {driver}/{pool_name} generation {generation}: its slices disagree on "
            f"resourceSliceCount ({listed}); kube-scheduler takes the count of whichever slice it lists "
            f"first, so the pool can be complete or incomplete depending on the order (kubernetes#141117). "
            f"kubefit takes {first_name}'s ({first_count}): with {len(slices)} slices published it counts "
            f"the pool {complete}"
        )
        problems.append(first.problem(_PATH, message, warning=True))
    return problems
