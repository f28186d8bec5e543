"""v1 defaulting of a KubeSchedulerConfiguration (pkg/scheduler/apis/config/v1: defaults.go and
default_plugins.go).

kube-scheduler validates its configuration after defaulting it, so validation and conversion
both start from this: one profile when none is written, `default-scheduler` for a lone unnamed
profile, each profile's plugin sets merged into the default set, every pluginConfig's args
defaulted, and default args added for each enabled plugin that takes args.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...model.cluster import profile as solver_profile
from ...model.cluster.points import POINTS
from ...model.cluster.profile import MULTI_POINT, PluginEntry, PluginSet
from ...model.features import FeatureGates
from . import config_model as m
from .go_duration import SECOND, format_duration, parse

DEFAULT_PARALLELISM = 16
DEFAULT_POD_INITIAL_BACKOFF_SECONDS = 1
DEFAULT_POD_MAX_BACKOFF_SECONDS = 10
DEFAULT_BIND_TIMEOUT_SECONDS = 600
DEFAULT_FILTER_TIMEOUT = 10 * SECOND
DEFAULT_BINDING_TIMEOUT = 600 * SECOND


@dataclass(frozen=True)
class PluginArgs:
    """One pluginConfig entry after defaulting."""

    name: str
    # A defaulted ArgsModel, or the args as written for a plugin without a typed args.
    args: Any
    index: int | None  # its place in the written pluginConfig; None when defaulting added it


@dataclass(frozen=True)
class DefaultedProfile:
    index: int  # in `profiles` as written (the profile defaulting adds is 0)
    written: m.KubeSchedulerProfile | None
    scheduler_name: str  # "" when unset and there are several profiles (validation says so)
    plugins: Mapping[str, PluginSet]  # merged; keyed by MULTI_POINT and framework.POINTS
    plugin_config: tuple[PluginArgs, ...]
    percentage_of_nodes_to_score: int | None

    def args(self, plugin: str) -> Any:
        """The args of `plugin` kube-scheduler would hand it (the first entry, as the framework keeps)."""
        return next((c.args for c in self.plugin_config if c.name == plugin), None)


@dataclass(frozen=True)
class LeaderElection:
    leader_elect: bool
    lease_duration: int  # nanoseconds
    renew_deadline: int
    retry_period: int
    resource_lock: str
    resource_name: str
    resource_namespace: str


@dataclass(frozen=True)
class Defaulted:
    parallelism: int
    percentage_of_nodes_to_score: int
    pod_initial_backoff_seconds: int
    pod_max_backoff_seconds: int
    leader_election: LeaderElection
    burst: int
    profiles: tuple[DefaultedProfile, ...]


def _duration(text: str | None, default: int) -> int:
    # A zero duration is "unset" to component-base's defaulting.
    value = parse(text) if text is not None else 0
    return value or default


def _leader_election(written: m.LeaderElectionConfiguration | None) -> LeaderElection:
    le = written or m.LeaderElectionConfiguration()
    return LeaderElection(
        leader_elect=True if le.leader_elect is None else le.leader_elect,
        lease_duration=_duration(le.lease_duration, 15 * SECOND),
        renew_deadline=_duration(le.renew_deadline, 10 * SECOND),
        retry_period=_duration(le.retry_period, 2 * SECOND),
        resource_lock=le.resource_lock or "leases",
        resource_name=le.resource_name or "kube-scheduler",
        resource_namespace=le.resource_namespace or "kube-system",
    )


def written_sets(plugins: m.Plugins | None) -> dict[str, PluginSet]:
    """The profile's own sets at MultiPoint and the framework's points, as profile.merge takes them."""
    if plugins is None:
        return {}
    out: dict[str, PluginSet] = {}
    for point, written in plugins.by_point().items():
        if point == MULTI_POINT or point in POINTS:
            enabled = tuple(PluginEntry(p.name, p.weight or 0) for p in written.enabled)
            out[point] = PluginSet(enabled, tuple(p.name for p in written.disabled))
    return out


def enabled_names(plugins: Mapping[str, PluginSet]) -> list[str]:
    """Every plugin enabled at some point, sorted (pluginsNames)."""
    return sorted({e.name for s in plugins.values() for e in s.enabled})


# --- plugin args ----------------------------------------------------------------------------------

_DEFAULT_RESOURCES = (m.ResourceSpec(name="cpu", weight=1), m.ResourceSpec(name="memory", weight=1))


def _weighted(resources: list[m.ResourceSpec]) -> list[m.ResourceSpec]:
    # A weight left out or written as 0 is 1.
    return [r if r.weight else r.model_copy(update={"weight": 1}) for r in resources]


def _fit(args: m.NodeResourcesFitArgs) -> m.NodeResourcesFitArgs:
    strategy = args.scoring_strategy or m.ScoringStrategy(type="LeastAllocated")
    resources = _weighted(strategy.resources) or list(_DEFAULT_RESOURCES)
    return args.model_copy(update={"scoring_strategy": strategy.model_copy(update={"resources": resources})})


def _balanced(args: m.NodeResourcesBalancedAllocationArgs) -> m.NodeResourcesBalancedAllocationArgs:
    return args.model_copy(update={"resources": _weighted(args.resources) or list(_DEFAULT_RESOURCES)})


def _spread(args: m.PodTopologySpreadArgs) -> m.PodTopologySpreadArgs:
    return args.model_copy(update={"defaulting_type": args.defaulting_type or "System"})


def _inter_pod(args: m.InterPodAffinityArgs) -> m.InterPodAffinityArgs:
    weight = args.hard_pod_affinity_weight
    return args.model_copy(update={"hard_pod_affinity_weight": 1 if weight is None else weight})


def _preemption(args: m.DefaultPreemptionArgs) -> m.DefaultPreemptionArgs:
    percentage, absolute = args.min_candidate_nodes_percentage, args.min_candidate_nodes_absolute
    return args.model_copy(
        update={
            "min_candidate_nodes_percentage": 10 if percentage is None else percentage,
            "min_candidate_nodes_absolute": 100 if absolute is None else absolute,
        }
    )


def _volume_binding(args: m.VolumeBindingArgs, gates: FeatureGates) -> m.VolumeBindingArgs:
    update: dict[str, Any] = {}
    if args.bind_timeout_seconds is None:
        update["bind_timeout_seconds"] = DEFAULT_BIND_TIMEOUT_SECONDS
    if not args.shape and gates.enabled("StorageCapacityScoring"):
        # Prefer the node whose volumes are least used: full score at 0%, none at 100%.
        update["shape"] = [
            m.UtilizationShapePoint(utilization=0, score=10),
            m.UtilizationShapePoint(utilization=100, score=0),
        ]
    return args.model_copy(update=update)


def _dynamic_resources(args: m.DynamicResourcesArgs, gates: FeatureGates) -> m.DynamicResourcesArgs:
    update: dict[str, Any] = {}
    if args.filter_timeout is None and gates.enabled("DRASchedulerFilterTimeout"):
        update["filter_timeout"] = format_duration(DEFAULT_FILTER_TIMEOUT)
    binding_gates = gates.enabled("DRADeviceBindingConditions") and gates.enabled(
        "DRAResourceClaimDeviceStatus"
    )
    if args.binding_timeout is None and binding_gates:
        update["binding_timeout"] = format_duration(DEFAULT_BINDING_TIMEOUT)
    return args.model_copy(update=update)


def defaulted_args(name: str, args: Any, gates: FeatureGates) -> Any:
    """The args kube-scheduler hands plugin `name` after v1 defaulting (as written when untyped)."""
    model = m.ARGS_MODELS.get(name)
    if model is None:
        return args
    typed = args if isinstance(args, model) else model()
    if isinstance(typed, m.NodeResourcesFitArgs):
        return _fit(typed)
    if isinstance(typed, m.NodeResourcesBalancedAllocationArgs):
        return _balanced(typed)
    if isinstance(typed, m.PodTopologySpreadArgs):
        return _spread(typed)
    if isinstance(typed, m.InterPodAffinityArgs):
        return _inter_pod(typed)
    if isinstance(typed, m.DefaultPreemptionArgs):
        return _preemption(typed)
    if isinstance(typed, m.VolumeBindingArgs):
        return _volume_binding(typed, gates)
    if isinstance(typed, m.DynamicResourcesArgs):
        return _dynamic_resources(typed, gates)
    return typed


# --- profiles -------------------------------------------------------------------------------------


def _profile(
    index: int, written: m.KubeSchedulerProfile | None, name: str, gates: FeatureGates
) -> DefaultedProfile:
    plugins = solver_profile.merge(
        solver_profile.default_plugins(gates), written_sets(written.plugins if written else None)
    )
    configs: list[PluginArgs] = []
    for j, entry in enumerate(written.plugin_config if written else ()):
        configs.append(PluginArgs(entry.name, defaulted_args(entry.name, entry.args, gates), j))
    configured = {c.name for c in configs}
    for plugin in enabled_names(plugins):
        if plugin in m.ARGS_MODELS and plugin not in configured:
            configs.append(PluginArgs(plugin, defaulted_args(plugin, None, gates), None))
    percentage = written.percentage_of_nodes_to_score if written else None
    return DefaultedProfile(index, written, name, plugins, tuple(configs), percentage)


def defaulted(cfg: m.KubeSchedulerConfiguration, gates: FeatureGates) -> Defaulted:
    written: list[m.KubeSchedulerProfile | None] = list(cfg.profiles) or [None]
    profiles = []
    for i, p in enumerate(written):
        name = p.scheduler_name if p is not None else None
        if name is None and len(written) == 1:
            name = solver_profile.DEFAULT_SCHEDULER
        profiles.append(_profile(i, p, name or "", gates))
    client = cfg.client_connection or m.ClientConnectionConfiguration()
    initial = cfg.pod_initial_backoff_seconds
    maximum = cfg.pod_max_backoff_seconds
    return Defaulted(
        parallelism=DEFAULT_PARALLELISM if cfg.parallelism is None else cfg.parallelism,
        percentage_of_nodes_to_score=cfg.percentage_of_nodes_to_score or 0,
        pod_initial_backoff_seconds=DEFAULT_POD_INITIAL_BACKOFF_SECONDS if initial is None else initial,
        pod_max_backoff_seconds=DEFAULT_POD_MAX_BACKOFF_SECONDS if maximum is None else maximum,
        leader_election=_leader_election(cfg.leader_election),
        burst=client.burst or 100,
        profiles=tuple(profiles),
    )
