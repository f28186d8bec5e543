"""KubeSchedulerConfiguration, checked as kube-scheduler checks it before it schedules anything.

Two stages, both run on the configuration after v1 defaulting, as upstream does:
`ValidateKubeSchedulerConfiguration` (pkg/scheduler/apis/config/validation/validation.go), then
what building each profile's framework refuses (pkg/scheduler/framework/runtime): plugins
kubefit does not know, plugins at points they do not implement or registered twice, a profile
without exactly one queue sort plugin or without a bind plugin, score weights that could
overflow, and the args the NodeResourcesFit and DynamicResources plugins check when built.
Unlike kube-scheduler, every problem is reported, not only the first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...model.cluster import names
from ...model.cluster.points import BIND, QUEUE_SORT
from ...model.cluster.profile import (
    FRAMEWORK_ORDER,
    MULTI_POINT,
    ExpansionError,
    PluginSet,
    Profile,
    expand,
    interface,
)
from ...model.errors import FieldPath
from ...model.features import KNOWN_GATES, FeatureGates
from ..sched import config_model as m
from ..sched.defaulting import Defaulted, DefaultedProfile, defaulted, enabled_names
from ..sched.go_duration import format_duration
from . import FieldError, ValidationContext
from . import scheduler_args as args_checks
from .field_errors import Raw, compact_json, duplicate, go_quote, invalid, required
from .names import is_extended_resource_name, is_qualified_name

GROUP = "kubescheduler.config.k8s.io"
PERCENTAGE_RANGE = "not in valid range [0-100]"

ArgsCheck = Callable[[FieldPath, Any], list[FieldError]]


def gates_of(ctx: ValidationContext) -> FeatureGates:
    return FeatureGates(frozenset(g for g in KNOWN_GATES if not ctx.feature_enabled(g)))


def validate_kube_scheduler_configuration(
    cfg: m.KubeSchedulerConfiguration, ctx: ValidationContext
) -> list[FieldError]:
    gates = gates_of(ctx)
    return configuration_errors(cfg, defaulted(cfg, gates), gates)


def configuration_errors(
    cfg: m.KubeSchedulerConfiguration, config: Defaulted, gates: FeatureGates
) -> list[FieldError]:
    errs = _process_errors(config)
    profiles = config.profiles
    seen: dict[str, int] = {}
    for p in profiles:
        errs += _profile_errors(p, gates)
        path = ("profiles", p.index, "schedulerName")
        if p.scheduler_name in seen:
            errs.append(duplicate(path, Raw(f"profiles[{seen[p.scheduler_name]}].schedulerName")))
        seen[p.scheduler_name] = p.index
    errs += _common_queue_sort(profiles)
    errs += _percentage(("percentageOfNodesToScore",), config.percentage_of_nodes_to_score)
    initial, maximum = config.pod_initial_backoff_seconds, config.pod_max_backoff_seconds
    if initial <= 0:
        errs.append(invalid(("podInitialBackoffSeconds",), initial, "must be greater than 0"))
    if maximum < initial:
        detail = "must be greater than or equal to PodInitialBackoffSeconds"
        errs.append(invalid(("podMaxBackoffSeconds",), maximum, detail))
    errs += _extenders(cfg.extenders)
    for p in profiles:
        errs += framework_errors(p, gates)
    return errs


def _process_errors(config: Defaulted) -> list[FieldError]:
    """The settings of the scheduler process: client connection, leader election, parallelism."""
    errs: list[FieldError] = []
    if config.burst < 0:
        errs.append(invalid(("clientConnection", "burst"), config.burst, "must be non-negative"))
    le = config.leader_election
    if le.leader_elect:
        for field, value in (
            ("leaseDuration", le.lease_duration),
            ("renewDeadline", le.renew_deadline),
            ("retryPeriod", le.retry_period),
        ):
            if value <= 0:
                errs.append(
                    invalid(
                        ("leaderElection", field), Raw(format_duration(value)), "must be greater than zero"
                    )
                )
        if le.lease_duration <= le.renew_deadline:
            shown = Raw(format_duration(le.renew_deadline))
            detail = "LeaseDuration must be greater than RenewDeadline"
            errs.append(invalid(("leaderElection", "leaseDuration"), shown, detail))
        if le.resource_lock != "leases":
            detail = 'resourceLock value must be "leases"'
            errs.append(invalid(("leaderElection", "resourceLock"), le.resource_lock, detail))
    if config.parallelism <= 0:
        detail = "should be an integer value greater than zero"
        errs.append(invalid(("parallelism",), config.parallelism, detail))
    return errs


def _percentage(path: FieldPath, value: int | None) -> list[FieldError]:
    if value is not None and not 0 <= value <= 100:
        return [invalid(path, value, PERCENTAGE_RANGE)]
    return []


# Args kube-scheduler checks when it validates the configuration.
CONFIG_ARGS_CHECKS: dict[str, ArgsCheck] = {
    "DefaultPreemption": args_checks.default_preemption,
    "InterPodAffinity": args_checks.inter_pod_affinity,
    "NodeAffinity": args_checks.node_affinity,
    "NodeResourcesBalancedAllocation": args_checks.balanced_allocation,
    "PodTopologySpread": args_checks.pod_topology_spread,
}


def _profile_errors(p: DefaultedProfile, gates: FeatureGates) -> list[FieldError]:
    base = ("profiles", p.index)
    errs: list[FieldError] = []
    if not p.scheduler_name:
        errs.append(required((*base, "schedulerName")))
    errs += _percentage((*base, "percentageOfNodesToScore"), p.percentage_of_nodes_to_score)
    seen: set[str] = set()
    for config in p.plugin_config:
        if config.index is None:
            continue  # added by defaulting: valid by construction
        path = (*base, "pluginConfig", config.index)
        if config.name in seen:
            errs.append(duplicate(path, config.name))
        seen.add(config.name)
        errs += _args_kind(config.name, config.args, (*path, "args"))
        check = CONFIG_ARGS_CHECKS.get(config.name)
        if check is not None:
            errs += check((*path, "args"), config.args)
        elif config.name == "VolumeBinding":
            errs += args_checks.volume_binding((*path, "args"), config.args, gates.enabled)
    return errs


def _args_kind(plugin: str, args: Any, path: FieldPath) -> list[FieldError]:
    """The decoder's check: typed args name their own type, if they name one."""
    if not isinstance(args, m.ArgsModel):
        return []
    expected = f"{plugin}Args"
    version = args.api_version
    if version is not None and version != m.API_VERSION:
        kind = args.kind or expected
        message = f'decoding args for plugin {plugin}: no kind "{kind}" is registered for version "{version}"'
        return [FieldError((*path, "apiVersion"), message)]
    if args.kind is not None and args.kind != expected:
        message = f"args for plugin {plugin} were not of type {expected}.{GROUP}, got {args.kind}.{GROUP}"
        return [FieldError((*path, "kind"), message)]
    return []


