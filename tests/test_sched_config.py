"""KubeSchedulerConfiguration: v1 defaulting, plugin-set merging and MultiPoint expansion, validation
as kube-scheduler validates it, and the CLI's one-line problems.

Cases are ported from kubernetes/kubernetes: pkg/scheduler/apis/config/v1/default_plugins_test.go
(TestMergePlugins), pkg/scheduler/apis/config/testing/defaults (the expanded default plugins),
pkg/scheduler/framework/runtime/framework_test.go (TestNewFrameworkMultiPointExpansion,
TestNewFrameworkErrors, TestInitFrameworkWithScorePlugins) and
pkg/scheduler/apis/config/validation (validation_test.go, validation_pluginargs_test.go).
"""

from __future__ import annotations

import copy
import functools
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubefit.cli import main
from kubefit.model.cluster import args as plugin_args
from kubefit.model.cluster.profile import (
    ExpansionError,
    PluginEntry,
    PluginSet,
    Profile,
    default_profile,
    expand,
    merge_set,
)
from kubefit.model.errors import InputError, format_path
from kubefit.model.features import ALL_ON, FeatureGates
from kubefit.model.terms import NodeRequirement, NodeSelectorTerm, PreferredNodeTerm
from kubefit.translate.kube.objects import ObjectSet
from kubefit.translate.loader import load_text
from kubefit.translate.sched import config_model as m
from kubefit.translate.sched.config import configuration
from kubefit.translate.sched.defaulting import defaulted
from kubefit.translate.sched.go_duration import DurationError, format_duration, parse
from kubefit.translate.sched.written import converted
from kubefit.translate.validation import FieldError
from kubefit.translate.validation import scheduler_args as checks
from kubefit.translate.validation.scheduler_config import configuration_errors

HEADER = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}


def model(doc: dict[str, Any]) -> m.KubeSchedulerConfiguration:
    return m.KubeSchedulerConfiguration.model_validate({**HEADER, **doc})


def errors_of(doc: dict[str, Any], gates: FeatureGates = ALL_ON) -> list[str]:
    cfg = model(doc)
    return [
        f"{format_path(e.path)}: {e.message}" for e in configuration_errors(cfg, defaulted(cfg, gates), gates)
    ]


def from_yaml(text: str, gates: FeatureGates = ALL_ON) -> Any:
    return configuration(load_text(textwrap.dedent(text)), gates)


# --- defaults -------------------------------------------------------------------------------------

# ExpandedPluginsV1 of pkg/scheduler/apis/config/testing/defaults, as upstream has it today: the cloud
# volume-limit plugins gone, DynamicResources before DefaultPreemption, SchedulingGates at PreEnqueue;
# with the workload gates GangScheduling at PreEnqueue and PlacementFeasible (the PodGroup cycle replaced
# its Reserve and Permit), TopologyPlacement at PlacementGenerate, NodeResourcesFit and PodGroupPodsCount
# at PlacementScore (weight 1 each) and DefaultPreemption at PodGroupPostFilter.
EXPANDED_DEFAULT = {
    "preEnqueue": ("SchedulingGates", "DynamicResources", "DefaultPreemption", "GangScheduling"),
    "queueSort": ("PrioritySort",),
    "preFilter": (
        "NodeAffinity",
        "NodePorts",
        "NodeResourcesFit",
        "VolumeRestrictions",
        "NodeVolumeLimits",
        "VolumeBinding",
        "VolumeZone",
        "PodTopologySpread",
        "InterPodAffinity",
        "DynamicResources",
    ),
    "filter": (
        "NodeUnschedulable",
        "NodeName",
        "TaintToleration",
        "NodeAffinity",
        "NodePorts",
        "NodeResourcesFit",
        "VolumeRestrictions",
        "NodeVolumeLimits",
        "VolumeBinding",
        "VolumeZone",
        "PodTopologySpread",
        "InterPodAffinity",
        "DynamicResources",
    ),
    "postFilter": ("DynamicResources", "DefaultPreemption"),
    "preScore": (
        "TaintToleration",
        "NodeAffinity",
        "NodeResourcesFit",
        "VolumeBinding",
        "PodTopologySpread",
        "InterPodAffinity",
        "NodeResourcesBalancedAllocation",
    ),
    "score": (
        "TaintToleration",
        "NodeAffinity",
        "NodeResourcesFit",
        "VolumeBinding",
        "PodTopologySpread",
        "InterPodAffinity",
        "DynamicResources",
        "NodeResourcesBalancedAllocation",
        "ImageLocality",
    ),
    "reserve": ("VolumeBinding", "DynamicResources"),
    "permit": (),
    "preBind": ("VolumeBinding", "DynamicResources"),
    "bind": ("DefaultBinder",),
    "postBind": (),
    "placementGenerate": ("TopologyPlacement",),
    "placementFeasible": ("GangScheduling",),
    "placementScore": ("NodeResourcesFit", "PodGroupPodsCount"),
    "podGroupPostFilter": ("DefaultPreemption",),
}
DEFAULT_WEIGHTS = {
    "TaintToleration": 3,
    "NodeAffinity": 2,
    "NodeResourcesFit": 1,
    "VolumeBinding": 1,
    "PodTopologySpread": 2,
    "InterPodAffinity": 2,
    "DynamicResources": 2,
    "NodeResourcesBalancedAllocation": 1,
    "ImageLocality": 1,
}


def test_without_a_configuration_the_scheduler_runs_one_default_profile() -> None:
    config = configuration(ObjectSet())
    assert [p.scheduler_name for p in config.profiles] == ["default-scheduler"]
    assert config.percentage_of_nodes_to_score == 0
    assert config.profiles[0] == default_profile(ALL_ON)


def test_the_expanded_default_profile_has_upstreams_plugin_order_and_weights() -> None:
    expanded = expand(default_profile(ALL_ON))
    assert dict(expanded.points) == EXPANDED_DEFAULT
    assert dict(expanded.weights) == DEFAULT_WEIGHTS
    assert dict(expanded.placement_weights) == {"NodeResourcesFit": 1, "PodGroupPodsCount": 1}


def test_an_empty_configuration_is_the_default_profile_with_upstreams_default_args() -> None:
    (profile,) = from_yaml(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    ).profiles
    assert expand(profile).points == expand(default_profile(ALL_ON)).points
    cpu_memory = (plugin_args.ResourceSpec("cpu", 1), plugin_args.ResourceSpec("memory", 1))
    assert profile.args == {
        "DefaultPreemption": plugin_args.DefaultPreemptionArgs(10, 100),
        "DynamicResources": plugin_args.DynamicResourcesArgs(10.0, 600.0),
        "InterPodAffinity": plugin_args.InterPodAffinityArgs(1, False),
        "NodeAffinity": plugin_args.NodeAffinityArgs(),
        "NodeResourcesBalancedAllocation": plugin_args.NodeResourcesBalancedAllocationArgs(cpu_memory),
        "NodeResourcesFit": plugin_args.NodeResourcesFitArgs(
            scoring_strategy=plugin_args.ScoringStrategy("LeastAllocated", cpu_memory)
        ),
        "PodTopologySpread": plugin_args.PodTopologySpreadArgs((), "System"),
    }


def test_volume_binding_args_get_a_timeout_and_the_storage_capacity_shape() -> None:
    (p,) = defaulted(model({}), ALL_ON).profiles
    args = p.args("VolumeBinding")
    assert args.bind_timeout_seconds == 600
    assert [(s.utilization, s.score) for s in args.shape] == [(0, 10), (100, 0)]


