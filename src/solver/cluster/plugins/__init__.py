"""The in-tree plugins kubefit runs, one module (or package) each, as upstream lays them out.

`REGISTRY` maps a plugin name to `module:Class`; a class is imported when a profile uses it.
"""

from __future__ import annotations

import importlib

from ..framework import Plugin

REGISTRY: dict[str, str] = {
    "SchedulingGates": "scheduling_gates:SchedulingGates",
    "PrioritySort": "queue_sort:PrioritySort",
    "NodeUnschedulable": "node_unschedulable:NodeUnschedulable",
    "NodeName": "node_name:NodeName",
    "TaintToleration": "taint_toleration:TaintToleration",
    "NodeAffinity": "node_affinity:NodeAffinity",
    "NodePorts": "node_ports:NodePorts",
    "NodeResourcesFit": "noderesources.fit:Fit",
    "NodeResourcesBalancedAllocation": "noderesources.balanced_allocation:BalancedAllocation",
    "PodTopologySpread": "podtopologyspread.plugin:PodTopologySpread",
    "InterPodAffinity": "interpodaffinity.plugin:InterPodAffinity",
    "ImageLocality": "image_locality:ImageLocality",
    "DynamicResources": "dynamic_resources:DynamicResources",
    "DefaultPreemption": "default_preemption:DefaultPreemption",
    "GangScheduling": "gang_scheduling:GangScheduling",
    "TopologyPlacement": "topology_placement:TopologyPlacement",
    "PodGroupPodsCount": "podgroup_pods_count:PodGroupPodsCount",
}


def plugin_class(name: str) -> type[Plugin]:
    target = REGISTRY[name]
    module, _, attr = target.partition(":")
    cls: type[Plugin] = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    return cls