def _go_plugin_set(s: PluginSet) -> str:
    # How %#v prints an internal config.PluginSet after merging.
    def plugins(items: Sequence[tuple[str, int]]) -> str:
        if not items:
            return "[]config.Plugin(nil)"
        inner = ", ".join(f"config.Plugin{{Name:{go_quote(n)}, Weight:{w}}}" for n, w in items)
        return "[]config.Plugin{" + inner + "}"

    enabled = plugins([(e.name, e.weight) for e in s.enabled])
    return f"config.PluginSet{{Enabled:{enabled}, Disabled:{plugins([(n, 0) for n in s.disabled])}}}"


def _shown_args(args: Any) -> Raw:
    if isinstance(args, m.ArgsModel):
        args = args.model_dump(by_alias=True, exclude_none=True)
    return Raw(compact_json(args))


def _common_queue_sort(profiles: Sequence[DefaultedProfile]) -> list[FieldError]:
    """validateCommonQueueSort: one queue is shared by all profiles, so they must sort it alike."""
    errs: list[FieldError] = []
    first = profiles[0]
    canon = first.plugins.get(QUEUE_SORT, PluginSet())
    name = canon.enabled[0].name if canon.enabled else ""
    if len(canon.enabled) > 1:
        enabled_path = ("profiles", first.index, "plugins", QUEUE_SORT, "enabled")
        errs.append(invalid(enabled_path, len(canon.enabled), "only one queue sort plugin can be enabled"))
    canon_args = [c.args for c in first.plugin_config if name and c.name == name]
    detail = "queueSort must be the same for all profiles"
    for p in profiles[1:]:
        current = p.plugins.get(QUEUE_SORT, PluginSet())
        if current != canon:
            errs.append(
                invalid(("profiles", p.index, "plugins", QUEUE_SORT), Raw(_go_plugin_set(current)), detail)
            )
        for c in p.plugin_config:
            if c.name == name and c.args != (canon_args[-1] if canon_args else None):
                path = ("profiles", p.index, "pluginConfig", c.index if c.index is not None else 0, "args")
                errs.append(invalid(path, _shown_args(c.args), detail))
    return errs