def test_switching_gates_off_drops_the_plugins_they_add() -> None:
    gates = ALL_ON.with_values({"DynamicResourceAllocation": False, "GenericWorkload": False})
    expanded = expand(configuration(ObjectSet(), gates).profiles[0])
    assert "DynamicResources" not in {n for names in expanded.points.values() for n in names}
    assert expanded.at("preEnqueue") == ("SchedulingGates", "DefaultPreemption")
    assert expanded.at("permit") == ()


def test_dra_timeouts_are_defaulted_only_under_their_gates() -> None:
    gates = ALL_ON.with_values({"DRASchedulerFilterTimeout": False, "DRADeviceBindingConditions": False})
    (p,) = defaulted(model({}), gates).profiles
    assert (p.args("DynamicResources").filter_timeout, p.args("DynamicResources").binding_timeout) == (
        None,
        None,
    )
    (profile,) = from_yaml(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n", gates
    ).profiles
    assert profile.args["DynamicResources"] == plugin_args.DynamicResourcesArgs(0.0, 600.0)


ARGS_DEFAULTING_CASES = [
    (
        "a fit strategy without resources gets cpu and memory",
        "NodeResourcesFit",
        {"scoringStrategy": {"type": "MostAllocated"}},
        plugin_args.NodeResourcesFitArgs(
            scoring_strategy=plugin_args.ScoringStrategy(
                "MostAllocated", (plugin_args.ResourceSpec("cpu", 1), plugin_args.ResourceSpec("memory", 1))
            )
        ),
    ),
    (
        "a fit resource without a weight weighs 1",
        "NodeResourcesFit",
        {
            "scoringStrategy": {
                "type": "LeastAllocated",
                "resources": [{"name": "gpu"}, {"name": "cpu", "weight": 3}],
            }
        },
        plugin_args.NodeResourcesFitArgs(
            scoring_strategy=plugin_args.ScoringStrategy(
                "LeastAllocated", (plugin_args.ResourceSpec("gpu", 1), plugin_args.ResourceSpec("cpu", 3))
            )
        ),
    ),
    (
        "a balanced-allocation resource weighted 0 weighs 1",
        "NodeResourcesBalancedAllocation",
        {"resources": [{"name": "cpu", "weight": 0}, {"name": "nvidia.com/gpu"}]},
        plugin_args.NodeResourcesBalancedAllocationArgs(
            (plugin_args.ResourceSpec("cpu", 1), plugin_args.ResourceSpec("nvidia.com/gpu", 1))
        ),
    ),
    (
        "spread args without a defaulting type are System",
        "PodTopologySpread",
        {},
        plugin_args.PodTopologySpreadArgs((), "System"),
    ),
    (
        "a List of default constraints is kept",
        "PodTopologySpread",
        {
            "defaultingType": "List",
            "defaultConstraints": [
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
            ],
        },
        plugin_args.PodTopologySpreadArgs(
            (plugin_args.DefaultSpreadConstraint(1, "zone", "DoNotSchedule"),), "List"
        ),
    ),
    (
        "a hard pod affinity weight of 0 stays 0",
        "InterPodAffinity",
        {"hardPodAffinityWeight": 0},
        plugin_args.InterPodAffinityArgs(0, False),
    ),
    (
        "preemption args keep what is written and default the rest",
        "DefaultPreemption",
        {"minCandidateNodesAbsolute": 50},
        plugin_args.DefaultPreemptionArgs(10, 50),
    ),
    (
        "DRA timeouts are read as Go durations",
        "DynamicResources",
        {"filterTimeout": "1m30s", "bindingTimeout": "1500ms"},
        plugin_args.DynamicResourcesArgs(90.0, 1.5),
    ),
    (
        "added node affinity becomes required and preferred terms",
        "NodeAffinity",
        {
            "addedAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "a", "operator": "In", "values": ["x"]}]}
                    ]
                },
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 5,
                        "preference": {
                            "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n"]}]
                        },
                    }
                ],
            }
        },
        None,
    ),
]


@pytest.mark.parametrize(
    ("case", "plugin", "args", "want"), ARGS_DEFAULTING_CASES, ids=[c[0] for c in ARGS_DEFAULTING_CASES]
)
def test_plugin_args_are_defaulted_as_v1_defaults_them(
    case: str, plugin: str, args: dict[str, Any], want: Any
) -> None:
    doc = {"profiles": [{"pluginConfig": [{"name": plugin, "args": args}]}]}
    cfg = model(doc)
    assert errors_of(doc) == []
    (profile,) = configuration_of(cfg).profiles
    got = profile.args[plugin]
    if want is None:
        want = plugin_args.NodeAffinityArgs(
            (NodeSelectorTerm((NodeRequirement("a", "In", ("x",)),)),),
            (
                PreferredNodeTerm(
                    5, NodeSelectorTerm(match_fields=(NodeRequirement("metadata.name", "In", ("n",)),))
                ),
            ),
        )
    assert got == want


def configuration_of(cfg: m.KubeSchedulerConfiguration) -> Any:
    return converted(defaulted(cfg, ALL_ON))


PROFILE_DEFAULTING_CASES: list[tuple[str, dict[str, Any], list[str], list[str]]] = [
    ("a lone unnamed profile is the default scheduler", {"profiles": [{}]}, ["default-scheduler"], []),
    ("a lone named profile keeps its name", {"profiles": [{"schedulerName": "mine"}]}, ["mine"], []),
    (
        "of several profiles none is named for you",
        {"profiles": [{"schedulerName": "a"}, {}]},
        ["a", ""],
        ["profiles[1].schedulerName: Required value"],
    ),
]


@pytest.mark.parametrize(
    ("case", "doc", "names", "errors"), PROFILE_DEFAULTING_CASES, ids=[c[0] for c in PROFILE_DEFAULTING_CASES]
)
def test_profiles_are_named_as_v1_names_them(
    case: str, doc: dict[str, Any], names: list[str], errors: list[str]
) -> None:
    assert [p.scheduler_name for p in defaulted(model(doc), ALL_ON).profiles] == names
    assert errors_of(doc) == errors


def test_a_profile_disabling_a_default_and_reweighting_another_expands_like_upstream() -> None:
    config = from_yaml(
        """
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        percentageOfNodesToScore: 40
        profiles:
        - schedulerName: packer
          percentageOfNodesToScore: 20
          plugins:
            multiPoint:
              disabled: [{name: ImageLocality}]
            score:
              disabled: [{name: NodeResourcesBalancedAllocation}]
              enabled: [{name: NodeResourcesFit, weight: 5}, {name: TaintToleration}]
        """
    )
    (p,) = config.profiles
    assert (config.percentage_of_nodes_to_score, p.percentage_of_nodes_to_score) == (40, 20)
    expanded = expand(p)
    assert expanded.at("score") == (
        "NodeResourcesFit",
        "TaintToleration",
        "NodeAffinity",
        "VolumeBinding",
        "PodTopologySpread",
        "InterPodAffinity",
        "DynamicResources",
    )
    assert expanded.weights["NodeResourcesFit"] == 5
    assert (
        expanded.weights["TaintToleration"] == 1
    )  # the Score set's weight (unset: 1) wins over MultiPoint's 3
    assert "NodeResourcesBalancedAllocation" in expanded.at("preScore")


# --- merging (TestMergePlugins) -------------------------------------------------------------------


def pset(enabled: list[Any] = [], disabled: list[str] = []) -> PluginSet:  # noqa: B006
    entries = tuple(PluginEntry(e) if isinstance(e, str) else PluginEntry(*e) for e in enabled)
    return PluginSet(entries, tuple(disabled))


