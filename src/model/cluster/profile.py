"""Scheduling profiles: which plugins run at which extension point, with which weights and args.

A `Profile` holds the plugin sets as KubeSchedulerConfiguration writes them, after v1
defaulting has merged them into the default set (`merge`). `expand` then does what the
framework does when it is built: MultiPoint plugins enabled at every point they
implement, unless disabled there; a plugin configured at a specific point keeps that
configuration; score weights 0 become 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..features import ALL_ON, FeatureGates
from . import args as plugin_args
from . import names
from .points import (
    BIND,
    FILTER,
    MAX_NODE_SCORE,
    PERMIT,
    PLACEMENT_FEASIBLE,
    PLACEMENT_GENERATE,
    PLACEMENT_SCORE,
    POD_GROUP_POST_FILTER,
    POINTS,
    POST_BIND,
    POST_FILTER,
    PRE_BIND,
    PRE_ENQUEUE,
    PRE_FILTER,
    PRE_SCORE,
    QUEUE_SORT,
    RESERVE,
    SCORE,
)

MULTI_POINT = "multiPoint"
DEFAULT_SCHEDULER = "default-scheduler"


@dataclass(frozen=True)
class PluginEntry:
    name: str
    weight: int = 0  # 0: unset


@dataclass(frozen=True)
class PluginSet:
    enabled: tuple[PluginEntry, ...] = ()
    disabled: tuple[str, ...] = ()


@dataclass(frozen=True)
class Profile:
    scheduler_name: str = DEFAULT_SCHEDULER
    plugins: Mapping[str, PluginSet] = field(default_factory=dict)  # by extension point, MULTI_POINT too
    args: Mapping[str, Any] = field(default_factory=dict)  # plugin name -> its args (see args.py)
    percentage_of_nodes_to_score: int | None = None

    def args_of(self, plugin: str) -> Any:
        found = self.args.get(plugin)
        if found is not None:
            return found
        kind = plugin_args.ARGS_TYPES.get(plugin)
        return kind() if kind is not None else None


@dataclass(frozen=True)
class Configuration:
    """A KubeSchedulerConfiguration: its profiles and the global percentageOfNodesToScore."""

    profiles: tuple[Profile, ...]
    percentage_of_nodes_to_score: int = 0

    def profile(self, scheduler_name: str) -> Profile | None:
        for p in self.profiles:
            if p.scheduler_name == scheduler_name:
                return p
        return None


def default_plugins(gates: FeatureGates = ALL_ON) -> dict[str, PluginSet]:
    """getDefaultPlugins: one MultiPoint set, with the feature-gated plugins where the gates put them."""
    entries = [
        PluginEntry(names.SCHEDULING_GATES),
        PluginEntry(names.PRIORITY_SORT),
        PluginEntry(names.NODE_UNSCHEDULABLE),
        PluginEntry(names.NODE_NAME),
        PluginEntry(names.TAINT_TOLERATION, 3),
        PluginEntry(names.NODE_AFFINITY, 2),
        PluginEntry(names.NODE_PORTS),
        PluginEntry(names.NODE_RESOURCES_FIT, 1),
        PluginEntry(names.VOLUME_RESTRICTIONS),
        PluginEntry(names.NODE_VOLUME_LIMITS),
        PluginEntry(names.VOLUME_BINDING),
        PluginEntry(names.VOLUME_ZONE),
        PluginEntry(names.POD_TOPOLOGY_SPREAD, 2),
        PluginEntry(names.INTER_POD_AFFINITY, 2),
    ]
    if gates.enabled("DynamicResourceAllocation"):
        # Before DefaultPreemption: better to free an idle claim than to evict a working pod.
        entries.append(PluginEntry(names.DYNAMIC_RESOURCES, 2))
    entries += [
        PluginEntry(names.DEFAULT_PREEMPTION),
        PluginEntry(names.BALANCED_ALLOCATION, 1),
        PluginEntry(names.IMAGE_LOCALITY, 1),
        PluginEntry(names.DEFAULT_BINDER),
    ]
    if gates.enabled("GenericWorkload"):
        entries.append(PluginEntry(names.GANG_SCHEDULING))
        if gates.enabled("TopologyAwareWorkloadScheduling"):
            entries += [PluginEntry(names.TOPOLOGY_PLACEMENT), PluginEntry(names.POD_GROUP_PODS_COUNT, 1)]
    return {MULTI_POINT: PluginSet(tuple(entries))}


def merge_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """mergePluginSet: defaults minus the disabled ones ("*": all), a default re-configured in the
    custom set keeps its place with the custom settings, other custom plugins follow."""
    disabled = set(custom.disabled) | set(default.disabled)
    custom_by_name: dict[str, tuple[int, PluginEntry]] = {}
    for i, entry in enumerate(custom.enabled):
        custom_by_name[entry.name] = (i, entry)
    replaced: set[int] = set()
    enabled: list[PluginEntry] = []
    if "*" not in disabled:
        for entry in default.enabled:
            if entry.name in disabled:
                continue
            override = custom_by_name.get(entry.name)
            if override is not None:
                replaced.add(override[0])
                entry = override[1]
            enabled.append(entry)
    enabled += [e for i, e in enumerate(custom.enabled) if i not in replaced]
    return PluginSet(tuple(enabled), tuple(custom.disabled) + tuple(default.disabled))


def merge(default: Mapping[str, PluginSet], custom: Mapping[str, PluginSet]) -> dict[str, PluginSet]:
    out = dict(default)
    for point in (MULTI_POINT, *POINTS):
        if point in custom:
            out[point] = merge_set(default.get(point, PluginSet()), custom[point])
    return out


def default_profile(gates: FeatureGates = ALL_ON, scheduler_name: str = DEFAULT_SCHEDULER) -> Profile:
    return Profile(scheduler_name, default_plugins(gates))


class ExpansionError(Exception):
    """The plugin sets cannot be expanded (the framework would refuse to start). `point` and `plugin`
    say where: the extension point (MULTI_POINT for a MultiPoint entry) and the plugin named."""

    def __init__(self, message: str, point: str, plugin: str) -> None:
        super().__init__(message)
        self.point = point
        self.plugin = plugin


@dataclass(frozen=True)
class Expanded:
    """Plugin names per extension point in run order, and each score plugin's weight."""

    points: Mapping[str, tuple[str, ...]]
    weights: Mapping[str, int]
    placement_weights: Mapping[str, int] = field(default_factory=dict)  # PlacementScore plugins'

    def at(self, point: str) -> tuple[str, ...]:
        return self.points.get(point, ())