def _extenders(extenders: Sequence[m.Extender]) -> list[FieldError]:
    errs: list[FieldError] = []
    binders = 0
    managed: set[str] = set()
    for i, extender in enumerate(extenders):
        path = ("extenders", i)
        if extender.prioritize_verb and extender.weight <= 0:
            detail = "must have a positive weight applied to it"
            errs.append(invalid((*path, "weight"), extender.weight, detail))
        if extender.bind_verb:
            binders += 1
        for j, resource in enumerate(extender.managed_resources):
            name_path = (*path, "managedResources", j, "name")
            problems = is_qualified_name(resource.name)
            errs += [invalid(name_path, resource.name, msg) for msg in problems]
            if not problems and not is_extended_resource_name(resource.name):
                errs.append(invalid(name_path, resource.name, "is an invalid extended resource name"))
            if resource.name in managed:
                errs.append(invalid(name_path, resource.name, "duplicate extender managed resource name"))
            managed.add(resource.name)
    if binders > 1:
        shown = f"found {binders} extenders implementing bind"
        errs.append(invalid(("extenders",), shown, "only one extender can implement bind"))
    return errs


# --- what building the profile's framework refuses ------------------------------------------------


def _first_expanded_point(p: DefaultedProfile) -> str:
    # The framework meets an unknown MultiPoint plugin at the first point it expands.
    for point in FRAMEWORK_ORDER:
        if "*" not in p.plugins.get(point, PluginSet()).disabled:
            return point
    return FRAMEWORK_ORDER[0]


def _written_enabled(p: DefaultedProfile) -> list[tuple[str, int, str]]:
    """(point, index, plugin) of every plugin the profile enables itself."""
    written = p.written.plugins if p.written is not None else None
    if written is None:
        return []
    return [(point, j, e.name) for point, s in written.by_point().items() for j, e in enumerate(s.enabled)]


def _unknown_plugins(p: DefaultedProfile) -> list[FieldError]:
    errs: list[FieldError] = []
    for point, j, name in _written_enabled(p):
        path = ("profiles", p.index, "plugins", point, "enabled", j, "name")
        iface = interface(_first_expanded_point(p) if point == MULTI_POINT else point)
        if name not in names.KNOWN:
            errs.append(FieldError(path, f'{iface} "{name}" does not exist (not a plugin kubefit knows)'))
    return errs


def _expansion_path(p: DefaultedProfile, e: ExpansionError) -> FieldPath:
    written = [(point, j) for point, j, name in _written_enabled(p) if name == e.plugin]
    for point in (e.point, MULTI_POINT):
        matches = [j for q, j in written if q == point]
        if matches:
            return ("profiles", p.index, "plugins", point, "enabled", matches[-1])
    return ("profiles", p.index, "plugins")


def _built_args_errors(p: DefaultedProfile, gates: FeatureGates) -> list[FieldError]:
    """The args NodeResourcesFit and DynamicResources check when the framework builds them (only
    plugins enabled somewhere are built)."""
    errs: list[FieldError] = []
    needed = set(enabled_names(p.plugins))
    for config in p.plugin_config:
        if config.index is None or config.name not in needed:
            continue
        path = ("profiles", p.index, "pluginConfig", config.index, "args")
        if config.name == "NodeResourcesFit":
            errs += args_checks.node_resources_fit(path, config.args)
        elif config.name == "DynamicResources" and gates.enabled("DynamicResourceAllocation"):
            errs += args_checks.dynamic_resources(path, config.args, gates.enabled)
    return errs


def framework_errors(p: DefaultedProfile, gates: FeatureGates) -> list[FieldError]:
    errs = _unknown_plugins(p) + _built_args_errors(p, gates)
    if errs:
        return errs
    base = ("profiles", p.index)
    try:
        expanded = expand(Profile(p.scheduler_name, p.plugins))
    except ExpansionError as e:
        return [FieldError(_expansion_path(p, e), str(e))]
    name = go_quote(p.scheduler_name)
    sorts = len(expanded.at(QUEUE_SORT))
    if sorts != 1:
        message = (
            f"only one queue sort plugin required for profile with scheduler name {name}, but got {sorts}"
        )
        errs.append(FieldError((*base, "plugins"), message))
    if not expanded.at(BIND):
        message = f"at least one bind plugin is needed for profile with scheduler name {name}"
        errs.append(FieldError((*base, "plugins"), message))
    return errs