MERGE_CASES = [
    (
        "a custom plugin is appended",
        pset(["CustomPlugin"]),
        pset(["D1", "D2"]),
        pset(["D1", "D2", "CustomPlugin"]),
    ),
    (
        "a default disabled and re-enabled moves after the custom one",
        pset(["CustomPlugin", "D2"], ["D2"]),
        pset(["D1", "D2"]),
        pset(["D1", "CustomPlugin", "D2"], ["D2"]),
    ),
    (
        "disabling all defaults puts the custom ones first",
        pset(["CustomPlugin", "D1", "D2"], ["*"]),
        pset(["D1", "D2"]),
        pset(["CustomPlugin", "D1", "D2"], ["*"]),
    ),
    (
        "defaults are reordered by disabling all",
        pset(["D2", "D1"], ["*"]),
        pset(["D1", "D2"]),
        pset(["D2", "D1"], ["*"]),
    ),
    ("no custom set leaves the defaults", pset(), pset(["D1", "D2"]), pset(["D1", "D2"])),
    (
        "a re-configured default keeps its place with the new weight",
        pset([("P1", 2), ("P3", 3)]),
        pset(["P1", "P2", "P3"]),
        pset([("P1", 2), "P2", ("P3", 3)]),
    ),
    (
        "overrides keep the defaults' order",
        pset([("P2", 2), ("P1", 1)]),
        pset(["P1", "P2", "P3"]),
        pset([("P1", 1), ("P2", 2), "P3"]),
    ),
    (
        "a repeated custom plugin overrides with its last entry and appends the first",
        pset(["P1", ("P2", 2), "P3", ("P2", 4)]),
        pset(["P1", "P2", "P3"]),
        pset(["P1", ("P2", 4), "P3", ("P2", 2)]),
    ),
    (
        "a custom MultiPoint plugin is appended",
        pset(["CustomPlugin"]),
        pset(["D1", "D2"]),
        pset(["D1", "D2", "CustomPlugin"]),
    ),
    (
        "MultiPoint defaults can be disabled while custom ones are added",
        pset(["CustomPlugin", "CustomPlugin2"], ["D2"]),
        pset(["D1", "D2"]),
        pset(["D1", "CustomPlugin", "CustomPlugin2"], ["D2"]),
    ),
    ("a MultiPoint default takes a custom weight", pset([("D", 5)]), pset(["D"]), pset([("D", 5)])),
    (
        "a default's own disabled plugins are kept",
        pset(["CustomPlugin"]),
        pset(["D"], ["D2"]),
        pset(["D", "CustomPlugin"], ["D2"]),
    ),
    ("a set that only disables is merged", pset([], ["D"]), pset(["D"]), pset([], ["D"])),
]


@pytest.mark.parametrize(("case", "custom", "default", "want"), MERGE_CASES, ids=[c[0] for c in MERGE_CASES])
def test_plugin_sets_merge_as_upstream_merges_them(
    case: str, custom: PluginSet, default: PluginSet, want: PluginSet
) -> None:
    assert merge_set(default, custom) == want


# --- MultiPoint expansion (framework_test.go) -----------------------------------------------------

ALL_POINTS = frozenset(
    {
        "queueSort",
        "preFilter",
        "filter",
        "postFilter",
        "preScore",
        "score",
        "reserve",
        "permit",
        "preBind",
        "bind",
        "postBind",
    }
)
REGISTRY = {
    "testPlugin": ALL_POINTS,
    "scorePlugin1": frozenset({"preScore", "score"}),
    "scorePlugin2": frozenset({"score"}),
    "scoreWithNormalizePlugin1": frozenset({"score"}),
    "pluginNotImplementingScore": frozenset({"filter"}),
    "duplicatePlugin": frozenset({"preFilter"}),
    "queueSortPlugin": frozenset({"queueSort"}),
    "bindPlugin": frozenset({"bind"}),
}
EVERYWHERE = {p: ("testPlugin",) for p in ALL_POINTS}


def profile_of(**sets: PluginSet) -> Profile:
    return Profile(plugins={("multiPoint" if k == "multi" else k): v for k, v in sets.items()})


def points(
    expanded_points: dict[str, tuple[str, ...]], **changes: tuple[str, ...]
) -> dict[str, tuple[str, ...]]:
    out = {p: () for p in EXPANDED_DEFAULT}
    out.update(expanded_points)
    out.update(changes)
    return out


EXPANSION_CASES: list[tuple[str, Profile, dict[str, tuple[str, ...]], dict[str, int]]] = [
    (
        "a MultiPoint plugin is enabled at every point it implements",
        profile_of(multi=pset([("testPlugin", 5)])),
        points(EVERYWHERE),
        {"testPlugin": 5},
    ),
    (
        "a MultiPoint plugin can be disabled at some points",
        profile_of(
            multi=pset(["testPlugin"]), preScore=pset([], ["testPlugin"]), score=pset([], ["testPlugin"])
        ),
        points(EVERYWHERE, preScore=(), score=()),
        {},
    ),
    (
        "several MultiPoint plugins keep their order",
        profile_of(multi=pset(["testPlugin", "scorePlugin1"])),
        points(EVERYWHERE, preScore=("testPlugin", "scorePlugin1"), score=("testPlugin", "scorePlugin1")),
        {"testPlugin": 1, "scorePlugin1": 1},
    ),
    (
        "disabling all at a point leaves it empty",
        profile_of(multi=pset(["testPlugin", "scorePlugin1"]), preScore=pset([], ["*"])),
        points(EVERYWHERE, preScore=(), score=("testPlugin", "scorePlugin1")),
        {"testPlugin": 1, "scorePlugin1": 1},
    ),
    (
        "plugins configured at the point run first, in the point's order",
        profile_of(
            multi=pset(["scoreWithNormalizePlugin1", "testPlugin", "scorePlugin1"]),
            score=pset(["scorePlugin1", "testPlugin"]),
        ),
        points(
            EVERYWHERE,
            preScore=("testPlugin", "scorePlugin1"),
            score=("scorePlugin1", "testPlugin", "scoreWithNormalizePlugin1"),
        ),
        {"scorePlugin1": 1, "testPlugin": 1, "scoreWithNormalizePlugin1": 1},
    ),
    (
        "only the point's plugins that are also in MultiPoint go first",
        profile_of(
            multi=pset(["testPlugin", "scorePlugin1"]),
            score=pset(["scoreWithNormalizePlugin1", "scorePlugin1", "testPlugin"]),
        ),
        points(
            EVERYWHERE,
            preScore=("testPlugin", "scorePlugin1"),
            score=("scorePlugin1", "testPlugin", "scoreWithNormalizePlugin1"),
        ),
        {"scorePlugin1": 1, "testPlugin": 1, "scoreWithNormalizePlugin1": 1},
    ),
    (
        "the point's weights override MultiPoint's",
        profile_of(
            multi=pset(["testPlugin", "scorePlugin1"]), score=pset([("scorePlugin1", 5), ("testPlugin", 3)])
        ),
        points(EVERYWHERE, preScore=("testPlugin", "scorePlugin1"), score=("scorePlugin1", "testPlugin")),
        {"scorePlugin1": 5, "testPlugin": 3},
    ),
    (
        "MultiPoint plugins are enabled even when MultiPoint disables all",
        profile_of(multi=pset(["queueSortPlugin", "bindPlugin", "scorePlugin1"], ["*"])),
        points(
            {},
            queueSort=("queueSortPlugin",),
            preScore=("scorePlugin1",),
            score=("scorePlugin1",),
            bind=("bindPlugin",),
        ),
        {"scorePlugin1": 1},
    ),
    (
        "a plugin both enabled and disabled in MultiPoint is enabled",
        profile_of(multi=pset(["bindPlugin", "queueSortPlugin", "scorePlugin1"], ["scorePlugin1"])),
        points(
            {},
            queueSort=("queueSortPlugin",),
            preScore=("scorePlugin1",),
            score=("scorePlugin1",),
            bind=("bindPlugin",),
        ),
        {"scorePlugin1": 1},
    ),
    (
        "a plugin configured at the point and in MultiPoint is loaded once",
        profile_of(
            multi=pset(["testPlugin", "scorePlugin1"]),
            score=pset([("scorePlugin1", 5), ("scorePlugin2", 5), ("testPlugin", 3)]),
        ),
        points(
            EVERYWHERE,
            preScore=("testPlugin", "scorePlugin1"),
            score=("scorePlugin1", "testPlugin", "scorePlugin2"),
        ),
        {"scorePlugin1": 5, "testPlugin": 3, "scorePlugin2": 5},
    ),
]