# The order in which the framework builds its extension points (getExtensionPoints): the first
# problem it meets in this order is the one it reports.
FRAMEWORK_ORDER = (
    PRE_FILTER,
    FILTER,
    POST_FILTER,
    RESERVE,
    PRE_SCORE,
    SCORE,
    PRE_BIND,
    BIND,
    POST_BIND,
    PERMIT,
    PRE_ENQUEUE,
    QUEUE_SORT,
    PLACEMENT_GENERATE,
    PLACEMENT_FEASIBLE,
    PLACEMENT_SCORE,
    POD_GROUP_POST_FILTER,
)
MAX_TOTAL_SCORE = 2**63 - 1


def interface(point: str) -> str:
    """The framework interface of a point's plugins, as the framework's errors name it (FilterPlugin)."""
    return point[:1].upper() + point[1:] + "Plugin"


def _check_point(
    point: str, entries: tuple[PluginEntry, ...], points_of: Mapping[str, frozenset[str]]
) -> None:
    # updatePluginList: every plugin configured at a point exists, implements it, and appears once.
    seen: set[str] = set()
    for entry in entries:
        name = entry.name
        if name not in points_of:
            raise ExpansionError(f'{interface(point)} "{name}" does not exist', point, name)
        if point not in points_of[name]:
            raise ExpansionError(f'plugin "{name}" does not extend {interface(point)} plugin', point, name)
        if name in seen:
            raise ExpansionError(f'plugin "{name}" already registered as "{interface(point)}"', point, name)
        seen.add(name)


def _expand_point(
    point: str, own: PluginSet, multi: PluginSet, points_of: Mapping[str, frozenset[str]]
) -> tuple[str, ...]:
    enabled = [e.name for e in own.enabled]
    disabled = set(own.disabled)
    if "*" in disabled:
        return tuple(enabled)
    overrides: set[str] = set()
    from_multi: list[str] = []
    for entry in multi.enabled:
        name = entry.name
        if name not in points_of:
            raise ExpansionError(f'{interface(point)} "{name}" does not exist', MULTI_POINT, name)
        if point not in points_of[name] or name in disabled:
            continue
        if name in enabled:
            # Configured at the point itself: that configuration wins, in the point's own order.
            overrides.add(name)
            continue
        if name in from_multi:
            raise ExpansionError(
                f'plugin "{name}" already registered as "{interface(point)}"', MULTI_POINT, name
            )
        from_multi.append(name)
    first = [n for n in enabled if n in overrides]
    return (*first, *from_multi, *(n for n in enabled if n not in overrides))


def _score_weights(
    plugins: Mapping[str, PluginSet], points_of: Mapping[str, frozenset[str]], point: str = SCORE
) -> dict[str, int]:
    """getScoreWeights: the Score set's weights win over MultiPoint's; 0 is 1; the sum of every score
    plugin's weighted maximum must fit in an int64 (MultiPoint plugins disabled at Score count too).
    PlacementScore plugins' weights are found the same way from their own set."""
    weights: dict[str, int] = {}
    total = 0
    entries = (*plugins.get(point, PluginSet()).enabled, *plugins.get(MULTI_POINT, PluginSet()).enabled)
    for entry in entries:
        if point not in points_of[entry.name] or entry.name in weights:
            continue
        weight = entry.weight or 1
        weights[entry.name] = weight
        if weight * MAX_NODE_SCORE > MAX_TOTAL_SCORE - total:
            raise ExpansionError(
                f"total score of {interface(point)[:-6]} plugins could overflow", point, entry.name
            )
        total += weight * MAX_NODE_SCORE
    return weights


def expand(profile: Profile, points_of: Mapping[str, frozenset[str]] = names.POINTS_OF) -> Expanded:
    """NewFramework's plugin lists: each point's own plugins checked, then per point the plugins
    configured there that are also in MultiPoint (in the point's order), then the MultiPoint ones,
    then the point's others. `points_of` (plugin -> points it implements) is the registry."""
    plugins = profile.plugins
    multi = plugins.get(MULTI_POINT, PluginSet())
    for point in FRAMEWORK_ORDER:
        _check_point(point, plugins.get(point, PluginSet()).enabled, points_of)
    points: dict[str, tuple[str, ...]] = {}
    for point in FRAMEWORK_ORDER:
        points[point] = _expand_point(point, plugins.get(point, PluginSet()), multi, points_of)
    weights = _score_weights(plugins, points_of)
    placement = _score_weights(plugins, points_of, PLACEMENT_SCORE)
    return Expanded(
        {p: points[p] for p in POINTS},
        {n: weights[n] for n in points[SCORE]},
        {n: placement[n] for n in points[PLACEMENT_SCORE]},
    )
