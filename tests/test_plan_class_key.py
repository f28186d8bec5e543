"""The planner's pod classes (solver/cluster/plan/classes.py) merge pods it treats as interchangeable: every
field of a Pod is either part of the class key or ignored for a stated reason, so that a field the
scheduler starts to read (a new one in the client's models, or a new fact of the scheduler's Pod) cannot
merge two different pods into one class unnoticed.

Two levels: the scheduler's facts (model.cluster.facts.Pod), whose fields are the key's or ignored; and
the Pod as the Kubernetes client's models define it, each field mapped to the facts (or the unit's claims
and gang) that carry it into the key, or ignored. Then pods that differ in one field are built and
classed, to show the table says what the planner does."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import kubernetes.client.models as k8s
import pytest
import yaml
from pydantic import BaseModel

from kubefit.model.cluster.facts import Pod
from kubefit.solver.cluster.plan.classes import IGNORED_FIELDS, KEY_FIELDS, classes
from kubefit.solver.cluster.plan.static import setup
from kubefit.translate.dra.build import build
from kubefit.translate.kube.model_fields import wire_names
from kubefit.translate.loader import load_text

# Where a field reaches the class key besides the scheduler's facts: the unit's pending claims (their
# shape, DraContext.signature; a pod whose claims are shared or allocated is a class alone) and its gang.
CLAIMS = "unit: claims"
GANG = "unit: gang"
UNIT_PARTS = (CLAIMS, GANG)

# A field of the Pod -> the facts fields (or unit parts) that carry it, or `ignored: why`.
POD = {
    "apiVersion": "ignored: every pod is a core v1 Pod",
    "kind": "ignored: every pod is a core v1 Pod",
}
METADATA = {
    "annotations": "ignored: no scheduler plugin kubefit emulates reads a pod's annotations",
    "creationTimestamp": "ignored: the queue order only; a class keeps its pods in that order, the plan counts",
    "deletionGracePeriodSeconds": "ignored: how a deleted pod stops, not where it goes",
    "deletionTimestamp": ("terminating",),
    "finalizers": "ignored: how a deleted pod goes away",
    "generateName": "ignored: the pod's identity",
    "generation": "ignored: bookkeeping of the API server",
    "labels": ("labels", "default_spread_selector"),
    "managedFields": "ignored: bookkeeping of the API server",
    "name": ("name",),
    "namespace": ("namespace",),
    "ownerReferences": ("default_spread_selector",),
    "resourceVersion": "ignored: bookkeeping of the API server",
    "selfLink": "ignored: bookkeeping of the API server",
    "uid": ("uid",),
}
SPEC = {
    "activeDeadlineSeconds": "ignored: the kubelet's, once the pod runs",
    "affinity": (
        "required_node_affinity",
        "preferred_node_affinity",
        "required_affinity",
        "required_anti_affinity",
        "preferred_affinity",
        "preferred_anti_affinity",
    ),
    "automountServiceAccountToken": "ignored: the kubelet's",
    "containers": "see CONTAINER",
    "dnsConfig": "ignored: the kubelet's",
    "dnsPolicy": "ignored: the kubelet's",
    "enableServiceLinks": "ignored: the kubelet's",
    "ephemeralContainers": "ignored: added to running pods only; the scheduler counts none",
    "evictionResponders": "ignored: read when the pod is evicted, not when it is placed",
    "hostAliases": "ignored: the kubelet's",
    "hostIPC": "ignored: the kubelet's",
    "hostNetwork": "ignored: NodePorts reads the containers' hostPorts (the API server fills them in for "
    "host-network pods)",
    "hostPID": "ignored: the kubelet's",
    "hostUsers": "ignored: the kubelet's",
    "hostname": "ignored: the kubelet's",
    "hostnameOverride": "ignored: the kubelet's",
    "imagePullSecrets": "ignored: the kubelet's",
    "initContainers": "see CONTAINER",
    "nodeName": ("node_name",),
    "nodeSelector": ("node_selector",),
    "os": "ignored: no scheduler plugin reads it (nodes are chosen by their labels)",
    "overhead": ("requests", "score_requests"),
    "preemptionPolicy": ("preemption_policy",),
    "priority": ("priority",),
    "priorityClassName": ("priority", "preemption_policy"),
    "readinessGates": "ignored: the kubelet's",
    "resourceClaims": (CLAIMS,),
    "resources": ("requests", "score_requests"),
    "restartPolicy": "ignored: the kubelet's",
    "runtimeClassName": "ignored: the RuntimeClass admission controller writes its overhead, node selector "
    "and tolerations into the pod, which the key holds",
    "schedulerName": ("scheduler_name",),
    "schedulingGates": ("scheduling_gates",),
    "schedulingGroup": ("pod_group", GANG),
    "securityContext": "ignored: the kubelet's",
    "serviceAccount": "ignored: the kubelet's",
    "serviceAccountName": "ignored: the kubelet's",
    "setHostnameAsFQDN": "ignored: the kubelet's",
    "shareProcessNamespace": "ignored: the kubelet's",
    "subdomain": "ignored: the kubelet's",
    "terminationGracePeriodSeconds": "ignored: how the pod stops, not where it goes",
    "tolerations": ("tolerations",),
    "topologySpreadConstraints": ("spread_constraints",),
    "volumes": ("images",),
}
# Containers and init containers alike (a V1Container each).
CONTAINER = {
    "args": "ignored: the kubelet's",
    "command": "ignored: the kubelet's",
    "env": "ignored: the kubelet's",
    "envFrom": "ignored: the kubelet's",
    "image": ("images",),
    "imagePullPolicy": "ignored: the kubelet's",
    "lifecycle": "ignored: the kubelet's",
    "livenessProbe": "ignored: the kubelet's",
    "name": "ignored: which containers use a claim enters the key by their count, in the claims' shape",
    "ports": ("ports",),
    "readinessProbe": "ignored: the kubelet's",
    "resizePolicy": "ignored: the kubelet's",
    "resources": "see RESOURCES",
    "restartPolicy": ("requests", "score_requests", "ports"),
    "restartPolicyRules": "ignored: the kubelet's",
    "securityContext": "ignored: the kubelet's",
    "startupProbe": "ignored: the kubelet's",
    "stdin": "ignored: the kubelet's",
    "stdinOnce": "ignored: the kubelet's",
    "terminationMessagePath": "ignored: the kubelet's",
    "terminationMessagePolicy": "ignored: the kubelet's",
    "tty": "ignored: the kubelet's",
    "volumeDevices": "ignored: the kubelet's",
    "volumeMounts": "ignored: the kubelet's",
    "workingDir": "ignored: the kubelet's",
}
RESOURCES = {
    "claims": (CLAIMS,),
    # A limit stands in for a request the container does not write. Limits themselves are the kubelet's
    # (QoS class, exclusive CPUs): its check after the plan reads them pod by pod (plan/kubelet.py).
    "limits": ("requests", "score_requests"),
    "requests": ("requests", "score_requests"),
}
STATUS = {
    "allocatedResources": "ignored: resources of a running pod's containers",
    "conditions": ("disruption_target",),
    "containerStatuses": "ignored: a running pod's",
    "ephemeralContainerStatuses": "ignored: a running pod's",
    "extendedResourceClaimStatus": (CLAIMS,),
    "hostIP": "ignored: a running pod's",
    "hostIPs": "ignored: a running pod's",
    "initContainerStatuses": "ignored: a running pod's",
    "message": "ignored: a message for people",
    "nodeAllocatableResourceClaimStatuses": (CLAIMS,),
    "nominatedNodeName": ("nominated_node",),
    "observedGeneration": "ignored: bookkeeping of the kubelet",
    "phase": "ignored: a pod that has terminated is not planned; every pending pod is Pending",
    "podIP": "ignored: a running pod's",
    "podIPs": "ignored: a running pod's",
    "qosClass": "ignored: the kubelet's, computed from the containers' resources",
    "reason": "ignored: a message for people",
    "resize": "ignored: a running pod's",
    "resourceClaimStatuses": (CLAIMS,),
    "resources": "ignored: a running pod's",
    "startTime": ("start_time",),
    "volumeHealth": "ignored: a running pod's",
}
TABLES: dict[str, tuple[type[BaseModel], dict[str, Any]]] = {
    "": (k8s.V1Pod, POD),
    "metadata.": (k8s.V1ObjectMeta, METADATA),
    "spec.": (k8s.V1PodSpec, SPEC),
    "spec.containers[].": (k8s.V1Container, CONTAINER),
    "spec.containers[].resources.": (k8s.V1ResourceRequirements, RESOURCES),
    "status.": (k8s.V1PodStatus, STATUS),
}
NESTED = {"metadata", "spec", "status"}  # the Pod's own fields, classified by their own fields


def test_every_fact_of_the_scheduler_pod_is_in_the_key_or_ignored() -> None:
    fields = {f.name for f in dataclasses.fields(Pod)}
    key, ignored = set(KEY_FIELDS), set(IGNORED_FIELDS)
    assert not key & ignored, f"both in the key and ignored: {sorted(key & ignored)}"
    assert fields - key - ignored == set(), "Pod facts neither in the class key nor ignored (say why)"
    assert (key | ignored) - fields == set(), "the key or the ignored list names no Pod fact"
    assert len(KEY_FIELDS) == len(key)
    assert all(len(why.split()) >= 4 for why in IGNORED_FIELDS.values())


@pytest.mark.parametrize("prefix", TABLES)
def test_every_field_of_the_pod_is_carried_into_the_key_or_ignored(prefix: str) -> None:
    model, table = TABLES[prefix]
    names = set(wire_names(model)) - (NESTED if not prefix else set())
    unlisted = sorted(names - set(table))
    assert not unlisted, (
        f"{model.__name__}: fields neither carried into the class key nor ignored: {unlisted}"
    )
    assert not set(table) - names, f"{model.__name__} has no field {sorted(set(table) - names)}"
    facts = {f.name for f in dataclasses.fields(Pod)}
    for name, where in table.items():
        path = f"{prefix}{name}"
        if isinstance(where, str):
            assert where.startswith(("ignored: ", "see ")), f"{path}: {where!r}"
            continue
        for part in where:
            assert part in facts or part in UNIT_PARTS, f"{path}: {part} is no Pod fact"
            if part in facts and part not in KEY_FIELDS:
                # The fact is ignored: the field is too, for the fact's stated reason.
                assert part in IGNORED_FIELDS, path


# --- what the planner does --------------------------------------------------------------------------------


def _pod(name: str) -> dict[str, Any]:
    container = {
        "name": "main",
        "image": "registry.example.com/app:1",
        "resources": {"requests": {"cpu": "1", "memory": "1Gi"}},
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "a"}},
        "spec": {"containers": [container]},
    }


def _classes(docs: list[dict[str, Any]]) -> list[list[str]]:
    problem = build(load_text(yaml.safe_dump_all(docs), "<test>")).problem
    run = setup(problem)
    return [[p.name for p in c.pods] for c in classes(problem, run.pods, problem.units, run.dra)]


def _two(change: dict[str, Any]) -> list[list[str]]:
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}},
        "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"}},
    }
    first, second = _pod("first"), _pod("second")
    for path, value in change.items():
        target = second
        *parents, last = path.split(".")
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[last] = copy.deepcopy(value)
    return _classes([node, first, second])


# Pods that differ in one field the key carries: two classes.
DIFFERENT = {
    "metadata.labels": {"metadata.labels": {"app": "b"}},
    "metadata.namespace": {"metadata.namespace": "other"},
    "spec.priority": {"spec.priority": 7},
    "spec.preemptionPolicy": {"spec.preemptionPolicy": "Never"},
    "spec.nodeSelector": {"spec.nodeSelector": {"kubernetes.io/hostname": "node-1"}},
    "spec.tolerations": {"spec.tolerations": [{"key": "gpu", "operator": "Exists"}]},
    "spec.affinity": {
        "spec.affinity": {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "a"}}, "topologyKey": "kubernetes.io/hostname"}
                ]
            }
        }
    },
    "spec.topologySpreadConstraints": {
        "spec.topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": "kubernetes.io/hostname",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "a"}},
            }
        ]
    },
    "spec.schedulingGates": {"spec.schedulingGates": [{"name": "example.com/wait"}]},
    "spec.overhead": {"spec.overhead": {"cpu": "250m"}},
    "spec.resources": {"spec.resources": {"requests": {"cpu": "2", "memory": "1Gi"}}},
    "spec.initContainers": {
        "spec.initContainers": [
            {"name": "init", "image": "registry.example.com/app:1", "resources": {"requests": {"cpu": "3"}}}
        ]
    },
    "spec.containers[].image": {"spec.containers.0.image": "registry.example.com/other:2"},
    "spec.containers[].ports": {"spec.containers.0.ports": [{"containerPort": 80, "hostPort": 8080}]},
    "spec.containers[].resources.requests": {"spec.containers.0.resources": {"requests": {"cpu": "2"}}},
    "spec.containers[].resources.limits": {
        "spec.containers.0.resources.limits": {"ephemeral-storage": "1Gi"}
    },
}

# Pods that differ in one field the key ignores: one class.
SAME = {
    "metadata.uid": {"metadata.uid": "0c3e2f1a-7b6d-4c5e-8f9a-1b2c3d4e5f60"},
    "metadata.annotations": {"metadata.annotations": {"example.com/team": "b"}},
    "spec.restartPolicy": {"spec.restartPolicy": "Never"},
    "spec.containers[].env": {"spec.containers.0.env": [{"name": "MODE", "value": "fast"}]},
    "spec.containers[].name": {"spec.containers.0.name": "other"},
    "spec.containers[].resources.limits": {
        "spec.containers.0.resources.limits": {"cpu": "4", "memory": "1Gi"}
    },
}


def _keyed(path: str) -> bool:
    """Whether the tables say the field reaches the key (a field holding fields: through some of them)."""
    for prefix in sorted(TABLES, key=len, reverse=True):
        if path.startswith(prefix) and path[len(prefix) :] in TABLES[prefix][1]:
            where = TABLES[prefix][1][path[len(prefix) :]]
            if isinstance(where, str):
                return where.startswith("see ")
            return any(part in KEY_FIELDS or part in UNIT_PARTS for part in where)
    raise AssertionError(f"{path}: not in the tables")


def test_two_identical_pods_are_one_class() -> None:
    assert _two({}) == [["first", "second"]]


@pytest.mark.parametrize("field", DIFFERENT)
def test_pods_that_differ_in_a_keyed_field_are_two_classes(field: str) -> None:
    assert _keyed(field), f"{field} is listed as ignored"
    assert sorted(_two(DIFFERENT[field])) == [["first"], ["second"]]


@pytest.mark.parametrize("field", SAME)
def test_pods_that_differ_in_an_ignored_field_are_one_class(field: str) -> None:
    # A limit reaches the key only where it stands in for a request the container does not write.
    assert not _keyed(field) or field.endswith(".limits"), f"{field} is in the key"
    assert _two(SAME[field]) == [["first", "second"]]