@pytest.mark.parametrize(
    ("case", "profile", "want", "weights"), EXPANSION_CASES, ids=[c[0] for c in EXPANSION_CASES]
)
def test_multipoint_expansion_matches_the_framework(
    case: str, profile: Profile, want: dict[str, tuple[str, ...]], weights: dict[str, int]
) -> None:
    expanded = expand(profile, REGISTRY)
    assert dict(expanded.points) == want
    assert dict(expanded.weights) == weights


EXPANSION_ERROR_CASES = [
    (
        "a plugin twice in MultiPoint",
        profile_of(multi=pset(["testPlugin", "testPlugin"])),
        'plugin "testPlugin" already registered as "PreFilterPlugin"',
    ),
    (
        "a plugin twice at one point",
        profile_of(preFilter=pset([("duplicatePlugin", 1), ("duplicatePlugin", 1)])),
        'plugin "duplicatePlugin" already registered as "PreFilterPlugin"',
    ),
    (
        "an unknown score plugin",
        profile_of(score=pset(["notExist"])),
        'ScorePlugin "notExist" does not exist',
    ),
    (
        "a score plugin that does not score",
        profile_of(score=pset(["pluginNotImplementingScore"])),
        'plugin "pluginNotImplementingScore" does not extend ScorePlugin plugin',
    ),
    (
        "an unknown MultiPoint plugin",
        profile_of(multi=pset(["notExist"])),
        'PreFilterPlugin "notExist" does not exist',
    ),
    (
        "weights whose sum could overflow",
        profile_of(score=pset([("scorePlugin1", 2**62), ("scorePlugin2", 2**62)])),
        "total score of Score plugins could overflow",
    ),
]


@pytest.mark.parametrize(
    ("case", "profile", "message"), EXPANSION_ERROR_CASES, ids=[c[0] for c in EXPANSION_ERROR_CASES]
)
def test_the_framework_refuses_what_upstream_refuses(case: str, profile: Profile, message: str) -> None:
    with pytest.raises(ExpansionError, match=message.replace("(", r"\(")):
        expand(profile, REGISTRY)


def test_score_weights_count_multipoint_plugins_disabled_at_score() -> None:
    profile = profile_of(
        multi=pset([("scorePlugin1", 2**62), ("scorePlugin2", 2**62)]), score=pset([], ["*"])
    )
    with pytest.raises(ExpansionError, match="could overflow"):
        expand(profile, REGISTRY)


# --- configuration validation (validation_test.go) ------------------------------------------------

VALID: dict[str, Any] = {
    "parallelism": 8,
    "clientConnection": {
        "acceptContentTypes": "application/json",
        "contentType": "application/json",
        "qps": 10,
        "burst": 10,
    },
    "leaderElection": {
        "resourceLock": "leases",
        "leaderElect": True,
        "leaseDuration": "30s",
        "renewDeadline": "15s",
        "retryPeriod": "5s",
        "resourceNamespace": "name",
        "resourceName": "name",
    },
    "podInitialBackoffSeconds": 1,
    "podMaxBackoffSeconds": 1,
    "profiles": [
        {
            "schedulerName": "me",
            "percentageOfNodesToScore": 35,
            "plugins": {
                "queueSort": {"enabled": [{"name": "PrioritySort"}]},
                "score": {"disabled": [{"name": "*"}]},
            },
            "pluginConfig": [
                {
                    "name": "DefaultPreemption",
                    "args": {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100},
                }
            ],
        },
        {
            "schedulerName": "other",
            "percentageOfNodesToScore": 35,
            "plugins": {
                "queueSort": {"enabled": [{"name": "PrioritySort"}]},
                "bind": {"enabled": [{"name": "DefaultBinder"}]},
            },
        },
    ],
    "extenders": [{"prioritizeVerb": "prioritize", "weight": 1}],
}


