"""A KubeSchedulerConfiguration as written -> the Configuration kubefit's scheduler runs: defaulted as
kube-scheduler v1 defaults it, refused where kube-scheduler would refuse to start with it, every
problem located in its file."""

from __future__ import annotations

from typing import Any

from kubernetes.client.models import V1NodeSelectorTerm

from ...model.cluster import args as plugin_args
from ...model.cluster.profile import Configuration, Profile
from ...model.errors import InputError, Problem
from ...model.features import FeatureGates
from ...model.terms import NodeRequirement, NodeSelectorTerm, PreferredNodeTerm
from ..kube import KubeObject
from ..validation.scheduler_config import configuration_errors
from . import config_model as m
from .defaulting import Defaulted, DefaultedProfile, defaulted
from .go_duration import SECOND, parse


def written_configuration(written: list[KubeObject], gates: FeatureGates) -> Configuration:
    """The configuration of the input's KubeSchedulerConfigurations (kube-scheduler reads one)."""
    first = written[0]
    if len(written) > 1:
        # `written` are the objects of one kind (config.KIND)
        message = f"kube-scheduler reads one {first.kind}; the first is at {first.file}:{first.line}"
        raise InputError([obj.problem(("kind",), message) for obj in written[1:]])
    cfg = first.model
    assert isinstance(cfg, m.KubeSchedulerConfiguration)
    config = defaulted(cfg, gates)
    problems: list[Problem] = []
    for error in configuration_errors(cfg, config, gates):
        problem = first.problem(error.path, error.message)
        if problem not in problems:
            problems.append(problem)
    if problems:
        raise InputError(problems)
    return converted(config)


def converted(config: Defaulted) -> Configuration:
    """A valid, defaulted configuration as the scheduler's profiles."""
    return Configuration(tuple(_profile(p) for p in config.profiles), config.percentage_of_nodes_to_score)


def _profile(p: DefaultedProfile) -> Profile:
    args: dict[str, Any] = {}
    for c in p.plugin_config:
        if c.name in plugin_args.ARGS_TYPES and c.name not in args:
            args[c.name] = _args(c.args)
    return Profile(p.scheduler_name, dict(p.plugins), args, p.percentage_of_nodes_to_score)


def _resources(specs: list[m.ResourceSpec]) -> tuple[plugin_args.ResourceSpec, ...]:
    return tuple(plugin_args.ResourceSpec(r.name, r.weight) for r in specs)


def _term(term: V1NodeSelectorTerm) -> NodeSelectorTerm:
    def requirements(items: Any) -> tuple[NodeRequirement, ...]:
        return tuple(NodeRequirement(r.key, r.operator, tuple(r.values or ())) for r in items or ())

    return NodeSelectorTerm(requirements(term.match_expressions), requirements(term.match_fields))


def _node_affinity(a: m.NodeAffinityArgs) -> plugin_args.NodeAffinityArgs:
    affinity = a.added_affinity
    if affinity is None:
        return plugin_args.NodeAffinityArgs()
    selector = affinity.required_during_scheduling_ignored_during_execution
    required = None if selector is None else tuple(_term(t) for t in selector.node_selector_terms or ())
    preferred = tuple(
        PreferredNodeTerm(t.weight, _term(t.preference))
        for t in affinity.preferred_during_scheduling_ignored_during_execution or ()
    )
    return plugin_args.NodeAffinityArgs(required, preferred)


def _fit(a: m.NodeResourcesFitArgs) -> plugin_args.NodeResourcesFitArgs:
    strategy = a.scoring_strategy or m.ScoringStrategy()
    ratio = strategy.requested_to_capacity_ratio
    shape = tuple(plugin_args.ShapePoint(s.utilization, s.score) for s in ratio.shape) if ratio else ()
    return plugin_args.NodeResourcesFitArgs(
        frozenset(a.ignored_resources),
        frozenset(a.ignored_resource_groups),
        plugin_args.ScoringStrategy(strategy.type, _resources(strategy.resources), shape),
    )


def _seconds(duration: str | None, unset: float) -> float:
    return unset if duration is None else parse(duration) / SECOND


def _args(a: Any) -> Any:
    """Defaulted, valid args in the form the plugins read (args.py)."""
    if isinstance(a, m.NodeResourcesFitArgs):
        return _fit(a)
    if isinstance(a, m.NodeResourcesBalancedAllocationArgs):
        return plugin_args.NodeResourcesBalancedAllocationArgs(_resources(a.resources))
    if isinstance(a, m.NodeAffinityArgs):
        return _node_affinity(a)
    if isinstance(a, m.PodTopologySpreadArgs):
        constraints = tuple(
            plugin_args.DefaultSpreadConstraint(c.max_skew, c.topology_key, c.when_unsatisfiable)
            for c in a.default_constraints
        )
        return plugin_args.PodTopologySpreadArgs(constraints, a.defaulting_type)
    if isinstance(a, m.InterPodAffinityArgs):
        return plugin_args.InterPodAffinityArgs(
            a.hard_pod_affinity_weight or 0, a.ignore_preferred_terms_of_existing_pods
        )
    if isinstance(a, m.DefaultPreemptionArgs):
        return plugin_args.DefaultPreemptionArgs(
            a.min_candidate_nodes_percentage or 0, a.min_candidate_nodes_absolute or 0
        )
    assert isinstance(a, m.DynamicResourcesArgs)
    # Without the filter-timeout gate there is no timeout, which a timeout of 0 also means.
    return plugin_args.DynamicResourcesArgs(
        _seconds(a.filter_timeout, 0.0),
        _seconds(a.binding_timeout, plugin_args.DynamicResourcesArgs().binding_timeout_seconds),
    )
