"""The in-tree scheduler plugins kube-scheduler knows, and the extension points each implements.

Which points a plugin implements decides where MultiPoint configuration enables it (upstream
checks which framework interfaces the plugin type implements). `MODELLED` are the plugins
kubefit runs; the others are accepted in a configuration and have nothing to act on in the
objects kubefit reads (volumes, node-declared features, binding).
"""

from __future__ import annotations

from .points import (
    BIND,
    FILTER,
    PLACEMENT_FEASIBLE,
    PLACEMENT_GENERATE,
    PLACEMENT_SCORE,
    POD_GROUP_POST_FILTER,
    POST_FILTER,
    PRE_BIND,
    PRE_ENQUEUE,
    PRE_FILTER,
    PRE_SCORE,
    QUEUE_SORT,
    RESERVE,
    SCORE,
)

SCHEDULING_GATES = "SchedulingGates"
PRIORITY_SORT = "PrioritySort"
NODE_UNSCHEDULABLE = "NodeUnschedulable"
NODE_NAME = "NodeName"
TAINT_TOLERATION = "TaintToleration"
NODE_AFFINITY = "NodeAffinity"
NODE_PORTS = "NodePorts"
NODE_RESOURCES_FIT = "NodeResourcesFit"
VOLUME_RESTRICTIONS = "VolumeRestrictions"
NODE_VOLUME_LIMITS = "NodeVolumeLimits"
VOLUME_BINDING = "VolumeBinding"
VOLUME_ZONE = "VolumeZone"
POD_TOPOLOGY_SPREAD = "PodTopologySpread"
INTER_POD_AFFINITY = "InterPodAffinity"
DYNAMIC_RESOURCES = "DynamicResources"
DEFAULT_PREEMPTION = "DefaultPreemption"
BALANCED_ALLOCATION = "NodeResourcesBalancedAllocation"
IMAGE_LOCALITY = "ImageLocality"
DEFAULT_BINDER = "DefaultBinder"
GANG_SCHEDULING = "GangScheduling"
NODE_DECLARED_FEATURES = "NodeDeclaredFeatures"
TOPOLOGY_PLACEMENT = "TopologyPlacement"
POD_GROUP_PODS_COUNT = "PodGroupPodsCount"

POINTS_OF: dict[str, frozenset[str]] = {
    SCHEDULING_GATES: frozenset({PRE_ENQUEUE}),
    PRIORITY_SORT: frozenset({QUEUE_SORT}),
    NODE_UNSCHEDULABLE: frozenset({FILTER}),
    NODE_NAME: frozenset({FILTER}),
    TAINT_TOLERATION: frozenset({FILTER, PRE_SCORE, SCORE}),
    NODE_AFFINITY: frozenset({PRE_FILTER, FILTER, PRE_SCORE, SCORE}),
    NODE_PORTS: frozenset({PRE_FILTER, FILTER}),
    NODE_RESOURCES_FIT: frozenset({PRE_FILTER, FILTER, PRE_SCORE, SCORE, PLACEMENT_SCORE}),
    VOLUME_RESTRICTIONS: frozenset({PRE_FILTER, FILTER}),
    NODE_VOLUME_LIMITS: frozenset({PRE_FILTER, FILTER}),
    VOLUME_BINDING: frozenset({PRE_FILTER, FILTER, RESERVE, PRE_BIND, PRE_SCORE, SCORE}),
    VOLUME_ZONE: frozenset({PRE_FILTER, FILTER}),
    POD_TOPOLOGY_SPREAD: frozenset({PRE_FILTER, FILTER, PRE_SCORE, SCORE}),
    INTER_POD_AFFINITY: frozenset({PRE_FILTER, FILTER, PRE_SCORE, SCORE}),
    DYNAMIC_RESOURCES: frozenset({PRE_ENQUEUE, PRE_FILTER, FILTER, POST_FILTER, SCORE, RESERVE, PRE_BIND}),
    DEFAULT_PREEMPTION: frozenset({PRE_ENQUEUE, POST_FILTER, POD_GROUP_POST_FILTER}),
    BALANCED_ALLOCATION: frozenset({PRE_SCORE, SCORE}),
    IMAGE_LOCALITY: frozenset({SCORE}),
    DEFAULT_BINDER: frozenset({BIND}),
    GANG_SCHEDULING: frozenset({PRE_ENQUEUE, PLACEMENT_FEASIBLE}),
    NODE_DECLARED_FEATURES: frozenset({PRE_FILTER, FILTER}),
    TOPOLOGY_PLACEMENT: frozenset({PLACEMENT_GENERATE}),
    POD_GROUP_PODS_COUNT: frozenset({PLACEMENT_SCORE}),
}

KNOWN = frozenset(POINTS_OF)

# Plugins with nothing to act on in what kubefit reads: enabling or disabling them changes nothing.
INERT = frozenset(
    {
        VOLUME_RESTRICTIONS,
        NODE_VOLUME_LIMITS,
        VOLUME_BINDING,
        VOLUME_ZONE,
        DEFAULT_BINDER,
        NODE_DECLARED_FEATURES,
    }
)
MODELLED = KNOWN - INERT