def changed(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    doc = copy.deepcopy(VALID)
    change(doc)
    return doc


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(doc: dict[str, Any]) -> None:
        *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        target: Any = doc
        for p in parents:
            target = target[p]
        target[last] = value

    return apply


DUP = "example.com/foo"
CONFIG_CASES: list[tuple[str, Callable[[dict[str, Any]], None], list[str]]] = [
    ("a valid configuration", lambda d: None, []),
    (
        "parallelism must be positive",
        _set("parallelism", 0),
        ["parallelism: Invalid value: 0: should be an integer value greater than zero"],
    ),
    (
        "leader election locks with leases",
        _set("leaderElection.resourceLock", "configmap"),
        ['leaderElection.resourceLock: Invalid value: "configmap": resourceLock value must be "leases"'],
    ),
    ("an empty lock name is defaulted, as v1 defaults it", _set("leaderElection.resourceName", ""), []),
    (
        "a lease must outlast its renew deadline",
        _set("leaderElection.leaseDuration", "10s"),
        [
            "leaderElection.leaseDuration: Invalid value: 15s: LeaseDuration must be greater than RenewDeadline"
        ],
    ),
    (
        "a negative retry period",
        _set("leaderElection.retryPeriod", "-1s"),
        ["leaderElection.retryPeriod: Invalid value: -1s: must be greater than zero"],
    ),
    (
        "a negative burst",
        _set("clientConnection.burst", -1),
        ["clientConnection.burst: Invalid value: -1: must be non-negative"],
    ),
    (
        "percentageOfNodesToScore above 100",
        _set("percentageOfNodesToScore", 101),
        ["percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"],
    ),
    (
        "percentageOfNodesToScore below 0",
        _set("percentageOfNodesToScore", -1),
        ["percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]"],
    ),
    (
        "a profile without a scheduler name",
        _set("profiles.1.schedulerName", ""),
        ["profiles[1].schedulerName: Required value"],
    ),
    (
        "two profiles with one scheduler name",
        _set("profiles.0.schedulerName", "other"),
        ["profiles[1].schedulerName: Duplicate value: profiles[0].schedulerName"],
    ),
    (
        "a profile's percentage above 100",
        _set("profiles.1.percentageOfNodesToScore", 101),
        ["profiles[1].percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"],
    ),
    (
        "a profile's percentage below 0",
        _set("profiles.1.percentageOfNodesToScore", -1),
        ["profiles[1].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]"],
    ),
    (
        "queue sort sets that differ in what they disable differ",
        _set(
            "profiles.1.plugins.queueSort",
            {"enabled": [{"name": "PrioritySort"}], "disabled": [{"name": "PrioritySort"}]},
        ),
        [
            'profiles[1].plugins.queueSort: Invalid value: config.PluginSet{Enabled:[]config.Plugin{config.Plugin{Name:"PrioritySort", Weight:0}}, '
            'Disabled:[]config.Plugin{config.Plugin{Name:"PrioritySort", Weight:0}}}: queueSort must be the same for all profiles'
        ],
    ),
    (
        "one profile without the other's queue sort",
        _set("profiles.0.plugins", None),
        [
            'profiles[1].plugins.queueSort: Invalid value: config.PluginSet{Enabled:[]config.Plugin{config.Plugin{Name:"PrioritySort", Weight:0}}, Disabled:[]config.Plugin(nil)}: queueSort must be the same for all profiles'
        ],
    ),
    (
        "an extender with a negative weight",
        _set("extenders.0.weight", -1),
        ["extenders[0].weight: Invalid value: -1: must have a positive weight applied to it"],
    ),
    (
        "an extender managing a resource twice",
        _set("extenders.0.managedResources", [{"name": DUP}, {"name": DUP}]),
        [
            'extenders[0].managedResources[1].name: Invalid value: "example.com/foo": duplicate extender managed resource name'
        ],
    ),
    (
        "two extenders that bind",
        lambda d: (
            d["extenders"][0].update(bindVerb="foo"),
            d["extenders"].append({"prioritizeVerb": "prioritize", "bindVerb": "bar", "weight": 1}),
        ),
        [
            'extenders: Invalid value: "found 2 extenders implementing bind": only one extender can implement bind'
        ],
    ),
    (
        "an extender managing a native resource",
        _set("extenders.0.managedResources", [{"name": "cpu"}]),
        ['extenders[0].managedResources[0].name: Invalid value: "cpu": is an invalid extended resource name'],
    ),
    (
        "preemption args out of range",
        _set("profiles.0.pluginConfig.0.args.minCandidateNodesPercentage", 200),
        [
            "profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 200: not in valid range [0, 100]"
        ],
    ),
    (
        "args of another plugin's type",
        _set("profiles.0.pluginConfig.0.args", {"kind": "InterPodAffinityArgs"}),
        [
            "profiles[0].pluginConfig[0].args.kind: args for plugin DefaultPreemption were not of type "
            "DefaultPreemptionArgs.kubescheduler.config.k8s.io, got InterPodAffinityArgs.kubescheduler.config.k8s.io"
        ],
    ),
    (
        "args of another version",
        _set("profiles.0.pluginConfig.0.args", {"apiVersion": "kubescheduler.config.k8s.io/v1beta3"}),
        [
            'profiles[0].pluginConfig[0].args.apiVersion: decoding args for plugin DefaultPreemption: no kind "DefaultPreemptionArgs" '
            'is registered for version "kubescheduler.config.k8s.io/v1beta3"'
        ],
    ),
    (
        "a plugin configured twice",
        _set("profiles.0.pluginConfig", [{"name": "config"}, {"name": "config"}]),
        ['profiles[0].pluginConfig[1]: Duplicate value: "config"'],
    ),
    (
        "a valid score plugin with a weight",
        _set("profiles.0.plugins.score.enabled", [{"name": "PodTopologySpread", "weight": 2}]),
        [],
    ),
    (
        "backoff must be positive",
        _set("podInitialBackoffSeconds", 0),
        [
            "podInitialBackoffSeconds: Invalid value: 0: must be greater than 0",
        ],
    ),
    (
        "the longest backoff is at least the first",
        _set("podMaxBackoffSeconds", 0),
        [
            "podMaxBackoffSeconds: Invalid value: 0: must be greater than or equal to PodInitialBackoffSeconds",
        ],
    ),
]


@pytest.mark.parametrize(("case", "change", "want"), CONFIG_CASES, ids=[c[0] for c in CONFIG_CASES])
def test_configurations_are_validated_as_upstream_validates_them(
    case: str, change: Callable[[dict[str, Any]], None], want: list[str]
) -> None:
    assert errors_of(changed(change)) == want


FRAMEWORK_CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    (
        "a plugin kubefit does not know",
        {"filter": {"enabled": [{"name": "MyPlugin"}]}},
        [
            'profiles[0].plugins.filter.enabled[0].name: FilterPlugin "MyPlugin" does not exist (not a plugin kubefit knows)'
        ],
    ),
    (
        "an unknown MultiPoint plugin",
        {"multiPoint": {"enabled": [{"name": "Coscheduling"}]}},
        [
            'profiles[0].plugins.multiPoint.enabled[0].name: PreFilterPlugin "Coscheduling" does not exist (not a plugin kubefit knows)'
        ],
    ),
    (
        "a plugin at a point it does not implement",
        {"filter": {"enabled": [{"name": "ImageLocality"}]}},
        ['profiles[0].plugins.filter.enabled[0]: plugin "ImageLocality" does not extend FilterPlugin plugin'],
    ),
    (
        "a plugin twice at one point",
        {"filter": {"enabled": [{"name": "NodeName"}, {"name": "NodeName"}]}},
        ['profiles[0].plugins.filter.enabled[1]: plugin "NodeName" already registered as "FilterPlugin"'],
    ),
    (
        "a plugin at a pod-group point it does not implement",
        {"placementScore": {"enabled": [{"name": "ImageLocality"}]}},
        [
            'profiles[0].plugins.placementScore.enabled[0]: plugin "ImageLocality" does not extend PlacementScorePlugin plugin'
        ],
    ),
    (
        "no queue sort plugin",
        {"multiPoint": {"disabled": [{"name": "PrioritySort"}]}},
        [
            'profiles[0].plugins: only one queue sort plugin required for profile with scheduler name "default-scheduler", but got 0'
        ],
    ),
    (
        "no bind plugin",
        {"bind": {"disabled": [{"name": "*"}]}},
        [
            'profiles[0].plugins: at least one bind plugin is needed for profile with scheduler name "default-scheduler"'
        ],
    ),
    (
        "disabling a plugin kubefit does not know changes nothing",
        {"filter": {"disabled": [{"name": "MyPlugin"}]}},
        [],
    ),
]


@pytest.mark.parametrize(("case", "plugins", "want"), FRAMEWORK_CASES, ids=[c[0] for c in FRAMEWORK_CASES])
def test_profiles_the_framework_cannot_build_are_refused(
    case: str, plugins: dict[str, Any], want: list[str]
) -> None:
    assert errors_of({"profiles": [{"plugins": plugins}]}) == want


def test_fit_args_are_checked_only_when_the_plugin_is_built() -> None:
    bad = {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "Nope"}}}
    message = 'profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Nope": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"'
    assert errors_of({"profiles": [{"pluginConfig": [bad]}]}) == [message]
    disabled = {"multiPoint": {"disabled": [{"name": "NodeResourcesFit"}]}}
    assert errors_of({"profiles": [{"plugins": disabled, "pluginConfig": [bad]}]}) == []


def test_dra_args_are_checked_against_their_gates() -> None:
    doc = {
        "profiles": [
            {
                "pluginConfig": [
                    {"name": "DynamicResources", "args": {"filterTimeout": "5s", "bindingTimeout": "0s"}}
                ]
            }
        ]
    }
    assert errors_of(doc) == [
        "profiles[0].pluginConfig[0].args.bindingTimeout: Invalid value: 0s: must be at least 1 second"
    ]
    gates = ALL_ON.with_values({"DRASchedulerFilterTimeout": False, "DRAResourceClaimDeviceStatus": False})
    assert errors_of(doc, gates) == [
        "profiles[0].pluginConfig[0].args.filterTimeout: Forbidden: DRASchedulingFilterTimeout feature gate is disabled",
        "profiles[0].pluginConfig[0].args.bindingTimeout: Forbidden: DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled",
    ]
    assert errors_of(doc, gates.with_values({"DynamicResourceAllocation": False})) == []


# --- plugin args validation (validation_pluginargs_test.go) ---------------------------------------

Check = Callable[[Any], list[FieldError]]
ArgsCase = tuple[str, Check, type[m.ArgsModel], dict[str, Any], list[str]]


def _preempt(p: int, a: int) -> dict[str, Any]:
    return {"minCandidateNodesPercentage": p, "minCandidateNodesAbsolute": a}


def _spread(*constraints: dict[str, Any], kind: str = "List") -> dict[str, Any]:
    return {"defaultConstraints": list(constraints), "defaultingType": kind}


def _c(skew: int = 1, key: str = "node", action: str = "DoNotSchedule", **extra: Any) -> dict[str, Any]:
    return {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": action, **extra}


def _strategy(
    kind: str, resources: tuple[tuple[str, int], ...] = (), shape: list[tuple[int, int]] | None = None
) -> dict[str, Any]:
    strategy: dict[str, Any] = {"type": kind, "resources": [{"name": n, "weight": w} for n, w in resources]}
    if shape is not None:
        strategy["requestedToCapacityRatio"] = {"shape": [{"utilization": u, "score": s} for u, s in shape]}
    return {"scoringStrategy": strategy}


def _affinity(required_key: str, preferred_values: list[str]) -> dict[str, Any]:
    return {
        "addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": required_key, "operator": "In", "values": ["label-1-val"]}]}
                ]
            },
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 1,
                    "preference": {
                        "matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": preferred_values}
                        ]
                    },
                }
            ],
        }
    }


def _binding(args: m.VolumeBindingArgs) -> list[FieldError]:
    return checks.volume_binding((), args, ALL_ON.enabled)


PREEMPT: Check = functools.partial(checks.default_preemption, ())
AFFINITY: Check = functools.partial(checks.inter_pod_affinity, ())
SPREAD: Check = functools.partial(checks.pod_topology_spread, ())
BALANCED: Check = functools.partial(checks.balanced_allocation, ())
FIT: Check = functools.partial(checks.node_resources_fit, ())
NODE_AFFINITY: Check = functools.partial(checks.node_affinity, ())
LONG = "a" * 64
KEY_RULE = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
ARGS_CASES: list[ArgsCase] = [
    ("default preemption args are valid", PREEMPT, m.DefaultPreemptionArgs, _preempt(10, 100), []),
    (
        "a negative candidate percentage",
        PREEMPT,
        m.DefaultPreemptionArgs,
        _preempt(-1, 100),
        ["minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]"],
    ),
    (
        "a candidate percentage over 100",
        PREEMPT,
        m.DefaultPreemptionArgs,
        _preempt(900, 100),
        ["minCandidateNodesPercentage: Invalid value: 900: not in valid range [0, 100]"],
    ),
    (
        "a negative candidate count",
        PREEMPT,
        m.DefaultPreemptionArgs,
        _preempt(20, -1),
        ["minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"],
    ),
    (
        "both candidate limits zero",
        PREEMPT,
        m.DefaultPreemptionArgs,
        _preempt(0, 0),
        [
            "minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute",
            "minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage",
        ],
    ),
    (
        "both candidate limits negative",
        PREEMPT,
        m.DefaultPreemptionArgs,
        _preempt(-1, -1),
        [
            "minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]",
            "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)",
        ],
    ),
    ("a hard pod affinity weight of 10", AFFINITY, m.InterPodAffinityArgs, {"hardPodAffinityWeight": 10}, []),
    (
        "a hard pod affinity weight below 0",
        AFFINITY,
        m.InterPodAffinityArgs,
        {"hardPodAffinityWeight": -1},
        ["hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]"],
    ),
    (
        "a hard pod affinity weight above 100",
        AFFINITY,
        m.InterPodAffinityArgs,
        {"hardPodAffinityWeight": 101},
        ["hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"],
    ),
    (
        "valid default constraints",
        SPREAD,
        m.PodTopologySpreadArgs,
        _spread(_c(), _c(2, "zone", "ScheduleAnyway")),
        [],
    ),
    (
        "a max skew below zero",
        SPREAD,
        m.PodTopologySpreadArgs,
        _spread(_c(-1)),
        ["defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf)"],
    ),
    (
        "an empty topology key",
        SPREAD,
        m.PodTopologySpreadArgs,
        _spread(_c(key="")),
        ["defaultConstraints[0].topologyKey: Required value: can not be empty"],
    ),
    (
        "an empty whenUnsatisfiable",
        SPREAD,
        m.PodTopologySpreadArgs,
        _spread(_c(action="")),
        ["defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty"],
    ),
    (
        "an unsupported whenUnsatisfiable",
        SPREAD,
        m.PodTopologySpreadArgs,
        _spread(_c(action="unknown action")),
        [
            'defaultConstraints[0].whenUnsatisfiable: Unsupported value: "unknown action": supported values: "DoNotSchedule", "ScheduleAnyway"'
        ],
    ),
    (
        "repeated constraints",
        SPREAD,
        m.PodTopologySpreadArgs,
        _spread(_c(), _c(2)),
        ['defaultConstraints[1]: Duplicate value: "{node, DoNotSchedule}"'],
    ),
    (
        "a constraint with a label selector",
        SPREAD,
        m.PodTopologySpreadArgs,
        _spread(_c(key="key", labelSelector={"matchLabels": {"a": "b"}})),
        [
            "defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod"
        ],
    ),
    ("List defaulting without constraints", SPREAD, m.PodTopologySpreadArgs, _spread(), []),
    ("System defaulting", SPREAD, m.PodTopologySpreadArgs, _spread(kind="System"), []),
    (
        "an unknown defaulting type",
        SPREAD,
        m.PodTopologySpreadArgs,
        _spread(kind="unknown"),
        ['defaultingType: Unsupported value: "unknown": supported values: "System", "List"'],
    ),
    (
        "System defaulting with constraints",
        SPREAD,
        m.PodTopologySpreadArgs,
        _spread(_c(key="key"), kind="System"),
        ['defaultingType: Invalid value: "System": when .defaultConstraints are not empty'],
    ),
    (
        "balanced allocation over cpu and memory",
        BALANCED,
        m.NodeResourcesBalancedAllocationArgs,
        {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]},
        [],
    ),
    (
        "a balanced allocation weight other than 1",
        BALANCED,
        m.NodeResourcesBalancedAllocationArgs,
        {"resources": [{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}]},
        ["resources[0].weight: Invalid value: 2: must be 1"],
    ),
    (
        "a resource balanced twice",
        BALANCED,
        m.NodeResourcesBalancedAllocationArgs,
        {"resources": [{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": 1}]},
        ['resources[1].name: Duplicate value: "cpu"'],
    ),
    ("no added affinity", NODE_AFFINITY, m.NodeAffinityArgs, {}, []),
    ("valid added affinity", NODE_AFFINITY, m.NodeAffinityArgs, _affinity("label-1", ["node-1"]), []),
    (
        "invalid added affinity",
        NODE_AFFINITY,
        m.NodeAffinityArgs,
        _affinity("invalid/label/key", ["node-1", "node-2"]),
        [
            'addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key: Invalid value: "invalid/label/key": '
            "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
            "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') "
            "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
            'addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchFields[0].values: Invalid value: []string{"node-1", "node-2"}: must have one element',
        ],
    ),
    (
        "ignored resources with a domain",
        FIT,
        m.NodeResourcesFitArgs,
        {"ignoredResources": ["example.com"], **_strategy("LeastAllocated", (("cpu", 1),))},
        [],
    ),
    (
        "an ignored resource name part too long",
        FIT,
        m.NodeResourcesFitArgs,
        {"ignoredResources": [f"longvalue{LONG}"]},
        [f'ignoredResources[0]: Invalid value: "longvalue{LONG}": name part must be no more than 63 bytes'],
    ),
    (
        "an ignored resource without a name part",
        FIT,
        m.NodeResourcesFitArgs,
        {"ignoredResources": ["example.com/"]},
        [
            'ignoredResources[0]: Invalid value: "example.com/": name part must be non-empty',
            f'ignoredResources[0]: Invalid value: "example.com/": name part {KEY_RULE}',
        ],
    ),
    (
        "an ignored resource group",
        FIT,
        m.NodeResourcesFitArgs,
        {"ignoredResourceGroups": ["example.com"]},
        [],
    ),
    (
        "an ignored resource group name too long",
        FIT,
        m.NodeResourcesFitArgs,
        {"ignoredResourceGroups": [LONG]},
        [f'ignoredResourceGroups[0]: Invalid value: "{LONG}": name part must be no more than 63 bytes'],
    ),
    (
        "an ignored resource group with a slash",
        FIT,
        m.NodeResourcesFitArgs,
        {"ignoredResourceGroups": ["example.com/aa"]},
        [
            "ignoredResourceGroups[0]: Invalid value: \"example.com/aa\": resource group name can't contain '/'"
        ],
    ),
    (
        "least allocated over valid resources",
        FIT,
        m.NodeResourcesFitArgs,
        _strategy(
            "LeastAllocated",
            (
                ("cpu", 1),
                ("memory", 10),
            ),
        ),
        [],
    ),
    (
        "a least-allocated weight below the minimum",
        FIT,
        m.NodeResourcesFitArgs,
        _strategy("LeastAllocated", (("cpu", 0),)),
        [
            "scoringStrategy.resources[0].weight: Invalid value: 0: resource weight of cpu not in valid range (0, 100]"
        ],
    ),
    (
        "a most-allocated weight above the maximum",
        FIT,
        m.NodeResourcesFitArgs,
        _strategy("MostAllocated", (("cpu", 101),)),
        [
            "scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]"
        ],
    ),
    (
        "several invalid weights",
        FIT,
        m.NodeResourcesFitArgs,
        _strategy(
            "MostAllocated",
            (
                ("cpu", 0),
                ("memory", 101),
            ),
        ),
        [
            "scoringStrategy.resources[0].weight: Invalid value: 0: resource weight of cpu not in valid range (0, 100]",
            "scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of memory not in valid range (0, 100]",
        ],
    ),
    (
        "a ratio strategy without shape points",
        FIT,
        m.NodeResourcesFitArgs,
        _strategy("RequestedToCapacityRatio", shape=[]),
        [
            "scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point must be specified"
        ],
    ),
    (
        "a ratio strategy without its parameters",
        FIT,
        m.NodeResourcesFitArgs,
        _strategy("RequestedToCapacityRatio"),
        [
            "scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point must be specified"
        ],
    ),
    (
        "a valid ratio shape",
        FIT,
        m.NodeResourcesFitArgs,
        _strategy("RequestedToCapacityRatio", shape=[(30, 3)]),
        [],
    ),
    (
        "a utilization below 0",
        FIT,
        m.NodeResourcesFitArgs,
        _strategy("RequestedToCapacityRatio", shape=[(-1, 3)]),
        [
            "scoringStrategy.requestedToCapacityRatio.shape[0].utilization: Invalid value: -1: not in valid range [0, 100]"
        ],
    ),
    (
        "a utilization above 100",
        FIT,
        m.NodeResourcesFitArgs,
        _strategy("RequestedToCapacityRatio", shape=[(101, 3)]),
        [
            "scoringStrategy.requestedToCapacityRatio.shape[0].utilization: Invalid value: 101: not in valid range [0, 100]"
        ],
    ),
    (
        "repeated utilizations",
        FIT,
        m.NodeResourcesFitArgs,
        _strategy("RequestedToCapacityRatio", shape=[(10, 3), (10, 3)]),
        [
            "scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 10: values must be sorted in increasing order"
        ],
    ),
    (
        "increasing utilizations",
        FIT,
        m.NodeResourcesFitArgs,
        _strategy("RequestedToCapacityRatio", shape=[(10, 3), (20, 3), (30, 3)]),
        [],
    ),
    (
        "decreasing utilizations",
        FIT,
        m.NodeResourcesFitArgs,
        _strategy("RequestedToCapacityRatio", shape=[(10, 3), (20, 3), (15, 3)]),
        [
            "scoringStrategy.requestedToCapacityRatio.shape[2].utilization: Invalid value: 15: values must be sorted in increasing order"
        ],
    ),
    (
        "a score below 0",
        FIT,
        m.NodeResourcesFitArgs,
        _strategy("RequestedToCapacityRatio", shape=[(10, -1)]),
        [
            "scoringStrategy.requestedToCapacityRatio.shape[0].score: Invalid value: -1: not in valid range [0, 10]"
        ],
    ),
    (
        "a score above 10",
        FIT,
        m.NodeResourcesFitArgs,
        _strategy("RequestedToCapacityRatio", shape=[(10, 11)]),
        [
            "scoringStrategy.requestedToCapacityRatio.shape[0].score: Invalid value: 11: not in valid range [0, 10]"
        ],
    ),
    (
        "a bind timeout of zero",
        _binding,
        m.VolumeBindingArgs,
        {"bindTimeoutSeconds": 0, "shape": [{"utilization": 0, "score": 0}]},
        [],
    ),
    (
        "a negative bind timeout",
        _binding,
        m.VolumeBindingArgs,
        {"bindTimeoutSeconds": -10, "shape": [{"utilization": 0, "score": 0}]},
        [
            "bindTimeoutSeconds: Invalid value: -10: invalid BindTimeoutSeconds, should not be a negative value"
        ],
    ),
    (
        "an empty volume shape",
        _binding,
        m.VolumeBindingArgs,
        {"bindTimeoutSeconds": 10, "shape": []},
        ["shape: Required value: at least one point must be specified"],
    ),
    (
        "volume shape points out of order",
        _binding,
        m.VolumeBindingArgs,
        {"bindTimeoutSeconds": 10, "shape": [{"utilization": 3, "score": 3}, {"utilization": 1, "score": 1}]},
        ["shape[1].utilization: Invalid value: 1: values must be sorted in increasing order"],
    ),
    (
        "volume shape points out of range",
        _binding,
        m.VolumeBindingArgs,
        {
            "shape": [
                {"utilization": -1, "score": 1},
                {"utilization": 10, "score": -1},
                {"utilization": 20, "score": 11},
                {"utilization": 101, "score": 1},
            ]
        },
        [
            "shape[0].utilization: Invalid value: -1: not in valid range [0, 100]",
            "shape[1].score: Invalid value: -1: not in valid range [0, 10]",
            "shape[2].score: Invalid value: 11: not in valid range [0, 10]",
            "shape[3].utilization: Invalid value: 101: not in valid range [0, 100]",
        ],
    ),
]


@pytest.mark.parametrize(
    ("case", "check", "kind", "args", "want"), ARGS_CASES, ids=[c[0] for c in ARGS_CASES]
)
def test_plugin_args_are_checked_as_upstream_checks_them(
    case: str, check: Check, kind: type[m.ArgsModel], args: dict[str, Any], want: list[str]
) -> None:
    errors = check(kind.model_validate(args))
    assert [f"{format_path(e.path)}: {e.message}" for e in errors] == want


def test_a_volume_shape_without_its_gate_is_refused() -> None:
    args = m.VolumeBindingArgs.model_validate(
        {"shape": [{"utilization": 1, "score": 1}, {"utilization": 3, "score": 3}]}
    )
    gates = FeatureGates(frozenset({"StorageCapacityScoring"}))
    (error,) = checks.volume_binding((), args, gates.enabled)
    assert error == FieldError(
        ("shape",),
        "Invalid value: []config.UtilizationShapePoint{config.UtilizationShapePoint{Utilization:1, Score:1}, "
        "config.UtilizationShapePoint{Utilization:3, Score:3}}: unexpected field `shape`, remove it or turn on the feature gate "
        "StorageCapacityScoring",
    )


NODE_SELECTOR_CASES = [
    (
        "an unknown operator",
        {"key": "a", "operator": "Has"},
        [
            'matchExpressions[0].operator: Unsupported value: "Has": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"'
        ],
    ),
    (
        "Exists with values",
        {"key": "a", "operator": "Exists", "values": ["x"]},
        [
            'matchExpressions[0].values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist'
        ],
    ),
    (
        "Gt with a word",
        {"key": "a", "operator": "Gt", "values": ["one", "2"]},
        [
            "matchExpressions[0].values: Invalid value: []string{\"one\", \"2\"}: for 'Gt', 'Lt' operators, exactly one value is required",
            "matchExpressions[0].values[0]: Invalid value: \"one\": for 'Gt', 'Lt' operators, the value must be an integer",
        ],
    ),
    ("Lt with an integer", {"key": "a", "operator": "Lt", "values": ["5"]}, []),
]


@pytest.mark.parametrize(
    ("case", "requirement", "want"), NODE_SELECTOR_CASES, ids=[c[0] for c in NODE_SELECTOR_CASES]
)
def test_added_affinity_requirements_are_parsed_as_the_scheduler_parses_them(
    case: str, requirement: dict[str, Any], want: list[str]
) -> None:
    args = m.NodeAffinityArgs.model_validate(
        {
            "addedAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [requirement]}]
                }
            }
        }
    )
    prefix = "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
    assert [
        f"{format_path(e.path)}: {e.message}".removeprefix(prefix) for e in checks.node_affinity((), args)
    ] == want


# --- Go durations ---------------------------------------------------------------------------------

DURATIONS = [
    ("0", 0),
    ("10s", 10 * 10**9),
    ("1m30s", 90 * 10**9),
    ("1.5h", 5400 * 10**9),
    ("-1s", -(10**9)),
    (".5ms", 500_000),
    ("2µs", 2000),
    ("1h2m3.004s", 3723004000000),
]


@pytest.mark.parametrize(("text", "ns"), DURATIONS)
def test_durations_are_read_as_go_reads_them(text: str, ns: int) -> None:
    assert parse(text) == ns


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", 'time: invalid duration ""'),
        ("10", 'time: missing unit in duration "10"'),
        ("3d", 'time: unknown unit "d" in duration "3d"'),
        (".s", 'time: invalid duration ".s"'),
    ],
)
def test_bad_durations_get_gos_message(text: str, message: str) -> None:
    with pytest.raises(DurationError) as info:
        parse(text)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("ns", "text"),
    [
        (0, "0s"),
        (1, "1ns"),
        (1500, "1.5µs"),
        (500 * 10**6, "500ms"),
        (60 * 10**9, "1m0s"),
        (3600 * 10**9, "1h0m0s"),
        (-(10**9), "-1s"),
    ],
)
def test_durations_print_as_go_prints_them(ns: int, text: str) -> None:
    assert format_duration(ns) == text


# --- reading files and the command line -----------------------------------------------------------

BAD = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - name: InterPodAffinity
    args:
      hardPodAffinityWeight: 200
"""


def test_a_bad_configuration_is_an_input_error_naming_file_line_object_and_field() -> None:
    with pytest.raises(InputError) as info:
        configuration(load_text(BAD, "sched.yaml"))
    assert [str(p) for p in info.value.problems] == [
        "sched.yaml:7: KubeSchedulerConfiguration/<unnamed>: profiles[0].pluginConfig[0].args.hardPodAffinityWeight: "
        "Invalid value: 200: not in valid range [0, 100]"
    ]


def test_two_configurations_are_an_input_error() -> None:
    text = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    with pytest.raises(
        InputError, match=r"reads one KubeSchedulerConfiguration; the first is at two\.yaml:1"
    ):
        configuration(load_text(text + "---\n" + text, "two.yaml"))


def test_unknown_fields_are_warnings_and_errors_when_strict() -> None:
    text = BAD.replace("200", "2\n      bogus: 1").replace(
        "profiles:", "healthzBindAddress: 0.0.0.0:10251\nprofiles:"
    )
    loaded = load_text(text, "w.yaml")
    assert sorted(str(w) for w in loaded.warnings) == [
        'w.yaml:3: KubeSchedulerConfiguration/<unnamed>: healthzBindAddress: warning: unknown field "healthzBindAddress"',
        'w.yaml:9: KubeSchedulerConfiguration/<unnamed>: profiles[0].pluginConfig[0].args.bogus: warning: unknown field "bogus"',
    ]
    assert configuration(loaded).profiles[0].args["InterPodAffinity"] == plugin_args.InterPodAffinityArgs(
        2, False
    )
    with pytest.raises(InputError):
        load_text(text, "w.yaml", strict=True)


def test_scalars_are_as_strict_as_gos_decoder() -> None:
    with pytest.raises(InputError) as info:
        load_text(BAD.replace("200", '"5"'), "s.yaml")
    (problem,) = info.value.problems
    assert str(problem).startswith(
        "s.yaml:7: KubeSchedulerConfiguration/<unnamed>: profiles[0].pluginConfig[0].args.hardPodAffinityWeight: "
    )


def test_kubefit_validate_prints_one_line_per_problem_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sched.yaml"
    path.write_text(BAD)
    assert main(["validate", "-f", str(path), "-o", "json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"{path}:7: KubeSchedulerConfiguration/<unnamed>: profiles[0].pluginConfig[0].args.hardPodAffinityWeight: "
        "Invalid value: 200: not in valid range [0, 100]"
    ]


def test_kubefit_validate_accepts_a_named_valid_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = {**HEADER, "metadata": {"name": "sched"}, **VALID}
    path = tmp_path / "ok.yaml"
    path.write_text(yaml.safe_dump(doc))
    assert main(["validate", "-f", str(path), "-o", "json"]) == 0
    assert capsys.readouterr().err == ""


def test_kubefit_validate_names_a_profile_the_framework_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "- plugins:\n    filter:\n      enabled:\n      - name: NodeName\n      - name: NodeName\n"
    )
    assert main(["validate", "-f", str(path), "-o", "json"]) == 2
    assert capsys.readouterr().err.strip() == (
        f'{path}:8: KubeSchedulerConfiguration/<unnamed>: profiles[0].plugins.filter.enabled[1]: plugin "NodeName" '
        'already registered as "FilterPlugin"'
    )
